// Package holdsonsuccess returns holding what it took where a result says success, and
// releases it where the same result says failure: the caller holds it with the result.
package holdsonsuccess

import (
	"errors"
	"fmt"
	"sync"
)

var errNotFound = errors.New("not found")

type entry struct{ n int }

type cache struct {
	mu     sync.Mutex
	other  sync.Mutex
	m      map[string]*entry
	busy   bool
	closed bool
}

func (c *cache) check() error { return nil }

// tryLock keeps the lock when it returns true.
func (c *cache) tryLock() bool {
	c.mu.Lock()
	if c.busy {
		c.mu.Unlock()
		return false
	}
	return true
}

// lockedGet returns its entry with the lock held, and unlocks on its error.
func (c *cache) lockedGet(k string) (*entry, error) {
	c.mu.Lock()
	e, ok := c.m[k]
	if !ok {
		c.mu.Unlock()
		return nil, errNotFound
	}
	return e, nil
}

// lockEntry returns the entry locked, or nil unlocked.
func (c *cache) lockEntry(k string) *entry {
	c.mu.Lock()
	e := c.m[k]
	if e == nil {
		c.mu.Unlock()
		return nil
	}
	return e
}

// beginUpdate takes both locks for endUpdate, and neither on its error.
func (c *cache) beginUpdate() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return fmt.Errorf("closed")
	}
	c.other.Lock()
	return nil
}

func (c *cache) endUpdate() {
	c.other.Unlock()
	c.mu.Unlock()
}

// begin unlocks in a deferred closure when it fails.
func (c *cache) begin() (err error) {
	c.mu.Lock()
	defer func() {
		if err != nil {
			c.mu.Unlock()
		}
	}()
	if err = c.check(); err != nil {
		return err
	}
	return nil
}

// lookup unlocks on one error and keeps the lock on another: that one breaks the contract.
func (c *cache) lookup(k string) (*entry, error) {
	c.mu.Lock()
	if err := c.check(); err != nil {
		return nil, err // want `return may skip c.mu.Unlock \(Lock at line 89\)`
	}
	e, ok := c.m[k]
	if !ok {
		c.mu.Unlock()
		return nil, errNotFound
	}
	return e, nil
}

// get unlocks on its success path: the error return that keeps the lock is a leak.
func (c *cache) get(k string) (*entry, error) {
	c.mu.Lock()
	if err := c.check(); err != nil {
		return nil, err // want `return may skip c.mu.Unlock \(Lock at line 103\)`
	}
	e := c.m[k]
	c.mu.Unlock()
	return e, nil
}

// skip returns true both unlocked and locked: the result says nothing.
func (c *cache) skip() bool {
	c.mu.Lock()
	if c.busy {
		c.mu.Unlock()
		return true
	}
	return true // want `return may skip c.mu.Unlock \(Lock at line 114\)`
}

// count unlocks on a success: a return that keeps the lock with nil is a leak.
func (c *cache) count(k string) (int, error) {
	c.mu.Lock()
	e, ok := c.m[k]
	if !ok {
		c.mu.Unlock()
		return 0, nil
	}
	return e.n, nil // want `return may skip c.mu.Unlock \(Lock at line 124\)`
}

// peek returns nil unlocked, with an error it does not know to be non-nil, and its entry
// locked: the entry says success.
func (c *cache) peek(k string) (*entry, error) {
	c.mu.Lock()
	e := c.m[k]
	if e.n > 0 {
		c.mu.Unlock()
		return nil, c.check()
	}
	return e, nil
}
