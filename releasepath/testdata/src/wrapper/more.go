package wrapper

import (
	"os"
	"sync"

	"wrapper/closers"
)

// sizeCloseIf defers a helper that closes f only under a condition: no release.
func sizeCloseIf(path string, verbose bool) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer closers.CloseIf(f, verbose)
	fi, err := f.Stat()
	if err != nil {
		return 0, err // want `return may skip f.Close \(Open at line 12\)`
	}
	return fi.Size(), nil // want `return may skip f.Close \(Open at line 12\)`
}

// sizeCloseUnlessSkip defers a helper that may return before it closes.
func sizeCloseUnlessSkip(path string, skip bool) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer closers.CloseUnlessSkip(f, skip)
	fi, err := f.Stat()
	if err != nil {
		return 0, err // want `return may skip f.Close \(Open at line 26\)`
	}
	return fi.Size(), nil // want `return may skip f.Close \(Open at line 26\)`
}

// sizeCloseNonNil defers a helper that closes under a nil guard: it closes the non-nil f.
func sizeCloseNonNil(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer closers.CloseNonNil(f)
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// sizeCloseDeferred: the helper's own defer closes f on its every return.
func sizeCloseDeferred(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer closers.CloseDeferred(f)
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// sizeCloseOnBothPaths: the helper closes f on each of its returns.
func sizeCloseOnBothPaths(path string, loud bool) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer closers.CloseOnBothPaths(f, loud)
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// sizeCloseFirstWrong passes f where the helper closes nothing.
func sizeCloseFirstWrong(path string, g *os.File) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer closers.CloseFirst(g, f)
	fi, err := f.Stat()
	if err != nil {
		return 0, err // want `return may skip f.Close \(Open at line 82\)`
	}
	return fi.Size(), nil // want `return may skip f.Close \(Open at line 82\)`
}

// sizeCloseSecond passes f where the helper closes it.
func sizeCloseSecond(path string, g *os.File) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer closers.CloseSecond(g, f)
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// sizeGeneric closes through a generic helper, its type argument inferred.
func sizeGeneric(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer closers.CloseGeneric(f)
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// sizeGenericExplicit closes through a generic helper instantiated explicitly.
func sizeGenericExplicit(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer closers.CloseGeneric[*os.File](f)
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// sizeReassigned hands f to a helper that closes another value it assigned its parameter.
func sizeReassigned(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer closers.CloseReassigned(f)
	fi, err := f.Stat()
	if err != nil {
		return 0, err // want `return may skip f.Close \(Open at line 138\)`
	}
	return fi.Size(), nil // want `return may skip f.Close \(Open at line 138\)`
}

// sizeViaHidden closes through an exported helper that calls an unexported one.
func sizeViaHidden(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer closers.CloseViaHidden(f)
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// sizeViaInner closes through a helper that calls a third package's helper.
func sizeViaInner(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer closers.CloseViaInner(f)
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// lockBounce calls a helper that locks and unlocks the mutex itself.
func lockBounce(mu *sync.Mutex, stop bool) int {
	mu.Lock()
	if stop {
		closers.Bounce(mu)
		return 1 // want `return may skip mu.Unlock \(Lock at line 180\)`
	}
	mu.Unlock()
	return 0
}

// lockYield calls a helper that unlocks and takes the mutex back.
func lockYield(mu *sync.Mutex, stop bool) int {
	mu.Lock()
	if stop {
		closers.Yield(mu)
		return 1 // want `return may skip mu.Unlock \(Lock at line 191\)`
	}
	mu.Unlock()
	return 0
}

// rlockRUnlockRW ends a read lock through another package's helper.
func rlockRUnlockRW(mu *sync.RWMutex, stop bool) int {
	mu.RLock()
	if stop {
		closers.RUnlockRW(mu)
		return 1
	}
	mu.RUnlock()
	return 0
}

// lockRUnlockRW read-unlocks a write lock through the helper: the other mode.
func lockRUnlockRW(mu *sync.RWMutex, stop bool) int {
	mu.Lock()
	if stop {
		closers.RUnlockRW(mu)
		return 1 // want `return may skip mu.Unlock \(Lock at line 213\)`
	}
	mu.Unlock()
	return 0
}

// tableUnlockTable unlocks a field path of the argument through the helper.
func tableUnlockTable(t *closers.Table, stop bool) int {
	t.Mu.Lock()
	if stop {
		closers.UnlockTable(t)
		return 1
	}
	t.Mu.Unlock()
	return 0
}

// tableUnlockOtherTable unlocks another table's lock.
func tableUnlockOtherTable(t, u *closers.Table, stop bool) int {
	t.Mu.Lock()
	if stop {
		closers.UnlockTable(u)
		return 1 // want `return may skip t.Mu.Unlock \(Lock at line 235\)`
	}
	t.Mu.Unlock()
	return 0
}

// methodValueBefore takes the helper as a method value before the lock and defers it.
func methodValueBefore(t *closers.Table) int {
	release := t.UnlockAndNotify
	t.Mu.Lock()
	defer release()
	return 1
}

// methodValueCalled takes the helper as a method value after the lock and calls it: the
// helper's method value releases when called, as the release's own method value
// (c.mu.Unlock) does.
func methodValueCalled(t *closers.Table, stop bool) int {
	t.Mu.Lock()
	release := t.UnlockAndNotify
	if stop {
		release()
		return 1
	}
	t.Mu.Unlock()
	return 0
}

// methodValueOther takes another table's helper as a method value.
func methodValueOther(t, u *closers.Table, stop bool) int {
	t.Mu.Lock()
	release := u.UnlockAndNotify
	if stop {
		release()
		return 1 // want `return may skip t.Mu.Unlock \(Lock at line 268\)`
	}
	t.Mu.Unlock()
	return 0
}

// lockUnlockByMethodValue: the helper releases through a method value it calls, which its
// summary does not read.
func lockUnlockByMethodValue(mu *sync.Mutex, stop bool) int {
	mu.Lock()
	if stop {
		closers.UnlockByMethodValue(mu)
		return 1 // want `return may skip mu.Unlock \(Lock at line 281\)`
	}
	mu.Unlock()
	return 0
}

// guardValue releases through a value receiver whose field points at the lock.
func guardValue(g closers.Guard, stop bool) int {
	g.Mu.Lock()
	if stop {
		g.Release()
		return 1
	}
	g.Mu.Unlock()
	return 0
}

// guardPointer calls the value-receiver method through a pointer.
func guardPointer(g *closers.Guard, stop bool) int {
	g.Mu.Lock()
	if stop {
		g.Release()
		return 1
	}
	g.Mu.Unlock()
	return 0
}

// guardOther releases another guard's lock.
func guardOther(g, h closers.Guard, stop bool) int {
	g.Mu.Lock()
	if stop {
		h.Release()
		return 1 // want `return may skip g.Mu.Unlock \(Lock at line 314\)`
	}
	g.Mu.Unlock()
	return 0
}

// lockedPromoted locks the embedded mutex through its promoted Lock; Done unlocks it.
func lockedPromoted(l *closers.Locked, stop bool) int {
	l.Lock()
	if stop {
		l.Done()
		return 1
	}
	l.Unlock()
	return 0
}

// lockedExplicit names the embedded field.
func lockedExplicit(l *closers.Locked, stop bool) int {
	l.Mutex.Lock()
	if stop {
		l.Done()
		return 1
	}
	l.Mutex.Unlock()
	return 0
}

// outerInner releases a lock two fields down through the receiver's helper.
func outerInner(o *closers.Outer, stop bool) int {
	o.Inner.Mu.Lock()
	if stop {
		o.UnlockInner()
		return 1
	}
	o.Inner.Mu.Unlock()
	return 0
}

// outerInnerVia releases it through a helper that calls the field's helper.
func outerInnerVia(o *closers.Outer, stop bool) int {
	o.Inner.Mu.Lock()
	if stop {
		o.UnlockInnerVia()
		return 1
	}
	o.Inner.Mu.Unlock()
	return 0
}

// outerOther releases another outer's inner lock.
func outerOther(o, p *closers.Outer, stop bool) int {
	o.Inner.Mu.Lock()
	if stop {
		p.UnlockInner()
		return 1 // want `return may skip o.Inner.Mu.Unlock \(Lock at line 369\)`
	}
	o.Inner.Mu.Unlock()
	return 0
}

// outerInnerByFieldHelper calls the field's own helper on the field.
func outerInnerByFieldHelper(o *closers.Outer, stop bool) int {
	o.Inner.Mu.Lock()
	if stop {
		o.Inner.UnlockAndNotify()
		return 1
	}
	o.Inner.Mu.Unlock()
	return 0
}

// tableValue locks a local table, a value: the pointer method takes its address.
func tableValue(stop bool) int {
	var tb closers.Table
	tb.Mu.Lock()
	if stop {
		tb.UnlockAndNotify()
		return 1
	}
	tb.Mu.Unlock()
	return 0
}

// wrapped embeds another package's table: the promoted helper releases w.Mu.
type wrapped struct {
	closers.Table
}

func (w *wrapped) promotedHelper(stop bool) int {
	w.Mu.Lock()
	if stop {
		w.UnlockAndNotify()
		return 1
	}
	w.Mu.Unlock()
	return 0
}

// tableUnlockIfCounted calls a helper that unlocks under a condition.
func tableUnlockIfCounted(t *closers.Table, stop bool) int {
	t.Mu.Lock()
	if stop {
		t.UnlockIfCounted()
		return 1 // want `return may skip t.Mu.Unlock \(Lock at line 418\)`
	}
	t.Mu.Unlock()
	return 0
}

// lockUnlockAll passes the lock in a slice to a helper that may unlock none.
func lockUnlockAll(mu *sync.Mutex, stop bool) int {
	mu.Lock()
	if stop {
		closers.UnlockAll([]*sync.Mutex{mu})
		return 1 // want `return may skip mu.Unlock \(Lock at line 429\)`
	}
	mu.Unlock()
	return 0
}

// lockUnlockLater passes the lock to a helper that unlocks it in a goroutine: handed on.
func lockUnlockLater(mu *sync.Mutex, stop bool) int {
	mu.Lock()
	if stop {
		closers.UnlockLater(mu)
		return 1
	}
	mu.Unlock()
	return 0
}

// helperOnlyEvidence releases the lock only through the helper, which is the evidence that
// it must: the early return leaks it.
func helperOnlyEvidence(t *closers.Table, stop bool) int {
	t.Mu.Lock()
	if stop {
		return 1 // want `return may skip t\.(Mu\.Unlock|UnlockAndNotify) \(Lock at line 452\)`
	}
	t.UnlockAndNotify()
	return 0
}

// sizeCloseAfterFlush defers a helper that returns the flush's error before it closes.
func sizeCloseAfterFlush(path string, flush func() error) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer closers.CloseAfterFlush(f, flush)
	fi, err := f.Stat()
	if err != nil {
		return 0, err // want `return may skip f.Close \(Open at line 462\)`
	}
	return fi.Size(), nil // want `return may skip f.Close \(Open at line 462\)`
}

// lockedPromotedExplicit locks through the promoted Lock; DoneExplicit unlocks l.Mutex.
func lockedPromotedExplicit(l *closers.Locked, stop bool) int {
	l.Lock()
	if stop {
		l.DoneExplicit()
		return 1
	}
	l.Unlock()
	return 0
}

// lockedExplicitExplicit names the field on both sides.
func lockedExplicitExplicit(l *closers.Locked, stop bool) int {
	l.Mutex.Lock()
	if stop {
		l.DoneExplicit()
		return 1
	}
	l.Mutex.Unlock()
	return 0
}

// tableUnlockCopy calls a value-receiver helper that unlocks a copy of t.Mu.
func tableUnlockCopy(t *closers.Table, stop bool) int {
	t.Mu.Lock()
	if stop {
		t.UnlockCopy()
		return 1 // want `return may skip t.Mu.Unlock \(Lock at line 498\)`
	}
	t.Mu.Unlock()
	return 0
}

// lockerGeneric releases through a method of an instantiated generic type.
func lockerGeneric(l *closers.Locker[int], stop bool) int {
	l.Mu.Lock()
	if stop {
		l.DoneGeneric()
		return 1
	}
	l.Mu.Unlock()
	return 0
}

// sizeDeferredClosure closes f through a helper that defers a closure closing it.
func sizeDeferredClosure(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer closers.CloseDeferredClosure(f)
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// methodValueBeforeCalled takes the helper as a method value before the lock and calls it
// on one path, with a plain Unlock on the other: both release.
func methodValueBeforeCalled(t *closers.Table, stop bool) int {
	release := t.UnlockAndNotify
	t.Mu.Lock()
	if stop {
		release()
		return 1
	}
	t.Mu.Unlock()
	return 0
}

// ltable is this package's own: the control for the method value of a helper.
type ltable struct {
	mu sync.Mutex
	n  int
}

func (t *ltable) unlockAndCount() {
	t.n++
	t.mu.Unlock()
}

// methodValueLocal takes this package's helper as a method value after the lock: called,
// it releases.
func methodValueLocal(t *ltable, stop bool) int {
	t.mu.Lock()
	release := t.unlockAndCount
	if stop {
		release()
		return 1
	}
	t.mu.Unlock()
	return 0
}

// sizeCloseIfTrue defers closers.CloseIf passed true: it closes f.
func sizeCloseIfTrue(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer closers.CloseIf(f, true)
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}
