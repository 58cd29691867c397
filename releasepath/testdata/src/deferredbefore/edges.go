package deferredbefore

import (
	"io"
	"os"
	"sync"
)

func work() error { return nil }

func closeQuietly(c io.Closer) { c.Close() }

// perIteration defers, inside the loop and before the open, a close of that iteration's f.
func perIteration(paths []string) error {
	for _, p := range paths {
		var f *os.File
		defer func() {
			if f != nil {
				f.Close()
			}
		}()
		var err error
		f, err = os.Open(p)
		if err != nil {
			return err
		}
		if err := work(); err != nil {
			return err
		}
	}
	return nil
}

// deferInLoop defers the close in a loop that may run no time before the open.
func deferInLoop(path string, n int) error {
	var f *os.File
	for i := 0; i < n; i++ {
		defer func() {
			if f != nil {
				f.Close()
			}
		}()
	}
	var err error
	f, err = os.Open(path)
	if err != nil {
		return err
	}
	if err := work(); err != nil {
		return err // want `return may skip f.Close \(Open at line 45\)`
	}
	return f.Close()
}

// deferAndOpenInIf defers and opens inside the same if: every return after the open closes.
func deferAndOpenInIf(path string, use bool) error {
	if use {
		var f *os.File
		defer func() {
			if f != nil {
				f.Close()
			}
		}()
		var err error
		f, err = os.Open(path)
		if err != nil {
			return err
		}
		if err := work(); err != nil {
			return err
		}
	}
	return nil
}

// otherVariable defers a close of g, then opens f.
func otherVariable(path string) error {
	var f, g *os.File
	defer func() {
		if g != nil {
			g.Close()
		}
	}()
	var err error
	f, err = os.Open(path)
	if err != nil {
		return err
	}
	if err := work(); err != nil {
		return err // want `return may skip f.Close \(Open at line 85\)`
	}
	return f.Close()
}

// shadowed opens a new f in an inner scope: the deferred closure closes the outer one.
func shadowed(path string) error {
	var f *os.File
	defer func() {
		if f != nil {
			f.Close()
		}
	}()
	if path != "" {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		if err := work(); err != nil {
			return err // want `return may skip f.Close \(Open at line 104\)`
		}
		return f.Close()
	}
	return nil
}

// noGuard defers an unguarded close before the open: it reads f when it runs.
func noGuard(path string) (err error) {
	var f *os.File
	defer func() { f.Close() }()
	f, err = os.Open(path)
	if err != nil {
		return err
	}
	if err := work(); err != nil {
		return err
	}
	return nil
}

// receiverBefore defers f.Close() while f is nil: the receiver is read when deferred.
func receiverBefore(path string) error {
	var f *os.File
	defer f.Close()
	var err error
	f, err = os.Open(path)
	if err != nil {
		return err
	}
	if err := work(); err != nil {
		return err // want `return may skip f.Close \(Open at line 135\)`
	}
	return f.Close()
}

// wrapperBefore defers closeQuietly(f) while f is nil: its argument is read when deferred.
func wrapperBefore(path string) error {
	var f *os.File
	defer closeQuietly(f)
	var err error
	f, err = os.Open(path)
	if err != nil {
		return err
	}
	if err := work(); err != nil {
		return err // want `return may skip closeQuietly \(Open at line 150\)`
	}
	return f.Close()
}

// paramBefore: the doc's own example, a literal passed f before the open.
func paramBefore(path string) error {
	var f *os.File
	defer func(f *os.File) { f.Close() }(f)
	var err error
	f, err = os.Open(path)
	if err != nil {
		return err
	}
	if err := work(); err != nil {
		return err // want `return may skip f.Close \(Open at line 165\)`
	}
	return f.Close()
}

// clearedAfterOpen sets f to nil after the open: the deferred closure closes nothing.
func clearedAfterOpen(path string) error {
	var f *os.File
	defer func() {
		if f != nil {
			f.Close()
		}
	}()
	var err error
	f, err = os.Open(path)
	if err != nil {
		return err
	}
	f = nil
	return work() // want `return may skip f.Close \(Open at line 184\)`
}

type rwAccount struct {
	rw    sync.RWMutex
	other sync.Mutex
	maps  map[string]string
}

// upgrade defers RUnlock, then retakes the write lock: the deferred RUnlock is the other
// mode and releases nothing of it.
func (a *rwAccount) upgrade() int {
	a.rw.RLock()
	defer a.rw.RUnlock()
	if a.maps != nil {
		return 1
	}
	a.rw.RUnlock()
	a.rw.Lock()
	if a.maps == nil {
		return 0 // want `return may skip a.rw.Unlock \(Lock at line 207\)`
	}
	a.rw.Unlock()
	a.rw.RLock()
	return 2
}

// otherMutex defers the unlock of another mutex before the lock.
func (a *rwAccount) otherMutex() int {
	a.other.Lock()
	defer a.other.Unlock()
	a.rw.Lock()
	if a.maps == nil {
		return 0 // want `return may skip a.rw.Unlock \(Lock at line 220\)`
	}
	a.rw.Unlock()
	return 1
}

// Control for deferAndOpenInIf: f declared at the top, the defer and the open in the if.
func deferInIfTopVar(path string, use bool) error {
	var f *os.File
	if use {
		defer func() {
			if f != nil {
				f.Close()
			}
		}()
		var err error
		f, err = os.Open(path)
		if err != nil {
			return err
		}
		if err := work(); err != nil {
			return err
		}
	}
	return nil
}

// Control: the defer at the top, the open inside an if.
func deferTopOpenInIf(path string, use bool) error {
	var f *os.File
	defer func() {
		if f != nil {
			f.Close()
		}
	}()
	if use {
		var err error
		f, err = os.Open(path)
		if err != nil {
			return err
		}
		if err := work(); err != nil {
			return err
		}
	}
	return nil
}

// keyLocker locks by key, as buildkit's cache mount locker does.
type keyLocker struct{}

func (*keyLocker) Lock(key string)   {}
func (*keyLocker) Unlock(key string) {}

var refs keyLocker

// waitForKey drops the key's lock to wait and takes it back: the Unlock deferred at the top
// reads the same key, which nothing changes, so it ends the retaken lock too.
func waitForKey(key string, done <-chan struct{}, busy func() bool) error {
	refs.Lock(key)
	defer refs.Unlock(key)
	for busy() {
		refs.Unlock(key)
		select {
		case <-done:
			refs.Lock(key)
			return work()
		default:
			refs.Lock(key)
		}
	}
	return work()
}

// keyChanged defers the Unlock of the first key and retakes the lock of another: the
// deferred call read the old key.
func keyChanged(key string, next string) error {
	refs.Lock(key)
	defer refs.Unlock(key)
	refs.Unlock(key)
	key = next
	refs.Lock(key)
	return work() // want `return may skip refs.Unlock \(Lock at line 303\)`
}
