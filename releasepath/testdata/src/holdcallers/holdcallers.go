// Package holdcallers calls functions that return holding a lock of what they are passed
// where a result says success: the caller carries the obligation, and releases the lock on
// every return after that success.
package holdcallers

import (
	"errors"
	"sync"
)

var (
	errBusy   = errors.New("busy")
	errClosed = errors.New("closed")
	errStale  = errors.New("stale")
)

type entry struct{ stale bool }

type table struct {
	mu     sync.Mutex
	m      map[string]*entry
	closed bool
}

// tryLock keeps t.mu when it returns true.
func (t *table) tryLock() bool {
	if !t.mu.TryLock() {
		return false
	}
	if t.closed {
		t.mu.Unlock()
		return false
	}
	return true
}

// lookup returns the entry with t.mu held, or nil with it released.
func (t *table) lookup(k string) *entry {
	t.mu.Lock()
	e := t.m[k]
	if e == nil {
		t.mu.Unlock()
		return nil
	}
	return e
}

// beginUpdate returns nil holding t.mu, for the caller's endUpdate.
func (t *table) beginUpdate() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return errClosed
	}
	return nil
}

// lockTable keeps its argument's lock when it returns true.
func lockTable(t *table) bool {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return false
	}
	return true
}

func refresh(t *table, k string) error {
	if !t.tryLock() {
		return errBusy
	}
	if t.m[k] == nil {
		return errStale // want `return may skip t.mu.Unlock \(tryLock at line 69\)`
	}
	t.mu.Unlock()
	return nil
}

func get(t *table, k string) (bool, error) {
	e := t.lookup(k)
	if e == nil {
		return false, nil
	}
	if e.stale {
		return false, errStale // want `return may skip t.mu.Unlock \(lookup at line 80\)`
	}
	t.mu.Unlock()
	return true, nil
}

func update(t *table, k string) error {
	if err := t.beginUpdate(); err != nil {
		return err
	}
	if k == "" {
		return errStale // want `return may skip t.mu.Unlock \(beginUpdate at line 92\)`
	}
	t.m[k] = &entry{}
	t.mu.Unlock()
	return nil
}

func drop(t *table, k string) error {
	if !lockTable(t) {
		return errClosed
	}
	if k == "" {
		return errStale // want `return may skip t.mu.Unlock \(lockTable at line 104\)`
	}
	delete(t.m, k)
	t.mu.Unlock()
	return nil
}

// deferred releases at once: nothing to report.
func deferred(t *table, k string) error {
	if !t.tryLock() {
		return errBusy
	}
	defer t.mu.Unlock()
	if t.m[k] == nil {
		return errStale
	}
	return nil
}

// forward returns the entry still locked, for its own caller: the lock goes with the entry's
// contract, and nothing here releases it, so nothing says it must.
func forward(t *table, k string) *entry {
	return t.lookup(k)
}

// other releases another table's lock: no evidence for t's.
func other(t, u *table, k string) error {
	if !t.tryLock() {
		return errBusy
	}
	if k == "" {
		u.mu.Unlock()
		return errStale
	}
	return nil
}

// plain calls a function that releases on every path: it holds nothing after the call.
func (t *table) size() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.m)
}

func count(t *table) int {
	n := t.size()
	t.mu.Lock()
	t.mu.Unlock()
	return n
}

type pair struct {
	mu    sync.Mutex
	other sync.Mutex
}

// lockPair keeps p.mu when it returns true.
func lockPair(p *pair, closed bool) bool {
	p.mu.Lock()
	if closed {
		p.mu.Unlock()
		return false
	}
	return true
}

// otherField unlocks another field of the argument on one path: that releases nothing of
// p.mu.
func otherField(p *pair, k string) error {
	if !lockPair(p, false) {
		return errBusy
	}
	if k == "" {
		p.other.Unlock()
		return errStale // want `return may skip p.mu.Unlock \(lockPair at line 177\)`
	}
	p.mu.Unlock()
	return nil
}

var pending []*pair

// handsOn leaves the pair locked for whoever takes it from pending, as storing the holder
// of a lock the function took itself would.
func handsOn(p *pair, k string) error {
	if !lockPair(p, false) {
		return errBusy
	}
	if k == "" {
		pending = append(pending, p)
		return nil
	}
	p.mu.Unlock()
	return nil
}

// tryNamed keeps t.mu where its named result, returned bare, is true.
func (t *table) tryNamed() (ok bool) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return
	}
	ok = true
	return
}

func refreshNamed(t *table, k string) error {
	if !t.tryNamed() {
		return errBusy
	}
	if t.m[k] == nil {
		return errStale // want `return may skip t.mu.Unlock \(tryNamed at line 216\)`
	}
	t.mu.Unlock()
	return nil
}
