// Package methodvaluebeforeacquisition takes the release as a method value before the
// acquisition and calls it after: "methodvalue: a method value of the release ... releases
// when it is called". None of these returns skips the release.
package methodvaluebeforeacquisition

import "sync"

type cache struct {
	mu sync.Mutex
	rw sync.RWMutex
	m  map[string]string
}

// deferredMutex defers the Unlock it took before the Lock.
func (c *cache) deferredMutex(k string) string {
	unlock := c.mu.Unlock
	c.mu.Lock()
	defer unlock()
	return c.m[k]
}

// calledMutex calls the Unlock it took before the Lock.
func (c *cache) calledMutex(k string) string {
	unlock := c.mu.Unlock
	c.mu.Lock()
	v := c.m[k]
	unlock()
	return v
}

// deferredRWMutex defers the RUnlock it took before the RLock.
func (c *cache) deferredRWMutex(k string) string {
	runlock := c.rw.RUnlock
	c.rw.RLock()
	defer runlock()
	return c.m[k]
}
