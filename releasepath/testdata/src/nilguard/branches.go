package nilguard

import (
	"errors"
	"sync"
)

var errBusy = errors.New("busy")

type rwFile struct {
	rw    sync.RWMutex
	count int
}

// tryLock binds success in one branch to TryRLock and in the other to TryLock: the other
// branch's assignment never runs with this acquisition, so false still says nothing is held.
func (l *rwFile) tryLock(read bool) error {
	var success bool
	if read {
		success = l.rw.TryRLock()
	} else {
		success = l.rw.TryLock()
	}
	if !success {
		return errBusy
	}
	l.count++
	if read {
		l.rw.RUnlock()
	} else {
		l.rw.Unlock()
	}
	return nil
}

// tryLockAgain assigns success again after the branch, on the acquisition's path: false
// may then follow a TryRLock that held.
func (l *rwFile) tryLockAgain(read bool) error {
	var success bool
	if read {
		success = l.rw.TryRLock()
	} else {
		success = l.rw.TryLock()
	}
	success = success && l.count < 10
	if !success {
		return errBusy // want `return may skip l.rw.RUnlock \(TryRLock at line 41\)` `return may skip l.rw.Unlock \(TryLock at line 43\)`
	}
	if read {
		l.rw.RUnlock()
	} else {
		l.rw.Unlock()
	}
	return nil
}

type two struct{ a, b sync.Mutex }

// loopTestAfter assigns the guard in exclusive branches of a loop and tests it after: a
// later iteration's other branch assigns it after this one's, so false says nothing.
func (l *two) loopTestAfter(modes []bool) error {
	var ok bool
	for _, read := range modes {
		if read {
			ok = l.a.TryLock()
		} else {
			ok = false
		}
	}
	if !ok {
		return errBusy // want `return may skip l.a.Unlock \(TryLock at line 65\)`
	}
	l.a.Unlock()
	return nil
}

// inLoop declares the guard inside the loop body: each iteration's is its own.
func (l *rwFile) inLoop(modes []bool) error {
	for _, read := range modes {
		var ok bool
		if read {
			ok = l.rw.TryRLock()
		} else {
			ok = l.rw.TryLock()
		}
		if !ok {
			return errBusy
		}
		if read {
			l.rw.RUnlock()
		} else {
			l.rw.Unlock()
		}
	}
	return nil
}
