package methodvalue

import "sync"

// The release chosen in the branch of its acquisition: on each path the variable holds the
// release of the lock that path took.
type table struct {
	mu sync.RWMutex
	m  map[string]string
}

func (t *table) chosenInBranches(k string, write bool) (string, bool) {
	var unlock func()
	if write {
		t.mu.Lock()
		unlock = t.mu.Unlock
	} else {
		t.mu.RLock()
		unlock = t.mu.RUnlock
	}
	defer unlock()
	v, ok := t.m[k]
	if !ok {
		return "", false
	}
	return v, true
}

// The read release bound first and replaced in the write branch only: the else branch's
// RLock still has it.
func (t *table) replacedInOtherBranch(k string, write bool) (string, bool) {
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

// Either lock is skipped on the early return.
func (t *table) skippedInBoth(k string, write bool) (string, bool) {
	unlock := t.mu.RUnlock
	if write {
		t.mu.Lock()
		unlock = t.mu.Unlock
	} else {
		t.mu.RLock()
	}
	v, ok := t.m[k]
	if !ok {
		return "", false // want `return may skip t.mu.Unlock \(Lock at line 52\)` `return may skip t.mu.RUnlock \(RLock at line 55\)`
	}
	unlock()
	return v, true
}

// Replaced before the read lock on a path that reaches it: the value may be the write
// release, which releases nothing of the read lock.
func (t *table) maybeReplacedBefore(k string, write bool) (string, bool) {
	unlock := t.mu.RUnlock
	if write {
		unlock = t.mu.Unlock
	}
	t.mu.RLock()
	v, ok := t.m[k]
	if !ok {
		unlock()
		return "", false // want `return may skip t.mu.RUnlock \(RLock at line 72\)`
	}
	t.mu.RUnlock()
	return v, true
}
