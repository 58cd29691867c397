// Package funcvar releases through a function variable that a deferred closure calls when
// it runs: what the variable holds at a return is what that return releases.
package funcvar

import (
	"errors"
	"sync"
)

var errStale = errors.New("stale")

type store struct {
	mu   sync.RWMutex
	file sync.RWMutex
	n    int
}

func (s *store) modified() (bool, error) { return false, nil }
func (s *store) reload() error           { return nil }

// stopReading releases what startReading took.
func (s *store) stopReading() {
	s.mu.RUnlock()
	s.file.RUnlock()
}

// startReading takes both read locks for stopReading. Every error return gives back what
// unlockFn holds there; the success return keeps the locks for the caller (unlockFn = nil),
// and a release taken back in its own block (s.mu.RUnlock(); …; s.mu.RLock()) says
// nothing of the result.
func (s *store) startReading() error {
	s.file.RLock()
	unlockFn := s.file.RUnlock
	defer func() {
		if unlockFn != nil {
			unlockFn()
		}
	}()
	s.mu.RLock()
	unlockFn = s.stopReading
	modified, err := s.modified()
	if err != nil {
		return err
	}
	if modified {
		s.mu.RUnlock()
		unlockFn = s.file.RUnlock
		if err := s.reload(); err != nil {
			return err
		}
		s.mu.RLock()
	}
	unlockFn = nil
	return nil
}

// clearedEarly sets unlockFn to nil before an error return: nothing releases there.
func (s *store) clearedEarly() error {
	s.file.RLock()
	unlockFn := s.file.RUnlock
	defer func() {
		if unlockFn != nil {
			unlockFn()
		}
	}()
	if s.n > 0 {
		unlockFn = nil
		return errStale // want `return may skip s.file.RUnlock \(RLock at line 59\)`
	}
	unlockFn()
	unlockFn = nil
	return nil
}

// swapped points unlockFn at something else before the return: the lock stays held.
func (s *store) swapped() {
	s.file.RLock()
	unlockFn := s.file.RUnlock
	defer func() { unlockFn() }()
	if s.n > 0 {
		unlockFn = func() {}
		return // want `return may skip s.file.RUnlock \(RLock at line 77\)`
	}
}

// noResult keeps nothing for a caller: with no result to say success, the return that
// cleared unlock leaks.
func (s *store) noResult() {
	s.mu.Lock()
	unlock := s.mu.Unlock
	defer func() {
		if unlock != nil {
			unlock()
		}
	}()
	if s.n > 0 {
		unlock = nil
		return // want `return may skip s.mu.Unlock \(Lock at line 89\)`
	}
	s.n++
}

// loopy calls unlockFn only in a loop of the closure, which may run no time.
func (s *store) loopy(xs []int) error {
	s.file.RLock()
	unlockFn := s.file.RUnlock
	defer func() {
		for range xs {
			unlockFn()
		}
	}()
	if len(xs) == 0 {
		return errStale // want `return may skip s.file.RUnlock \(RLock at line 105\)`
	}
	return nil // want `return may skip s.file.RUnlock \(RLock at line 105\)`
}

// successReleases gives back at a success return through unlockFn too: nil says nothing of
// the lock, and the other success return, which keeps it, is reported.
func (s *store) successReleases(fast bool) error {
	s.file.RLock()
	unlockFn := s.file.RUnlock
	defer func() {
		if unlockFn != nil {
			unlockFn()
		}
	}()
	if fast {
		return nil
	}
	unlockFn = nil
	return nil // want `return may skip s.file.RUnlock \(RLock at line 121\)`
}

// addressTaken clears unlock through its address: the path cannot follow it, and the
// deferred call releases nothing it can name.
func (s *store) addressTaken() {
	s.mu.Lock()
	unlock := s.mu.Unlock
	defer func() {
		if unlock != nil {
			unlock()
		}
	}()
	clearFunc(&unlock)
	return // want `return may skip s.mu.Unlock \(Lock at line 138\)`
}

func clearFunc(f *func()) { *f = nil }

// clearedInLiteral clears unlock in a literal called where it is written.
func (s *store) clearedInLiteral() {
	s.mu.Lock()
	unlock := s.mu.Unlock
	defer func() {
		if unlock != nil {
			unlock()
		}
	}()
	func() { unlock = nil }()
	return // want `return may skip s.mu.Unlock \(Lock at line 153\)`
}

// inGoroutine is the startReading shape in a literal, checked as a function of its own:
// the literal's own variables are followed as a function's are.
func (s *store) inGoroutine(done chan error) {
	go func() {
		s.file.RLock()
		unlockFn := s.file.RUnlock
		defer func() {
			if unlockFn != nil {
				unlockFn()
			}
		}()
		if s.n > 0 {
			done <- errStale
			return
		}
		unlockFn()
		unlockFn = nil
		done <- nil
	}()
}
