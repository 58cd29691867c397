package receiverfield

import (
	"runtime"
	"sync"
)

type node struct {
	mu      sync.Mutex
	parent  *node
	verbose bool
	n       int
}

func (t *node) unlock() { t.mu.Unlock() }

// unlockParent unlocks the parent's lock, not its own.
func (t *node) unlockParent() { t.parent.mu.Unlock() }

// unlockParentVia unlocks the parent's lock through the parent's helper.
func (t *node) unlockParentVia() { t.parent.unlock() }

// unlockArg unlocks its argument's lock.
func (t *node) unlockArg(u *node) { u.mu.Unlock() }

// three levels down to t.mu.Unlock.
func (t *node) release1() { t.release2() }
func (t *node) release2() { t.release3() }
func (t *node) release3() { t.mu.Unlock() }

// unlockMu and unlockViaField: a helper that passes its field to a wrapper.
func unlockMu(m *sync.Mutex)    { m.Unlock() }
func (t *node) unlockViaField() { unlockMu(&t.mu) }

// maybeUnlock unlocks only when verbose.
func (t *node) maybeUnlock() {
	if t.verbose {
		t.mu.Unlock()
	}
}

// yield drops and retakes the lock: its caller still holds it after the call.
func (t *node) yield() {
	t.mu.Unlock()
	runtime.Gosched()
	t.mu.Lock()
}

func (t *node) parentUnlockOnChild() error {
	t.mu.Lock()
	if err := step(); err != nil {
		t.unlockParent()
		return err // want `return may skip t.mu.Unlock \(Lock at line 50\)`
	}
	t.mu.Unlock()
	return nil
}

func (t *node) parentUnlockOnParent() error {
	t.parent.mu.Lock()
	if err := step(); err != nil {
		t.unlockParent()
		return err
	}
	t.parent.mu.Unlock()
	return nil
}

func (t *node) parentViaOnChild() error {
	t.mu.Lock()
	if err := step(); err != nil {
		t.unlockParentVia()
		return err // want `return may skip t.mu.Unlock \(Lock at line 70\)`
	}
	t.mu.Unlock()
	return nil
}

func (t *node) parentViaOnParent() error {
	t.parent.mu.Lock()
	if err := step(); err != nil {
		t.unlockParentVia()
		return err
	}
	t.parent.mu.Unlock()
	return nil
}

func (t *node) argSelf() error {
	t.mu.Lock()
	if err := step(); err != nil {
		t.unlockArg(t)
		return err
	}
	t.mu.Unlock()
	return nil
}

func (t *node) argOther(u *node) error {
	t.mu.Lock()
	if err := step(); err != nil {
		t.unlockArg(u)
		return err // want `return may skip t.mu.Unlock \(Lock at line 100\)`
	}
	t.mu.Unlock()
	return nil
}

func (t *node) threeLevels() error {
	t.mu.Lock()
	if err := step(); err != nil {
		t.release1()
		return err
	}
	t.mu.Unlock()
	return nil
}

func (t *node) threeLevelsOther(u *node) error {
	t.mu.Lock()
	if err := step(); err != nil {
		u.release1()
		return err // want `return may skip t.mu.Unlock \(Lock at line 120\)`
	}
	t.mu.Unlock()
	return nil
}

func (t *node) viaField() error {
	t.mu.Lock()
	if err := step(); err != nil {
		t.unlockViaField()
		return err
	}
	t.mu.Unlock()
	return nil
}

func (t *node) childHelper() error {
	t.mu.Lock()
	if err := step(); err != nil {
		t.parent.unlock()
		return err // want `return may skip t.mu.Unlock \(Lock at line 140\)`
	}
	t.mu.Unlock()
	return nil
}

// conditional: maybeUnlock may leave t.mu held (the doc does not say).
func (t *node) conditional() error {
	t.mu.Lock()
	if err := step(); err != nil {
		t.maybeUnlock()
		return err // want `return may skip t.mu.Unlock \(Lock at line 151\)`
	}
	t.mu.Unlock()
	return nil
}

// yielded: yield releases and retakes t.mu, so t.mu is still held at the return.
func (t *node) yielded() error {
	t.mu.Lock()
	if err := step(); err != nil {
		t.yield()
		return err // want `return may skip t.mu.Unlock \(Lock at line 162\)`
	}
	t.mu.Unlock()
	return nil
}

// readMode: runlock releases a read lock.
func (t *table) readMode() int {
	t.mu.RLock()
	if err := step(); err != nil {
		t.runlock()
		return 0
	}
	n := t.n
	t.mu.RUnlock()
	return n
}

// embedded: unlockAndNotify promoted from the embedded table releases o.mu, which is
// o.table.mu.
type outer struct {
	table
}

func (o *outer) embedded() error {
	o.mu.Lock()
	if err := step(); err != nil {
		o.unlockAndNotify()
		return err
	}
	o.mu.Unlock()
	return nil
}

// innerOf: a function releasing a field path of its argument.
func unlockInnerOf(t *table) { t.inner.mu.Unlock() }

func (t *table) innerByArg() error {
	t.inner.mu.Lock()
	if err := step(); err != nil {
		unlockInnerOf(t)
		return err
	}
	t.inner.mu.Unlock()
	return nil
}

func (t *table) innerByArgWrongField() error {
	t.mu.Lock()
	if err := step(); err != nil {
		unlockInnerOf(t)
		return err // want `return may skip t.mu.Unlock \(Lock at line 213\)`
	}
	t.mu.Unlock()
	return nil
}
