// Package mutex is a cache guarded by a mutex, with the early return that keeps it locked.
package mutex

import (
	"errors"
	"sync"
)

type cache struct {
	mu sync.RWMutex
	m  map[string]string
}

var errMissing = errors.New("missing")

func (c *cache) getLeaky(k string) (string, error) {
	c.mu.Lock()
	v, ok := c.m[k]
	if !ok {
		return "", errMissing // want `return may skip c.mu.Unlock \(Lock at line 17\)`
	}
	c.mu.Unlock()
	return v, nil
}

func (c *cache) get(k string) (string, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.m[k]
	if !ok {
		return "", errMissing
	}
	return v, nil
}

func (c *cache) peek(k string) string {
	c.mu.RLock()
	v := c.m[k]
	c.mu.RUnlock()
	return v
}

func (c *cache) readLeaky(k string) bool {
	c.mu.RLock()
	if c.m == nil {
		return false // want `return may skip c.mu.RUnlock \(RLock at line 44\)`
	}
	_, ok := c.m[k]
	c.mu.RUnlock()
	return ok
}

// other locks are other objects: unlocking d.mu does not unlock c.mu.
func (c *cache) swap(d *cache) {
	c.mu.Lock()
	d.mu.Lock()
	d.mu.Unlock()
	if c.m == nil {
		return // want `return may skip c.mu.Unlock`
	}
	c.mu.Unlock()
}

func (c *cache) mustGet(k string) string {
	c.mu.Lock()
	v, ok := c.m[k]
	if !ok {
		panic("missing " + k) // a panic is not a return
	}
	c.mu.Unlock()
	return v
}

// tryGet returns at once when the lock is taken: the false edge of TryLock holds nothing.
func (c *cache) tryGet(k string) (string, bool) {
	if !c.mu.TryLock() {
		return "", false
	}
	v, ok := c.m[k]
	if !ok {
		return "", false // want `return may skip c.mu.Unlock \(TryLock at line 76\)`
	}
	c.mu.Unlock()
	return v, true
}
