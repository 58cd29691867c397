// Package notaleak releases on every path: deferred, on every branch, through a wrapper, in a
// function literal of its own, or hands a cleanup closure on.
package notaleak

import (
	"errors"
	"os"
)

type addrMgr struct{}

func (m *addrMgr) HoldAddress(name string) (string, error) { return name, nil }

func (m *addrMgr) ReleaseAddress(name string) error { return nil }

func step() error { return nil }

var errNotFound = errors.New("not found")

func deferAfterCheck(m *addrMgr) error {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return err
	}
	defer m.ReleaseAddress(ip)
	if err := step(); err != nil {
		return err
	}
	return nil
}

func namedErrDefer(m *addrMgr) (err error) {
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
	return errors.New("late failure")
}

type holder struct {
	ip string
	m  map[string]string
	ch chan string
}

func handOffCleanup(m *addrMgr) (func(), error) {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return nil, err
	}
	if err := step(); err != nil {
		m.ReleaseAddress(ip)
		return nil, err
	}
	return func() { m.ReleaseAddress(ip) }, nil
}

func switchAllBranches(m *addrMgr, k int) error {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return err
	}
	switch k {
	case 0:
		m.ReleaseAddress(ip)
		return nil
	case 1:
		m.ReleaseAddress(ip)
		return errNotFound
	default:
		m.ReleaseAddress(ip)
		return step()
	}
}

type ctrl struct{ m *addrMgr }

func (c *ctrl) release(ip string) { c.m.ReleaseAddress(ip) }

func (c *ctrl) wrapperMethod() error {
	ip, err := c.m.HoldAddress("a")
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		c.release(ip)
		return err
	}
	c.release(ip)
	return nil
}

func funcLiteralOK(m *addrMgr) func() error {
	return func() error {
		ip, err := m.HoldAddress("a")
		if err != nil {
			return err
		}
		defer m.ReleaseAddress(ip)
		return step()
	}
}

func releaseHeld(m *addrMgr, ip string) { m.ReleaseAddress(ip) }

func packageFuncWrapper(m *addrMgr) error {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		releaseHeld(m, ip)
		return err
	}
	releaseHeld(m, ip)
	return nil
}

func ifElseScope(m *addrMgr) error {
	if ip, err := m.HoldAddress("a"); err != nil {
		return err
	} else {
		defer m.ReleaseAddress(ip)
	}
	return step()
}

func tempFile(dir string) error {
	f, err := os.CreateTemp(dir, "x")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	return step()
}

type op int

const (
	reserve op = iota
	unreserve
)

// dispatch reserves or releases, one per call: the release in the other case is no
// evidence for the hold, which the caller owns.
func dispatch(m *addrMgr, o op, name string) error {
	var err error
	switch o {
	case reserve:
		_, err = m.HoldAddress(name)
	case unreserve:
		err = m.ReleaseAddress(name)
	default:
		return errNotFound
	}
	if err != nil {
		return err
	}
	return step()
}
