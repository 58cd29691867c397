// Package hostilefp holds correct controller code that releasepath must not report.
package hostilefp

import (
	"errors"
	"fmt"
	"log"
	"os"
	"sync"
)

type addrMgr struct{}

func (m *addrMgr) HoldAddress(name string) (string, error) { return name, nil }
func (m *addrMgr) ReleaseAddress(name string) error        { return nil }

var errNotFound = errors.New("not found")

func step() error { return nil }

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

type cache struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *cache) loopContinueBreak(keys []string) int {
	total := 0
	for _, k := range keys {
		c.mu.Lock()
		v, ok := c.n[k]
		if !ok {
			c.mu.Unlock()
			continue
		}
		if v < 0 {
			c.mu.Unlock()
			break
		}
		total += v
		c.mu.Unlock()
	}
	return total
}

func (c *cache) loopReturnUnlocked(keys []string) int {
	for _, k := range keys {
		c.mu.Lock()
		v := c.n[k]
		c.mu.Unlock()
		if v > 0 {
			return v
		}
	}
	return 0
}

type locker struct{}

func (l *locker) Acquire() error { return nil }
func (l *locker) Release()       {}

func ifInitAcquire(l *locker) error {
	if err := l.Acquire(); err != nil {
		return err
	}
	defer l.Release()
	return step()
}

func errorsIsFailure(l *locker) error {
	err := l.Acquire()
	if errors.Is(err, errNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	l.Release()
	return nil
}

func switchTrueFailure(l *locker) error {
	err := l.Acquire()
	switch {
	case errors.Is(err, errNotFound):
		return nil
	case err != nil:
		return err
	}
	l.Release()
	return nil
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

func panicPath(m *addrMgr) error {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		panic(err)
	}
	m.ReleaseAddress(ip)
	return nil
}

func fatalPath(m *addrMgr) error {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		log.Fatalf("step: %v", err)
	}
	if err := step(); err != nil {
		os.Exit(1)
	}
	m.ReleaseAddress(ip)
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

func tryLock(c *cache) bool {
	if !c.mu.TryLock() {
		return false
	}
	defer c.mu.Unlock()
	return true
}

func laterErrCheck(m *addrMgr) error {
	ip, err := m.HoldAddress("a")
	log.Printf("held %q", ip)
	if err != nil {
		return err
	}
	defer m.ReleaseAddress(ip)
	return step()
}

func wrappedFailure(m *addrMgr) error {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return fmt.Errorf("hold address: %w", err)
	}
	defer m.ReleaseAddress(ip)
	return step()
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

func (c *cache) perIterationClosure(keys []string) int {
	total := 0
	for _, k := range keys {
		func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			total += c.n[k]
		}()
	}
	return total
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

func (c *cache) labeledBreak(rows [][]string) int {
	total := 0
outer:
	for _, ks := range rows {
		c.mu.Lock()
		for _, k := range ks {
			if c.n[k] < 0 {
				c.mu.Unlock()
				break outer
			}
			total += c.n[k]
		}
		c.mu.Unlock()
	}
	return total
}
