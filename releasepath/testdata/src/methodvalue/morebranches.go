package methodvalue

import "sync"

// More releases chosen in two branches: each path's variable is what its own branch and
// what came before left it.
type rtable struct {
	mu    sync.RWMutex
	other sync.RWMutex
	m     map[string]string
}

func (t *rtable) get(k string) (string, bool) {
	v, ok := t.m[k]
	return v, ok
}

// mirrored: the write release bound first and replaced in the read branch, the else.
func (t *rtable) mirrored(k string, read bool) (string, bool) {
	unlock := t.mu.Unlock
	if read {
		t.mu.RLock()
		unlock = t.mu.RUnlock
	} else {
		t.mu.Lock()
	}
	defer unlock()
	return t.get(k)
}

// replacedInElseDeferred: the replaced branch is the else, the release deferred.
func (t *rtable) replacedInElseDeferred(k string, write bool) (string, bool) {
	unlock := t.mu.RUnlock
	if write {
		t.mu.Lock()
		unlock = t.mu.Unlock
	} else {
		t.mu.RLock()
	}
	defer unlock()
	v, ok := t.get(k)
	if !ok {
		return "", false
	}
	return v, true
}

// assignedBeforeAcquisition: the write branch binds its release before it locks.
func (t *rtable) assignedBeforeAcquisition(k string, write bool) (string, bool) {
	unlock := t.mu.RUnlock
	if write {
		unlock = t.mu.Unlock
		t.mu.Lock()
	} else {
		t.mu.RLock()
	}
	defer unlock()
	return t.get(k)
}

// switched: a switch's cases are branches too.
func (t *rtable) switched(k string, write bool) (string, bool) {
	unlock := t.mu.RUnlock
	switch {
	case write:
		t.mu.Lock()
		unlock = t.mu.Unlock
	default:
		t.mu.RLock()
	}
	defer unlock()
	return t.get(k)
}

// elseIf: three branches, the first replaces, the other two read-lock.
func (t *rtable) elseIf(k string, write, fresh bool) (string, bool) {
	unlock := t.mu.RUnlock
	if write {
		t.mu.Lock()
		unlock = t.mu.Unlock
	} else if fresh {
		t.mu.RLock()
	} else {
		t.mu.RLock()
	}
	defer unlock()
	return t.get(k)
}

// otherBranchWrongValue: the branch without the write lock assigns something that releases
// nothing; the write lock's path still has the write release.
func (t *rtable) otherBranchWrongValue(k string, write bool) (string, bool) {
	unlock := t.mu.Unlock
	if write {
		t.mu.Lock()
	} else {
		unlock = func() {}
	}
	defer unlock()
	return t.get(k)
}

// nilThenChosen: no release before, the write branch binds its own; the read path locks
// nothing.
func (t *rtable) nilThenChosen(k string, write bool) (string, bool) {
	unlock := func() {}
	if write {
		t.mu.Lock()
		unlock = t.mu.Unlock
	}
	defer unlock()
	return t.get(k)
}

// nestedMaybe: the write branch binds the write release only when fresh; otherwise the
// variable still holds the read release, which releases nothing of the write lock.
func (t *rtable) nestedMaybe(k string, write, fresh bool) (string, bool) {
	unlock := t.mu.RUnlock
	if write {
		t.mu.Lock()
		if fresh {
			unlock = t.mu.Unlock
		}
	} else {
		t.mu.RLock()
	}
	defer unlock()
	return t.get(k) // want `return may skip t.mu.Unlock \(Lock at line 120\)`
}

// readBranchOtherMutex: the read branch binds another mutex's read release: its RLock is
// skipped.
func (t *rtable) readBranchOtherMutex(k string, write bool) (string, bool) {
	unlock := t.mu.RUnlock
	if write {
		t.mu.Lock()
		unlock = t.mu.Unlock
	} else {
		t.mu.RLock()
		unlock = t.other.RUnlock
	}
	defer unlock()
	return t.get(k) // want `return may skip t.mu.RUnlock \(RLock at line 139\)`
}

// writeBranchOtherTable: the write branch binds another table's release.
func (t *rtable) writeBranchOtherTable(u *rtable, k string, write bool) (string, bool) {
	unlock := t.mu.RUnlock
	if write {
		t.mu.Lock()
		if k == "" {
			t.mu.Unlock()
			return "", false
		}
		unlock = u.mu.Unlock
	} else {
		t.mu.RLock()
	}
	defer unlock()
	return t.get(k) // want `return may skip t.mu.Unlock \(Lock at line 150\)`
}

// replacedAfterTheIf: an assignment after the branches joins replaces both.
func (t *rtable) replacedAfterTheIf(k string, write bool) (string, bool) {
	unlock := t.mu.RUnlock
	if write {
		t.mu.Lock()
		unlock = t.mu.Unlock
	} else {
		t.mu.RLock()
	}
	unlock = func() {}
	defer unlock()
	return t.get(k) // want `return may skip t.mu.Unlock \(Lock at line 167\)` `return may skip t.mu.RUnlock \(RLock at line 170\)`
}

// calledOnEachReturn: not deferred, called on both returns.
func (t *rtable) calledOnEachReturn(k string, write bool) (string, bool) {
	unlock := t.mu.RUnlock
	if write {
		t.mu.Lock()
		unlock = t.mu.Unlock
	} else {
		t.mu.RLock()
	}
	v, ok := t.m[k]
	if !ok {
		unlock()
		return "", false
	}
	unlock()
	return v, true
}

// deferInBranch: each branch defers the variable it just chose.
func (t *rtable) deferInBranch(k string, write bool) (string, bool) {
	unlock := t.mu.RUnlock
	if write {
		t.mu.Lock()
		unlock = t.mu.Unlock
		defer unlock()
	} else {
		t.mu.RLock()
		defer unlock()
	}
	return t.get(k)
}

// declaredWithVar: var, then bound before the branches.
func (t *rtable) declaredWithVar(k string, write bool) (string, bool) {
	var unlock func()
	unlock = t.mu.RUnlock
	if write {
		t.mu.Lock()
		unlock = t.mu.Unlock
	} else {
		t.mu.RLock()
	}
	defer unlock()
	return t.get(k)
}

// boundInOtherBranchOnly: the read lock's path never binds a release, and the variable held
// nothing: the read lock is skipped.
func (t *rtable) boundInOtherBranchOnly(k string, write bool) (string, bool) {
	unlock := func() {}
	if write {
		t.mu.Lock()
		unlock = t.mu.Unlock
	} else {
		t.mu.RLock()
		if k == "" {
			t.mu.RUnlock()
			return "", false
		}
	}
	defer unlock()
	return t.get(k) // want `return may skip t.mu.RUnlock \(RLock at line 231\)`
}

// bothRead: the read lock taken in both branches, only one replaces the release with the
// write one: the path through it skips the RUnlock.
func (t *rtable) bothRead(k string, write bool) (string, bool) {
	unlock := t.mu.RUnlock
	if write {
		t.mu.RLock()
		unlock = t.mu.Unlock
	} else {
		t.mu.RLock()
	}
	defer unlock()
	return t.get(k) // want `return may skip t.mu.RUnlock \(RLock at line 246\)`
}

// replacedAfterLock: no branches; the variable is replaced after the lock, before the
// deferred call reads it.
func (t *rtable) replacedAfterLock(k string) (string, bool) {
	unlock := t.mu.Unlock
	t.mu.Lock()
	unlock = func() {}
	defer unlock()
	return t.get(k) // want `return may skip t.mu.Unlock \(Lock at line 259\)`
}

// readBranchOtherMutexCalled: readBranchOtherMutex with the release called, not deferred.
func (t *rtable) readBranchOtherMutexCalled(k string, write bool) string {
	unlock := t.mu.RUnlock
	if write {
		t.mu.Lock()
		unlock = t.mu.Unlock
	} else {
		t.mu.RLock()
		unlock = t.other.RUnlock
	}
	v := t.m[k]
	unlock()
	return v // want `return may skip t.mu.RUnlock \(RLock at line 272\)`
}

// boundInOtherBranchOnlyCalled: boundInOtherBranchOnly with the release called.
func (t *rtable) boundInOtherBranchOnlyCalled(k string, write bool) string {
	unlock := func() {}
	if write {
		t.mu.Lock()
		unlock = t.mu.Unlock
	} else {
		t.mu.RLock()
		if k == "" {
			t.mu.RUnlock()
			return ""
		}
	}
	v := t.m[k]
	unlock()
	return v // want `return may skip t.mu.RUnlock \(RLock at line 287\)`
}

// bothReadCalled: bothRead with the release called.
func (t *rtable) bothReadCalled(k string, write bool) string {
	unlock := t.mu.RUnlock
	if write {
		t.mu.RLock()
		unlock = t.mu.Unlock
	} else {
		t.mu.RLock()
	}
	v := t.m[k]
	unlock()
	return v // want `return may skip t.mu.RUnlock \(RLock at line 302\)`
}

// writeOnlyNoBranchRelease: one branch write-locks, binds nothing; the variable held the
// read release: the Lock is skipped.
func (t *rtable) writeOnlyNoBranchRelease(k string, write bool) (string, bool) {
	unlock := t.mu.RUnlock
	if write {
		t.mu.Lock()
		if k == "" {
			t.mu.Unlock()
			return "", false
		}
	} else {
		t.mu.RLock()
	}
	defer unlock()
	return t.get(k) // want `return may skip t.mu.Unlock \(Lock at line 317\)`
}

// replacedAfterLockCalled: replacedAfterLock with the release called.
func (t *rtable) replacedAfterLockCalled(k string) string {
	unlock := t.mu.Unlock
	t.mu.Lock()
	unlock = func() {}
	v := t.m[k]
	unlock()
	return v // want `return may skip t.mu.Unlock \(Lock at line 332\)`
}
