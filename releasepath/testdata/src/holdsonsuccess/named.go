package holdsonsuccess

// tryNamed returns its named result bare: false, its zero value, where it unlocks, and true,
// as last assigned, where it keeps the lock.
func (c *cache) tryNamed() (ok bool) {
	c.mu.Lock()
	if c.busy {
		c.mu.Unlock()
		return
	}
	ok = true
	return
}

// lookupNamed keeps the lock where the entry it returns bare is not nil.
func (c *cache) lookupNamed(k string) (e *entry, err error) {
	c.mu.Lock()
	e = c.m[k]
	if e == nil {
		c.mu.Unlock()
		err = errNotFound
		return
	}
	return
}

// tryNamedSetTrueFirst unlocks after setting true: the release says success, so the
// holding return is reported.
func (c *cache) tryNamedSetTrueFirst() (ok bool) {
	c.mu.Lock()
	ok = true
	if c.busy {
		c.mu.Unlock()
		return
	}
	return // want `return may skip c.mu.Unlock \(Lock at line 30\)`
}

// tryNamedBranch sets the result in a branch before the return: what it returns there is
// not known, so every holding return is reported.
func (c *cache) tryNamedBranch() (ok bool) {
	c.mu.Lock()
	if c.busy {
		c.mu.Unlock()
		return
	}
	if !c.closed {
		ok = true
	}
	return // want `return may skip c.mu.Unlock \(Lock at line 42\)`
}

// tryNamedDeferred has a deferred literal that assigns the result: no return says what it
// returns.
func (c *cache) tryNamedDeferred() (ok bool) {
	defer func() { ok = ok && !c.closed }()
	c.mu.Lock()
	if c.busy {
		c.mu.Unlock()
		return
	}
	ok = true
	return // want `return may skip c.mu.Unlock \(Lock at line 57\)`
}

// tryNamedLoop returns from inside a loop whose later statement assigns the result: an
// earlier iteration may have set it.
func (c *cache) tryNamedLoop(n int) (ok bool) {
	c.mu.Lock()
	for i := 0; i < n; i++ {
		if c.busy {
			c.mu.Unlock()
			return
		}
		ok = true
	}
	return // want `return may skip c.mu.Unlock \(Lock at line 69\)`
}

// tryNamedInit sets the result in an if's init: not read, so the holding return is reported.
func (c *cache) tryNamedInit() (ok bool) {
	c.mu.Lock()
	if ok = c.busy; ok {
		c.mu.Unlock()
		ok = false
		return
	}
	ok = true
	return
}

// tryNamedSwitch returns bare in a case: the clauses before it did not run.
func (c *cache) tryNamedSwitch(n int) (ok bool) {
	c.mu.Lock()
	switch n {
	case 0:
		ok = true
	case 1:
		c.mu.Unlock()
		return
	}
	return // want `return may skip c.mu.Unlock \(Lock at line 94\)`
}

// lookupNilEdge returns its named entry bare on the entry's own nil edge: nil, unlocked.
func (c *cache) lookupNilEdge(k string) (e *entry) {
	c.mu.Lock()
	e = c.m[k]
	if e == nil {
		c.mu.Unlock()
		return
	}
	return
}

// lookupNilEdgeExplicit returns the entry by name on its nil edge.
func (c *cache) lookupNilEdgeExplicit(k string) *entry {
	c.mu.Lock()
	e := c.m[k]
	if e == nil {
		c.mu.Unlock()
		return e
	}
	return e
}

// tryNamedFlag's named result is the flag of its deferred release: return false runs the
// unlock, return true keeps the lock for the caller.
func (c *cache) tryNamedFlag() (ok bool) {
	c.mu.Lock()
	defer func() {
		if !ok {
			c.mu.Unlock()
		}
	}()
	if c.busy {
		return false
	}
	return true
}

// tryNamedFlagBare sets it before bare returns.
func (c *cache) tryNamedFlagBare() (ok bool) {
	c.mu.Lock()
	defer func() {
		if !ok {
			c.mu.Unlock()
		}
	}()
	if c.busy {
		ok = false
		return
	}
	ok = true
	return
}

func peekFlag(b *bool) bool { return *b }

// tryNamedFlagTaken takes the named result's address after its false return: that return
// still releases, and return true, which sets the result itself, keeps the lock.
func (c *cache) tryNamedFlagTaken() (ok bool) {
	c.mu.Lock()
	defer func() {
		if !ok {
			c.mu.Unlock()
		}
	}()
	if c.busy {
		return false
	}
	_ = peekFlag(&ok)
	return true
}
