// Package nilguard returns on the nil or false edge of a guard on the handle: nothing is
// held there.
package nilguard

import (
	"os"
	"sync"
)

type addrMgr struct{}

func (m *addrMgr) HoldAddress(name string) (string, error) { return name, nil }

func (m *addrMgr) ReleaseAddress(name string) error { return nil }

func step() error { return nil }

type cache struct {
	mu sync.Mutex
	n  map[string]int
}

func nilGuarded(m *addrMgr) error {
	if m == nil {
		return nil
	}
	ip, err := m.HoldAddress("a")
	if err != nil {
		return err
	}
	m.ReleaseAddress(ip)
	return nil
}

type mounter struct{}

func (m *mounter) Open(p string) (*os.File, error) { return os.Open(p) }

func nilGuardedHandle(p string) error {
	f, err := os.Open(p)
	if f == nil {
		return err
	}
	defer f.Close()
	return step()
}

func tryLock(c *cache) bool {
	if !c.mu.TryLock() {
		return false
	}
	defer c.mu.Unlock()
	return true
}

type permits struct{ ch chan struct{} }

func (p *permits) TryAcquire() bool {
	select {
	case p.ch <- struct{}{}:
		return true
	default:
		return false
	}
}

func (p *permits) Release() { <-p.ch }

// drainAll releases the permit under its own success, in a literal called where it is
// written: if acquired { defer p.Release() } is no condition for acquired :=
// p.TryAcquire(), whose false edge holds nothing.
func drainAll(p *permits, batches [][]string, run func([]string)) {
	for _, b := range batches {
		if len(b) == 0 {
			return
		}
		acquired := p.TryAcquire()
		func() {
			if acquired {
				defer p.Release()
			}
			run(b)
		}()
	}
}

// reassigned's bool says another thing once assigned again: its test guards nothing.
func reassigned(p *permits, cond func() bool, step func() error) error {
	acquired := p.TryAcquire()
	acquired = cond()
	if acquired {
		defer p.Release()
	}
	return step() // want `return may skip p.Release \(TryAcquire at line 89\)`
}

func (p *permits) Acquire(stop <-chan struct{}) error {
	select {
	case p.ch <- struct{}{}:
		return nil
	case <-stop:
		return os.ErrDeadlineExceeded
	}
}

// fallback folds a second acquisition into the bool where the first held nothing: false
// still says neither holds a permit, as go-redis's shutdown drain does.
func fallback(p *permits, stop <-chan struct{}, step func() error) error {
	acquired := p.TryAcquire()
	if !acquired {
		acquired = p.Acquire(stop) == nil
	}
	if acquired {
		defer p.Release()
	}
	return step()
}

// fallbackInLoop does the same in a literal called where it is written, each time round.
func fallbackInLoop(p *permits, stop <-chan struct{}, batches [][]string, run func([]string)) {
	for _, b := range batches {
		if len(b) == 0 {
			return
		}
		acquired := p.TryAcquire()
		if !acquired {
			acquired = p.Acquire(stop) == nil
		}
		func() {
			if acquired {
				defer p.Release()
			}
			run(b)
		}()
	}
}

// reassignedWhereHeld assigns the bool where the permit is held: false no longer says
// nothing is held.
func reassignedWhereHeld(p *permits, cond func() bool, step func() error) error {
	acquired := p.TryAcquire()
	if acquired {
		acquired = cond()
	}
	if acquired {
		defer p.Release()
	}
	return step() // want `return may skip p.Release \(TryAcquire at line 141\)`
}

// fallbackDeferred releases in a deferred closure under the folded bool.
func fallbackDeferred(p *permits, stop <-chan struct{}, step func() error) error {
	acquired := p.TryAcquire()
	if !acquired {
		acquired = p.Acquire(stop) == nil
	}
	defer func() {
		if acquired {
			p.Release()
		}
	}()
	return step()
}

// acquiredOnlyByError binds the bool from the error alone: true says it holds.
func acquiredOnlyByError(p *permits, stop <-chan struct{}, step func() error) error {
	acquired := p.Acquire(stop) == nil
	if !acquired {
		return nil
	}
	if err := step(); err != nil {
		return err // want `return may skip p.Release \(Acquire at line 167\)`
	}
	p.Release()
	return nil
}

// fallbackThenChanged assigns the bool again after the fallback, where it may say true with
// nothing held: it guards nothing.
func fallbackThenChanged(p *permits, stop <-chan struct{}, cond func() bool, step func() error) error {
	acquired := p.TryAcquire()
	if !acquired {
		acquired = p.Acquire(stop) == nil
		acquired = cond()
	}
	if acquired {
		defer p.Release()
	}
	return step() // want `return may skip p.Release \(TryAcquire at line 181\)` `return may skip p.Release \(Acquire at line 183\)`
}
