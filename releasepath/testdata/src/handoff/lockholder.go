package handoff

import "sync"

type record struct {
	mu   sync.Mutex
	dead bool
}

type deleteRecord struct{ r *record }

func commit(rs []*deleteRecord) error { return nil }

// pruneLocked leaves the records it will delete locked, as buildkit's cache prune does: each
// goes into toDelete with its lock held, and the unlocks come when they are deleted.
func pruneLocked(records []*record) error {
	var toDelete []*deleteRecord
	for _, r := range records {
		r.mu.Lock()
		if r.dead {
			r.mu.Unlock()
			continue
		}
		toDelete = append(toDelete, &deleteRecord{r: r})
	}
	if err := commit(toDelete); err != nil {
		return err
	}
	for _, d := range toDelete {
		d.r.mu.Unlock()
	}
	return nil
}

// sendLocked sends the record on with its lock held.
func sendLocked(r *record, ch chan *record) error {
	r.mu.Lock()
	if r.dead {
		r.mu.Unlock()
		return nil
	}
	ch <- r
	return nil
}

// copyOnly copies the holder into a local and returns without the unlock: the local is the
// same record, and nothing took the lock.
func copyOnly(records []*record) error {
	for _, r := range records {
		r.mu.Lock()
		if r.dead {
			r.mu.Unlock()
			continue
		}
		x := r
		_ = x
		return step() // want `return may skip r.mu.Unlock \(Lock at line 50\)`
	}
	return nil
}

type holderSlot struct{ cur *record }

var stashed []*sync.Mutex

// copyThenStored stores a copy of the holder: the same record goes on locked.
func copyThenStored(r *record, reg *holderSlot) error {
	r.mu.Lock()
	if r.dead {
		r.mu.Unlock()
		return nil
	}
	x := r
	reg.cur = x
	return step()
}

// mutexStashed stores the mutex itself.
func mutexStashed(r *record) error {
	r.mu.Lock()
	if r.dead {
		r.mu.Unlock()
		return nil
	}
	stashed = append(stashed, &r.mu)
	return step()
}

// storedOnOnePath stores the record only when keep: the other path holds the lock.
func storedOnOnePath(r *record, reg *holderSlot, keep bool) error {
	r.mu.Lock()
	if r.dead {
		r.mu.Unlock()
		return nil
	}
	if keep {
		reg.cur = r
	}
	return step() // want `return may skip r.mu.Unlock \(Lock at line 91\)`
}

// sendLockedOrGiveUp sends the locked record in one case of a select: on the other case it
// is still locked.
func sendLockedOrGiveUp(r *record, ch chan *record, done <-chan struct{}) error {
	r.mu.Lock()
	if r.dead {
		r.mu.Unlock()
		return nil
	}
	select {
	case ch <- r:
		return nil
	case <-done:
		return step() // want `return may skip r.mu.Unlock \(Lock at line 105\)`
	}
}
