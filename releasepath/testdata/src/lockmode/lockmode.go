// Package lockmode releases each lock with the release of its own mode: RLock and TryRLock
// with RUnlock, Lock and TryLock with Unlock. The other mode's release on the same mutex
// releases nothing (sync throws "Unlock of unlocked RWMutex"), and says that the function
// meant to release the lock.
package lockmode

import "sync"

type cache struct {
	mu sync.RWMutex
	m  map[string]string
}

// readUnlock ends its RLock with Unlock: the return skips RUnlock.
func (c *cache) readUnlock(k string) string {
	c.mu.RLock()
	v := c.m[k]
	c.mu.Unlock()
	return v // want `return may skip c.mu.RUnlock \(RLock at line 16\)`
}

// readUnlockEarly ends its RLock with Unlock after an early return: both skip RUnlock.
func (c *cache) readUnlockEarly(k string) (string, bool) {
	c.mu.RLock()
	v, ok := c.m[k]
	if !ok {
		return "", false // want `return may skip c.mu.RUnlock \(RLock at line 24\)`
	}
	c.mu.Unlock()
	return v, true // want `return may skip c.mu.RUnlock \(RLock at line 24\)`
}

// readDeferUnlock defers the other mode's release.
func (c *cache) readDeferUnlock(k string) string {
	c.mu.RLock()
	defer c.mu.Unlock()
	return c.m[k] // want `return may skip c.mu.RUnlock \(RLock at line 35\)`
}

// readUnlockOnePath ends its RLock with RUnlock on one path and with Unlock on the other:
// only the other skips RUnlock.
func (c *cache) readUnlockOnePath(k string) string {
	c.mu.RLock()
	v, ok := c.m[k]
	if !ok {
		c.mu.Unlock()
		return "" // want `return may skip c.mu.RUnlock \(RLock at line 43\)`
	}
	c.mu.RUnlock()
	return v
}

// writeRUnlock ends its Lock with RUnlock: the return skips Unlock.
func (c *cache) writeRUnlock(k, v string) bool {
	c.mu.Lock()
	c.m[k] = v
	c.mu.RUnlock()
	return true // want `return may skip c.mu.Unlock \(Lock at line 55\)`
}

// writeRUnlockEarly ends its Lock with RUnlock after an early return: both skip Unlock.
func (c *cache) writeRUnlockEarly(k, v string) bool {
	c.mu.Lock()
	if c.m == nil {
		return false // want `return may skip c.mu.Unlock \(Lock at line 63\)`
	}
	c.m[k] = v
	c.mu.RUnlock()
	return true // want `return may skip c.mu.Unlock \(Lock at line 63\)`
}

// tryRead takes the read lock if it is free: TryRLock's release is RUnlock.
func (c *cache) tryRead(k string) (string, bool) {
	if !c.mu.TryRLock() {
		return "", false
	}
	v, ok := c.m[k]
	if !ok {
		return "", false // want `return may skip c.mu.RUnlock \(TryRLock at line 74\)`
	}
	c.mu.RUnlock()
	return v, true
}

// read and write end each lock with its own release.
func (c *cache) read(k string) string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.m[k]
}

func (c *cache) write(k, v string) {
	c.mu.Lock()
	c.m[k] = v
	c.mu.Unlock()
}

// upgrade ends its read lock and takes the write lock, each with its own release.
func (c *cache) upgrade(k, v string) {
	c.mu.RLock()
	_, ok := c.m[k]
	c.mu.RUnlock()
	if ok {
		return
	}
	c.mu.Lock()
	c.m[k] = v
	c.mu.Unlock()
}

// downgrade is entered holding the write lock, and ends it to take the read lock for its
// caller: the Unlock before the RLock ends the caller's lock, and says nothing of the RLock.
func (c *cache) downgrade() {
	c.mu.Unlock()
	c.mu.RLock()
}

// lockfile is a lock whose read mode has no release of its own (the lockfile of
// containers/storage): RLock is released by Unlock.
type lockfile struct{ mu sync.RWMutex }

func (l *lockfile) RLock()  { l.mu.RLock() }
func (l *lockfile) Lock()   { l.mu.Lock() }
func (l *lockfile) Unlock() {}

// readLockfile ends a lockfile's RLock with its Unlock, the only release its type has.
func readLockfile(l *lockfile, fail bool) error {
	l.RLock()
	if fail {
		l.Unlock()
		return nil
	}
	l.Unlock()
	return nil
}

// readLockfileEarly skips the lockfile's Unlock on one return.
func readLockfileEarly(l *lockfile, fail bool) error {
	l.RLock()
	if fail {
		return nil // want `return may skip l.Unlock \(RLock at line 139\)`
	}
	l.Unlock()
	return nil
}
