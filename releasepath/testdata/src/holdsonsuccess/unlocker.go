package holdsonsuccess

import "sync"

type lockFile struct {
	rw    sync.RWMutex
	state sync.Mutex
	count int
}

func (l *lockFile) open() error { return nil }

// tryRLock keeps the read lock where it returns nil, and gives it back through unlocker,
// which holds its release, where it fails.
func (l *lockFile) tryRLock() error {
	if !l.rw.TryRLock() {
		return errNotFound
	}
	unlocker := l.rw.RUnlock
	l.state.Lock()
	defer l.state.Unlock()
	if l.count == 0 {
		if err := l.open(); err != nil {
			unlocker()
			return err
		}
	}
	l.count++
	return nil
}

// tryRLockSuccess gives it back through unlocker where it returns nil too: nil says nothing
// of the lock, and the return that keeps it is reported.
func (l *lockFile) tryRLockSuccess() error {
	if !l.rw.TryRLock() {
		return errNotFound
	}
	unlocker := l.rw.RUnlock
	if l.count == 0 {
		unlocker()
		return nil
	}
	l.count++
	return nil // want `return may skip l.rw.RUnlock \(TryRLock at line 35\)`
}
