package holdsonsuccess

// getOrRelease unlocks on a failure and on one success, and keeps the lock on another
// success: a release leads to a success, so the holding success return is reported.
func (c *cache) getOrRelease(k string) (*entry, error) {
	c.mu.Lock()
	e, ok := c.m[k]
	if !ok {
		c.mu.Unlock()
		return nil, errNotFound
	}
	if e.n == 0 {
		c.mu.Unlock()
		return e, nil
	}
	return e, nil // want `return may skip c.mu.Unlock \(Lock at line 6\)`
}

// tryLockInverted keeps the lock where it returns false: true says it holds, as TryLock's.
func (c *cache) tryLockInverted() bool {
	c.mu.Lock()
	if c.busy {
		c.mu.Unlock()
		return true
	}
	return false // want `return may skip c.mu.Unlock \(Lock at line 21\)`
}

// tryLockInvertedBroken releases where it returns true and keeps the lock on one true too.
func (c *cache) tryLockInvertedBroken() bool {
	c.mu.Lock()
	if c.busy {
		c.mu.Unlock()
		return true
	}
	if c.closed {
		return true // want `return may skip c.mu.Unlock \(Lock at line 31\)`
	}
	return false // want `return may skip c.mu.Unlock \(Lock at line 31\)`
}

// tryLockBoth releases on both constants: the bool says nothing.
func (c *cache) tryLockBoth() bool {
	c.mu.Lock()
	if c.busy {
		c.mu.Unlock()
		return true
	}
	if c.closed {
		c.mu.Unlock()
		return false
	}
	return true // want `return may skip c.mu.Unlock \(Lock at line 44\)`
}

// holdFailureBool keeps the lock on a false that the releases return too.
func (c *cache) holdFailureBool() bool {
	c.mu.Lock()
	if c.busy {
		c.mu.Unlock()
		return false
	}
	if c.closed {
		return false // want `return may skip c.mu.Unlock \(Lock at line 58\)`
	}
	return true
}

// releaseThenBranch releases, and the release leads to a failure and a success in different
// branches: the holding success return is reported.
func (c *cache) releaseThenBranch(k string) (*entry, error) {
	c.mu.Lock()
	e, ok := c.m[k]
	if c.busy {
		c.mu.Unlock()
	}
	if !ok {
		return nil, errNotFound // want `return may skip c.mu.Unlock \(Lock at line 72\)`
	}
	return e, nil // want `return may skip c.mu.Unlock \(Lock at line 72\)`
}

// releaseThenTwoFailures releases before two failure returns in different branches, and
// keeps the lock on its success.
func (c *cache) releaseThenTwoFailures(k string) (*entry, error) {
	c.mu.Lock()
	e, ok := c.m[k]
	if !ok || c.busy {
		c.mu.Unlock()
		if c.busy {
			return nil, errNotFound
		}
		return nil, c.check()
	}
	return e, nil
}

// releaseUnderErr releases under err != nil and returns it.
func (c *cache) releaseUnderErr(k string) (*entry, error) {
	c.mu.Lock()
	if err := c.check(); err != nil {
		c.mu.Unlock()
		return nil, err
	}
	return c.m[k], nil
}

// nilEntryNilError keeps the lock with a nil entry and a nil error: the error says success.
func (c *cache) nilEntryNilError(k string) (*entry, error) {
	c.mu.Lock()
	e, ok := c.m[k]
	if !ok {
		c.mu.Unlock()
		return e, errNotFound
	}
	if e.n == 0 {
		return nil, nil
	}
	return e, nil
}

// tryWithError returns false, nil unlocked and true, nil locked: its error is nil either way
// and says nothing, and the bool says what it holds.
func (c *cache) tryWithError() (bool, error) {
	c.mu.Lock()
	if c.busy {
		c.mu.Unlock()
		return false, nil
	}
	return true, nil
}

// literal: a function literal is a function of its own, with the same contract.
func (c *cache) literal() bool {
	try := func() bool {
		c.mu.Lock()
		if c.busy {
			c.mu.Unlock()
			return false
		}
		return true
	}
	return try()
}

// literalBroken: a literal that releases on a success.
func (c *cache) literalBroken() int {
	get := func() int {
		c.mu.Lock()
		if c.busy {
			c.mu.Unlock()
			return 1
		}
		return 2 // want `return may skip c.mu.Unlock \(Lock at line 149\)`
	}
	return get()
}
