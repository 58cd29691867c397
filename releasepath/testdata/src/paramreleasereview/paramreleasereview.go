// Package paramreleasereview tries to break the paramrelease rule: each literal's parameter
// is passed or changed so that the release reaches another value. The last two functions pin
// edges the paramrelease package lacks.
package paramreleasereview

import (
	"os"
	"sync"
)

func step() error { return nil }

type store struct {
	mu sync.Mutex
	n  int
}

// reassignedParam points the parameter at another store before the unlock: s.mu stays
// locked. FAILS: not reported.
func (s *store) reassignedParam(other *store) error {
	s.mu.Lock()
	defer func(x *store) {
		x = other
		x.mu.Unlock()
	}(s)
	if err := step(); err != nil {
		return err // want `return may skip s.mu.Unlock \(Lock at line 21\)`
	}
	s.mu.Unlock()
	return nil
}

// reassignedFile points the parameter at another file before the close: x stays open.
// FAILS: not reported.
func reassignedFile(path string, y *os.File) error {
	x, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func(f *os.File) {
		f = y
		f.Close()
	}(x)
	return step() // want `return may skip x.Close \(Open at line 36\)`
}

// conditionalInLiteral unlocks through the parameter only when verbose: under another
// condition the deferred release does not count. FAILS on the message: reported as
// "x.mu.Unlock", the literal's parameter, out of scope at the return.
func (s *store) conditionalInLiteral(verbose bool) error {
	s.mu.Lock()
	defer func(x *store) {
		if verbose {
			x.mu.Unlock()
		}
	}(s)
	return step() // want `return may skip s.mu.Unlock \(Lock at line 51\)`
}

// deferredBeforeOpen evaluates the argument when the defer runs, before the open: the
// literal closes the nil x, and the open file stays open. FAILS on the message: reported as
// "f.Close", the literal's parameter.
func deferredBeforeOpen(path string) error {
	var x *os.File
	defer func(f *os.File) { f.Close() }(x)
	var err error
	x, err = os.Open(path)
	if err != nil {
		return err
	}
	return step() // want `return may skip x.Close \(Open at line 67\)`
}

// secondParam closes the second argument: the first stays open. Passes (edge: the argument
// is matched to its own parameter).
func secondParam(path string, y *os.File) error {
	x, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func(a, b *os.File) { b.Close() }(x, y)
	if err := step(); err != nil {
		return err // want `return may skip x.Close \(Open at line 77\)`
	}
	return x.Close()
}

func (s *store) next() *store { return &store{} }

// argCall passes the literal a call on the receiver: its root is s, but the value is another
// store. Passes (edge: only the receiver's root itself stands for it).
func (s *store) argCall() error {
	s.mu.Lock()
	defer func(x *store) { x.mu.Unlock() }(s.next())
	if err := step(); err != nil {
		return err // want `return may skip s.mu.Unlock \(Lock at line 93\)`
	}
	s.mu.Unlock()
	return nil
}
