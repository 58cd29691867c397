// Package enteredholding drops a lock its caller holds and takes it back: the function is
// entered holding it, and returns holding it, as the caller expects.
package enteredholding

import (
	"runtime"
	"sync"
)

type conn struct {
	mu      sync.Mutex
	other   sync.Mutex
	pending int
	closed  bool
}

// yield is called with c.mu held.
func (c *conn) yield() bool {
	if c.pending > 0 {
		c.mu.Unlock()
		runtime.Gosched()
		c.mu.Lock()
		return false
	}
	return true
}

// flushLocked is called with c.mu held; it drops it around a slow write.
func (c *conn) flushLocked(write func() error) error {
	c.mu.Unlock()
	err := write()
	c.mu.Lock()
	if err != nil {
		c.closed = true
		return err
	}
	c.pending = 0
	return nil
}

// lockedHere takes c.mu itself first: the later Unlock is that Lock's, and the second Lock
// is an acquisition of its own.
func (c *conn) lockedHere(write func() error) error {
	c.mu.Lock()
	c.pending++
	c.mu.Unlock()
	if err := write(); err != nil {
		return err
	}
	c.mu.Lock()
	if c.closed {
		return nil // want `return may skip c.mu.Unlock \(Lock at line 50\)`
	}
	c.mu.Unlock()
	return nil
}

// otherLock drops c.mu, which proves nothing about c.other.
func (c *conn) otherLock() int {
	c.mu.Unlock()
	c.other.Lock()
	if c.closed {
		return 0 // want `return may skip c.other.Unlock \(Lock at line 61\)`
	}
	c.other.Unlock()
	c.mu.Lock()
	return c.pending
}

// inLiteral: an Unlock inside a function literal may run at any time, so it proves nothing.
func (c *conn) inLiteral(later func(func())) int {
	later(func() { c.mu.Unlock() })
	c.mu.Lock()
	if c.closed {
		return 0 // want `return may skip c.mu.Unlock \(Lock at line 73\)`
	}
	c.mu.Unlock()
	return 1
}
