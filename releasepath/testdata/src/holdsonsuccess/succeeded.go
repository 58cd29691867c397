package holdsonsuccess

// startWriting takes the lock for stopWriting: a deferred release under !succeeded gives it
// back on every error return, and succeeded = true keeps it where it returns nil.
func (c *cache) startWriting(reload bool) error {
	c.mu.Lock()
	succeeded := false
	defer func() {
		if !succeeded {
			c.mu.Unlock()
		}
	}()
	if reload {
		if err := c.check(); err != nil {
			return err
		}
	}
	succeeded = true
	return nil
}

// startWritingLate sets succeeded before a check that may fail: that error return keeps
// the lock and says failure, and breaks the contract.
func (c *cache) startWritingLate() error {
	c.mu.Lock()
	succeeded := false
	defer func() {
		if !succeeded {
			c.mu.Unlock()
		}
	}()
	if err := c.check(); err != nil {
		return err
	}
	succeeded = true
	if err := c.check(); err != nil {
		return err // want `return may skip c.mu.Unlock \(Lock at line 25\)`
	}
	return nil
}

// startWritingFast returns nil where the deferred release runs: a success that releases,
// so nil says nothing of the lock, and the return that keeps it is reported.
func (c *cache) startWritingFast(fast bool) error {
	c.mu.Lock()
	succeeded := false
	defer func() {
		if !succeeded {
			c.mu.Unlock()
		}
	}()
	if fast {
		return nil
	}
	succeeded = true
	return nil // want `return may skip c.mu.Unlock \(Lock at line 45\)`
}
