package correlated

import "sync"

type cache struct {
	sync.Mutex
	files []string
}

var global sync.Mutex

// updateUnder locks the cache it may be passed under a nil test, and unlocks under the same
// test: the path that skips the unlock never locked, as nydus-snapshotter's
// UpdateUnderlyingFiles does.
func updateUnder(files []string, c *cache) {
	global.Lock()
	if c != nil {
		c.Lock()
	}
	_ = files
	if c != nil {
		c.Unlock()
	}
	global.Unlock()
}

// updateUnderEq tests the other way round: if c == nil skips both.
func updateUnderEq(files []string, c *cache) error {
	if c != nil {
		c.Lock()
	}
	if len(files) == 0 {
		if c == nil {
			return nil
		}
		c.Unlock()
		return nil
	}
	if c != nil {
		c.Unlock()
	}
	return nil
}

// updateLocal picks the cache into a local first: its tests correlate too.
func updateLocal(files []string, caches map[string]*cache, k string) {
	var c *cache
	if len(files) > 0 {
		c = caches[k]
	}
	if c != nil {
		c.Lock()
	}
	if c != nil {
		c.files = files
		c.Unlock()
	}
}

// updateLocker tests an interface.
func updateLocker(l sync.Locker, step func() error) error {
	if l != nil {
		l.Lock()
	}
	err := step()
	if l != nil {
		l.Unlock()
	}
	return err
}

// updateChanged assigns the variable between the tests: the second test says nothing of the
// first, and the path where the new value is nil returns holding the old one's lock.
func updateChanged(c, other *cache) {
	if c != nil {
		c.Lock()
	}
	c = other
	if c != nil {
		c.Unlock()
	}
} // want `return may skip c.Unlock \(Lock at line 76\)`

// updateAddressed takes the variable's address: a callee may change it, so its tests say
// nothing of each other.
func updateAddressed(c *cache, reset func(**cache)) {
	if c != nil {
		c.Lock()
	}
	reset(&c)
	if c != nil {
		c.Unlock()
	}
} // want `return may skip c.Unlock \(Lock at line 88\)`

// updateUnderAnd tests the cache with another term: the true edge of c != nil && verbose
// settles both, and so does the unlock's test.
func updateUnderAnd(c *cache, verbose bool) {
	if c != nil && verbose {
		c.Lock()
	}
	if c != nil && verbose {
		c.Unlock()
	}
}
