// Package methodvalue takes the release as a method value: called or deferred later it
// releases, left uncalled it does not.
package methodvalue

import "sync"

type cache struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *cache) deferred(k string) int {
	c.mu.Lock()
	unlock := c.mu.Unlock
	defer unlock()
	return c.n[k]
}

func (c *cache) called(k string) int {
	c.mu.Lock()
	unlock := c.mu.Unlock
	v := c.n[k]
	unlock()
	return v
}

// neverCalled keeps the method value and returns without calling it on one path.
func (c *cache) neverCalled(k string) int {
	c.mu.Lock()
	unlock := c.mu.Unlock
	v, ok := c.n[k]
	if !ok {
		return 0 // want `return may skip c.mu.Unlock \(Lock at line 29\)`
	}
	unlock()
	return v
}

// uncalled takes the method value and never calls it: that is no hand-off.
func (c *cache) uncalled(k string) int {
	c.mu.Lock()
	unlock := c.mu.Unlock
	_ = unlock
	if c.n == nil {
		return 0 // want `return may skip c.mu.Unlock \(Lock at line 41\)`
	}
	c.mu.Unlock()
	return 1
}

type registry struct{ cleanups []func() }

func (r *registry) add(f func()) { r.cleanups = append(r.cleanups, f) }

// handedToRegistry hands the method value to a registry that calls it later.
func (c *cache) handedToRegistry(r *registry, k string) int {
	c.mu.Lock()
	r.add(c.mu.Unlock)
	return c.n[k]
}
