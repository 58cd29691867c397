// Package receiverfield unlocks through a method of the same package that unlocks a field of
// its receiver, or of its argument: the caller holds t.mu, and the helper unlocks it.
package receiverfield

import "sync"

func step() error { return nil }

func notify() {}

type table struct {
	mu    sync.RWMutex
	other sync.Mutex
	inner struct{ mu sync.Mutex }
	n     int
}

// unlockAndNotify must be called with t.mu held; it unlocks it.
func (t *table) unlockAndNotify() {
	t.mu.Unlock()
	notify()
}

func (t *table) unlockOther() { t.other.Unlock() }

func (t *table) runlock() { t.mu.RUnlock() }

// unlockInner unlocks through another helper, on a field of its own.
func (t *table) unlockInner() { t.innerUnlock() }

func (t *table) innerUnlock() { t.inner.mu.Unlock() }

func unlockTable(t *table) { t.mu.Unlock() }

func (t *table) update() error {
	t.mu.Lock()
	if err := step(); err != nil {
		t.unlockAndNotify()
		return err
	}
	t.n++
	t.mu.Unlock()
	return nil
}

func (t *table) deferred() error {
	t.mu.Lock()
	defer t.unlockAndNotify()
	if err := step(); err != nil {
		return err
	}
	t.n++
	return nil
}

func (t *table) byArgument() error {
	t.mu.Lock()
	if err := step(); err != nil {
		unlockTable(t)
		return err
	}
	t.mu.Unlock()
	return nil
}

func (t *table) nested() error {
	t.inner.mu.Lock()
	if err := step(); err != nil {
		t.unlockInner()
		return err
	}
	t.inner.mu.Unlock()
	return nil
}

// otherTable unlocks another table's lock: t.mu stays held.
func (t *table) otherTable(u *table) error {
	t.mu.Lock()
	if err := step(); err != nil {
		u.unlockAndNotify()
		return err // want `return may skip t.mu.Unlock \(Lock at line 78\)`
	}
	t.mu.Unlock()
	return nil
}

// otherField unlocks another lock of t.
func (t *table) otherField() error {
	t.mu.Lock()
	if err := step(); err != nil {
		t.unlockOther()
		return err // want `return may skip t.mu.Unlock \(Lock at line 89\)`
	}
	t.mu.Unlock()
	return nil
}

// otherMode read-unlocks a write lock.
func (t *table) otherMode() error {
	t.mu.Lock()
	if err := step(); err != nil {
		t.runlock()
		return err // want `return may skip t.mu.Unlock \(Lock at line 100\)`
	}
	t.mu.Unlock()
	return nil
}

// bump takes and releases t.mu itself: it releases nothing its caller holds.
func (t *table) bump() {
	t.mu.Lock()
	t.n++
	t.mu.Unlock()
}

func (t *table) balancedHelper() error {
	t.mu.Lock()
	defer t.bump()
	if err := step(); err != nil {
		return err // want `return may skip t.mu.Unlock \(Lock at line 117\)`
	}
	t.mu.Unlock()
	return nil
}
