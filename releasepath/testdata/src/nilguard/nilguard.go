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
