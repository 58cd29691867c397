// Package correlated acquires and releases under the same unchanged condition: a path that
// took one edge of a test of a bool variable takes the same edge at every later test of it,
// while the variable keeps its value. if doLock { mu.Lock() } … if doLock { mu.Unlock() } is
// one decision, not four paths.
package correlated

import (
	"os"
	"sync"
)

type store struct {
	mu    sync.RWMutex
	cache bool
	m     map[string]int
}

func step() error { return nil }

// lockIf locks only when doLock, and unlocks under the same test: the path that locked
// unlocks.
func (s *store) lockIf(doLock bool, k string) int {
	if doLock {
		s.mu.Lock()
	}
	v := s.m[k]
	if doLock {
		s.mu.Unlock()
	}
	return v
}

// lockIfEarlyReturn returns between the two tests: that return skips the unlock.
func (s *store) lockIfEarlyReturn(doLock bool, k string) (int, error) {
	if doLock {
		s.mu.Lock()
	}
	if err := step(); err != nil {
		return 0, err // want `return may skip s.mu.Unlock \(Lock at line 36\)`
	}
	v := s.m[k]
	if doLock {
		s.mu.Unlock()
	}
	return v, nil
}

// lockUnlessHeld tests the negation, a local declared from a parameter.
func (s *store) lockUnlessHeld(hasLock bool, k string) int {
	needLock := !hasLock
	if needLock {
		s.mu.RLock()
	}
	v := s.m[k]
	if needLock {
		s.mu.RUnlock()
	}
	return v
}

// lockUnlessHeldNot tests !hasLock at both ends.
func (s *store) lockUnlessHeldNot(hasLock bool, k string) int {
	if !hasLock {
		s.mu.Lock()
	}
	v := s.m[k]
	if !hasLock {
		s.mu.Unlock()
	}
	return v
}

// lockMode chooses the mode under a second unchanged condition: each path releases the
// mode it took.
func (s *store) lockMode(doLock bool, k string) int {
	cacheEnabled := s.cache
	if doLock {
		if cacheEnabled {
			s.mu.Lock()
		} else {
			s.mu.RLock()
		}
	}
	v := s.m[k]
	if doLock {
		if cacheEnabled {
			s.mu.Unlock()
		} else {
			s.mu.RUnlock()
		}
	}
	return v
}

// lockAndCond locks under a conjunction; the release tests one of its terms.
func (s *store) lockAndCond(doLock, ready bool, k string) int {
	if doLock && ready {
		s.mu.Lock()
	}
	v := s.m[k]
	if doLock {
		s.mu.Unlock()
	}
	return v
}

// reassigned changes the flag between the tests: the second test says nothing about the
// first, and the path that locked and then cleared it skips the unlock.
func (s *store) reassigned(doLock bool, k string) int {
	if doLock {
		s.mu.Lock()
	}
	v := s.m[k]
	if v > 0 {
		doLock = false
	}
	if doLock {
		s.mu.Unlock()
	}
	return v // want `return may skip s.mu.Unlock \(Lock at line 111\)`
}

// orCond locks on the else edge of a disjunction: both terms are false there.
func (s *store) orCond(skip, held bool, k string) int {
	if skip || held {
		return 0
	} else {
		s.mu.Lock()
	}
	v := s.m[k]
	if !held {
		s.mu.Unlock()
	}
	return v
}

// perItem declares the flag in the loop: the next iteration's flag is another value, and a
// continue that skips the unlock leaves the lock held into an iteration that may not take
// it.
func (s *store) perItem(items []string) int {
	n := 0
	for _, k := range items {
		doLock := len(k) > 3
		if doLock {
			s.mu.Lock()
		}
		if k == "" {
			continue
		}
		n += s.m[k]
		if doLock {
			s.mu.Unlock()
		}
	}
	return n // want `return may skip s.mu.Unlock \(Lock at line 145\)`
}

// pointerTaken lets a callee change the flag: nothing is known of it.
func (s *store) pointerTaken(doLock bool, k string) int {
	if doLock {
		s.mu.Lock()
	}
	clearFlag(&doLock)
	v := s.m[k]
	if doLock {
		s.mu.Unlock()
	}
	return v // want `return may skip s.mu.Unlock \(Lock at line 161\)`
}

func clearFlag(b *bool) { *b = false }

// closureWrites changes the flag in a closure it calls.
func (s *store) closureWrites(doLock bool, k string) int {
	reset := func() { doLock = false }
	if doLock {
		s.mu.Lock()
	}
	reset()
	v := s.m[k]
	if doLock {
		s.mu.Unlock()
	}
	return v // want `return may skip s.mu.Unlock \(Lock at line 177\)`
}

// openIf opens only when asked to read the file, and closes under the same test.
func openIf(read bool, name string) (int, error) {
	var f *os.File
	var err error
	if read {
		f, err = os.Open(name)
		if err != nil {
			return 0, err
		}
	}
	n := len(name)
	if read {
		f.Close()
	}
	return n, nil
}

// syncFile opens the file only when it has none, and closes only what it opened: a path
// that set didOpen takes the true edge of each test of it.
func (s *store) syncFile(fd *os.File, name string) error {
	didOpen := false
	if fd == nil {
		var err error
		fd, err = os.Open(name)
		if err != nil {
			return err
		}
		didOpen = true
	}
	if err := step(); err != nil {
		if didOpen {
			_ = fd.Close()
		}
		return err
	}
	if didOpen {
		return fd.Close()
	}
	return nil
}

// resetByCall sets the flag from a call between the tests: nothing is known of it after.
func (s *store) resetByCall(doLock bool, k string) int {
	if doLock {
		s.mu.Lock()
	}
	v := s.m[k]
	doLock, _ = check(k)
	if doLock {
		s.mu.Unlock()
	}
	return v // want `return may skip s.mu.Unlock \(Lock at line 231\)`
}

func check(k string) (bool, error) { return k != "", nil }
