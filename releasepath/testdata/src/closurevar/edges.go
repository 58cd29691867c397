package closurevar

import (
	"io"
	"os"
	"sync"
)

type pair struct {
	mu  sync.Mutex
	aux sync.Mutex
}

func keep(p *func()) {}

// addressTaken: the variable's address escapes, so its call may run anything.
func (s *store) addressTaken() error {
	unlock := func() { s.mu.Unlock() }
	keep(&unlock)
	s.mu.Lock()
	if err := step(); err != nil {
		unlock()
		return err // want `return may skip s.mu.Unlock \(Lock at line 20\)`
	}
	s.mu.Unlock()
	return nil
}

// reassignedAfterLock: assigned again after the lock, before the call.
func (s *store) reassignedAfterLock(quiet bool) error {
	unlock := func() { s.mu.Unlock() }
	s.mu.Lock()
	if quiet {
		unlock = func() {}
	}
	if err := step(); err != nil {
		unlock()
		return err // want `return may skip s.mu.Unlock \(Lock at line 32\)`
	}
	s.mu.Unlock()
	return nil
}

// reassignedInLiteral: assigned again inside another function literal.
func (s *store) reassignedInLiteral() error {
	unlock := func() { s.mu.Unlock() }
	reset := func() { unlock = func() {} }
	reset()
	s.mu.Lock()
	if err := step(); err != nil {
		unlock()
		return err // want `return may skip s.mu.Unlock \(Lock at line 49\)`
	}
	s.mu.Unlock()
	return nil
}

// shadowedNoop: an inner unlock of the same name does nothing.
func (s *store) shadowedNoop() error {
	unlock := func() { s.mu.Unlock() }
	_ = unlock
	s.mu.Lock()
	if err := step(); err != nil {
		unlock := func() {}
		unlock()
		return err // want `return may skip s.mu.Unlock \(Lock at line 62\)`
	}
	s.mu.Unlock()
	return nil
}

// shadowedReleases: the outer unlock is reassigned, the inner one, bound once, unlocks.
func (s *store) shadowedReleases() error {
	unlock := func() {}
	unlock = func() {}
	unlock()
	s.mu.Lock()
	if err := step(); err != nil {
		unlock := func() { s.mu.Unlock() }
		unlock()
		return err
	}
	s.mu.Unlock()
	return nil
}

// twoLevels: a bound-once variable whose literal calls another bound-once variable.
func (s *store) twoLevels() error {
	unlock := func() { s.mu.Unlock() }
	release := func() { unlock() }
	s.mu.Lock()
	defer release()
	if err := step(); err != nil {
		return err
	}
	return nil
}

// mutexParam unlocks the mutex it is passed.
func (p *pair) mutexParam() error {
	unlock := func(m *sync.Mutex) { m.Unlock() }
	p.mu.Lock()
	if err := step(); err != nil {
		unlock(&p.mu)
		return err
	}
	p.mu.Unlock()
	return nil
}

// mutexParamOther unlocks another mutex of p through the variable.
func (p *pair) mutexParamOther() error {
	unlock := func(m *sync.Mutex) { m.Unlock() }
	p.mu.Lock()
	if err := step(); err != nil {
		unlock(&p.aux)
		return err // want `return may skip p.mu.Unlock \(Lock at line 114\)`
	}
	p.mu.Unlock()
	return nil
}

// conditionalLiteral: the literal unlocks only when verbose, so its call may release nothing.
func (s *store) conditionalLiteral(verbose bool) error {
	unlock := func() {
		if verbose {
			s.mu.Unlock()
		}
	}
	s.mu.Lock()
	if err := step(); err != nil {
		unlock()
		return err // want `return may skip s.mu.Unlock \(Lock at line 130\)`
	}
	s.mu.Unlock()
	return nil
}

// closesOther: the closure ignores its parameter and closes g.
func closesOther(path string, g *os.File) error {
	closeG := func(c io.Closer) { g.Close() }
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		closeG(f)
		return err // want `return may skip f.Close \(Open at line 142\)`
	}
	return f.Close()
}

// inGoroutine unlocks in another goroutine (the doc's closurevar bullet does not say).
func (s *store) inGoroutine() error {
	unlock := func() { s.mu.Unlock() }
	s.mu.Lock()
	if err := step(); err != nil {
		go unlock()
		return err
	}
	s.mu.Unlock()
	return nil
}

// deferredDirect: defer unlock() of a variable declared before the lock.
func (s *store) deferredDirect() error {
	unlock := func() { s.mu.Unlock() }
	s.mu.Lock()
	defer unlock()
	if err := step(); err != nil {
		return err
	}
	return nil
}

// Controls for conditionalLiteral and mutexParam.

// conditionalDirect calls a conditional literal where it is written.
func (s *store) conditionalDirect(verbose bool) error {
	s.mu.Lock()
	if err := step(); err != nil {
		func() {
			if verbose {
				s.mu.Unlock()
			}
		}()
		return err // want `return may skip s.mu.Unlock \(Lock at line 180\)`
	}
	s.mu.Unlock()
	return nil
}

// conditionalDeferred defers the call of a variable bound to a conditional literal.
func (s *store) conditionalDeferred(verbose bool) error {
	unlock := func() {
		if verbose {
			s.mu.Unlock()
		}
	}
	s.mu.Lock()
	defer unlock()
	if err := step(); err != nil {
		return err // want `return may skip s.mu.Unlock \(Lock at line 200\)`
	}
	return nil // want `return may skip s.mu.Unlock \(Lock at line 200\)`
}

func unlockM(m *sync.Mutex) { m.Unlock() }

// mutexWrapper: the same call through a package function.
func (p *pair) mutexWrapper() error {
	p.mu.Lock()
	if err := step(); err != nil {
		unlockM(&p.mu)
		return err
	}
	p.mu.Unlock()
	return nil
}

// mutexParamLocal passes the closure a local holding &p.mu.
func (p *pair) mutexParamLocal() error {
	unlock := func(m *sync.Mutex) { m.Unlock() }
	mu := &p.mu
	mu.Lock()
	if err := step(); err != nil {
		unlock(mu)
		return err
	}
	mu.Unlock()
	return nil
}
