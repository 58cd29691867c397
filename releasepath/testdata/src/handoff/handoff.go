// Package handoff hands what it acquires on: into a struct, a map, a channel, a goroutine, a
// cleanup closure, or the caller.
package handoff

import (
	"errors"
	"net"
	"os"
)

type server struct {
	ln    net.Listener
	files map[string]*os.File
	ch    chan *os.File
}

func (s *server) listen(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	s.ln = ln
	return nil
}

func newServer(addr string) (*server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &server{ln: ln}, nil
}

func newServerChecked(addr string, ok bool) (*server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &server{ln: ln}
	if !ok {
		return s, errors.New("not ok") // want `return may skip ln.Close \(Listen at line 35\)`
	}
	return s, nil
}

func (s *server) track(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	s.files[name] = f
	return nil
}

func (s *server) send(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	s.ch <- f
	return nil
}

func serve(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	go func() {
		defer f.Close()
		_ = f.Sync()
	}()
	return nil
}

// openWithCleanup returns the file and the closure that closes it.
func openWithCleanup(name string) (*os.File, func(), error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

// lockedFile returns holding the file on purpose.
//
//releasepath:handoff the caller closes it
func lockedFile(name string) *os.File {
	f, _ := os.Open(name)
	if f == nil {
		return nil
	}
	_ = f.Sync()
	return nil
}

type pool struct{}

func (p *pool) reserve(name string) func() (string, error) { return nil }
func (p *pool) release(name string) error                  { return nil }

func register(name string, acquire func() (string, error), release func(string) error) error {
	return nil
}

// registered passes what reserve returns straight to register, which owns it.
func registered(p *pool, names []string) error {
	for _, n := range names {
		if err := register(n, p.reserve(n), p.release); err != nil {
			return err
		}
		if err := step(); err != nil {
			p.release(n)
			return err
		}
	}
	return nil
}

func step() error { return nil }

type fileLock struct{}

func (*fileLock) Lock() error   { return nil }
func (*fileLock) Unlock() error { return nil }

// initLock returns the lock's Unlock for its caller to call, as buildkit's CNI provider does:
// the release handed on as a method value.
func initLock(l *fileLock) (func() error, error) {
	if err := l.Lock(); err != nil {
		return nil, err
	}
	return l.Unlock, nil
}

// initLockDropped takes the Unlock as a value but returns something else.
func initLockDropped(l *fileLock) (func() error, error) {
	if err := l.Lock(); err != nil {
		return nil, err
	}
	unlock := l.Unlock
	_ = unlock
	return func() error { return nil }, nil // want `return may skip l.Unlock \(Lock at line 138\)`
}

// sendOrGiveUp sends the file in one case of a select: on the other case nothing took it.
func sendOrGiveUp(name string, ch chan *os.File, done <-chan struct{}) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	select {
	case ch <- f:
		return nil
	case <-done:
		return step() // want `return may skip f.Close \(Open at line 148\)`
	}
}

// swapped moves the files from res to spare in one assignment, whose right side is read
// before either side is assigned: spare holds them, and returning it hands them on.
func swapped(paths []string) ([]*os.File, error) {
	var res, spare []*os.File
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return res, err
		}
		res = append(res, f)
	}
	res, spare = spare, res
	return spare, nil
}
