// Package closurevar releases through a local variable bound once to a function literal.
package closurevar

import (
	"io"
	"os"
	"sync"
)

func step() error { return nil }

// closeIt closes its argument: defer closeIt(f) closes f.
func deferredThroughParam(path string) error {
	closeIt := func(c io.Closer) {
		c.Close()
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer closeIt(f)
	return step()
}

// calledThroughParam closes f on its error path through the variable.
func calledThroughParam(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	var closeQuietly = func(c *os.File) { _ = c.Close() }
	if err := step(); err != nil {
		closeQuietly(f)
		return err
	}
	return f.Close()
}

// otherValue closes g through the variable: f stays open.
func otherValue(path string, g *os.File) error {
	closeIt := func(c io.Closer) { c.Close() }
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		closeIt(g)
		return err // want `return may skip f.Close \(Open at line 42\)`
	}
	return f.Close()
}

type store struct{ mu sync.Mutex }

// captured unlocks through a closure declared before the lock, deferred inside another
// closure.
func (s *store) captured() error {
	unlock := func() { s.mu.Unlock() }
	s.mu.Lock()
	defer func() { unlock() }()
	if err := step(); err != nil {
		return err
	}
	return nil
}

// receiverParam unlocks the lock of what it is passed.
func (s *store) receiverParam(t *store) error {
	unlock := func(x *store) { x.mu.Unlock() }
	s.mu.Lock()
	if err := step(); err != nil {
		unlock(s)
		return err
	}
	if err := step(); err != nil {
		unlock(t)
		return err // want `return may skip s.mu.Unlock \(Lock at line 70\)`
	}
	s.mu.Unlock()
	return nil
}

// reassigned may run another literal: its call releases nothing.
func (s *store) reassigned(other *store) error {
	unlock := func() { s.mu.Unlock() }
	if other != nil {
		unlock = func() { other.mu.Unlock() }
	}
	s.mu.Lock()
	if err := step(); err != nil {
		unlock()
		return err // want `return may skip s.mu.Unlock \(Lock at line 89\)`
	}
	s.mu.Unlock()
	return nil
}
