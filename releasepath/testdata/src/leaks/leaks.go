// Package leaks holds leaking controller code that releasepath must report.
package leaks

import (
	"errors"
	"sync"
)

type addrMgr struct{}

func (m *addrMgr) HoldAddress(name string) (string, error) { return name, nil }
func (m *addrMgr) ReleaseAddress(name string) error        { return nil }

func step() error { return nil }

func earlyReturn(m *addrMgr) error {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		return err // want `return may skip m.ReleaseAddress \(HoldAddress at line 17\)`
	}
	m.ReleaseAddress(ip)
	return nil
}

func returnInLoop(m *addrMgr, names []string) error {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return err
	}
	for range names {
		if err := step(); err != nil {
			return err // want `return may skip m.ReleaseAddress \(HoldAddress at line 29\)`
		}
	}
	m.ReleaseAddress(ip)
	return nil
}

func viaGoto(m *addrMgr) error {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		goto fail
	}
	m.ReleaseAddress(ip)
	return nil
fail:
	return errors.New("failed") // want `return may skip m.ReleaseAddress \(HoldAddress at line 43\)`
}

func localErrDefer(m *addrMgr) error {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			m.ReleaseAddress(ip)
		}
	}()
	if step() != nil {
		return errors.New("step failed") // want `return may skip m.ReleaseAddress \(HoldAddress at line 57\)`
	}
	return nil // want `return may skip m.ReleaseAddress \(HoldAddress at line 57\)`
}

func successOnly(m *addrMgr) error {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return err
	}
	if err := step(); err == nil {
		m.ReleaseAddress(ip)
		return nil
	}
	return errors.New("step failed") // want `return may skip m.ReleaseAddress \(HoldAddress at line 73\)`
}

type cache struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *cache) lockInLoop(keys []string) int {
	for _, k := range keys {
		c.mu.Lock()
		v := c.n[k]
		if v > 0 {
			return v // want `return may skip c.mu.Unlock \(Lock at line 91\)`
		}
		c.mu.Unlock()
	}
	return 0
}

func literalLeak(m *addrMgr) func() error {
	return func() error {
		ip, err := m.HoldAddress("a")
		if err != nil {
			return err
		}
		if err := step(); err != nil {
			return err // want `return may skip m.ReleaseAddress \(HoldAddress at line 103\)`
		}
		m.ReleaseAddress(ip)
		return nil
	}
}

func deferInsideIf(m *addrMgr, cond bool) error {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return err
	}
	if cond {
		defer m.ReleaseAddress(ip)
	}
	return step() // want `return may skip m.ReleaseAddress \(HoldAddress at line 116\)`
}

func errReassigned(m *addrMgr) error {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return err
	}
	err = step()
	if err != nil {
		return err // want `return may skip m.ReleaseAddress \(HoldAddress at line 127\)`
	}
	m.ReleaseAddress(ip)
	return nil
}

func okSetTooEarly(m *addrMgr) error {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			m.ReleaseAddress(ip)
		}
	}()
	ok = true
	if err := step(); err != nil {
		return err // want `return may skip m.ReleaseAddress \(HoldAddress at line 140\)`
	}
	m.ReleaseAddress(ip)
	return nil
}

func namedErrSuccessDrops(m *addrMgr) (err error) {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			m.ReleaseAddress(ip)
		}
	}()
	if err = step(); err != nil {
		return err
	}
	return nil // want `return may skip m.ReleaseAddress \(HoldAddress at line 159\)`
}

func (c *cache) continueLocked(keys []string) int {
	total := 0
	for _, k := range keys {
		c.mu.Lock()
		v, ok := c.n[k]
		if !ok {
			continue // the lock stays held into the next Lock and out of the loop
		}
		total += v
		c.mu.Unlock()
	}
	return total // want `return may skip c.mu.Unlock \(Lock at line 177\)`
}

func (c *cache) labeledBreakLocked(rows [][]string) int {
	total := 0
outer:
	for _, ks := range rows {
		c.mu.Lock()
		for _, k := range ks {
			if c.n[k] < 0 {
				break outer
			}
			total += c.n[k]
		}
		c.mu.Unlock()
	}
	return total // want `return may skip c.mu.Unlock \(Lock at line 192\)`
}
