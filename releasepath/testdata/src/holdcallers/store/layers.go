package store

import "sync"

// Layers is containers/storage's layer store: writing takes two locks, the file lock of the
// store and the lock of this process, which StopWriting releases together.
type Layers struct {
	lockfile      sync.Mutex
	inProcessLock sync.RWMutex
	closed        bool
}

// startWritingWithReload returns nil holding both locks, an error without either: an ok
// flag releases them on every other return.
func (r *Layers) startWritingWithReload(reload bool) error {
	r.lockfile.Lock()
	r.inProcessLock.Lock()
	succeeded := false
	defer func() {
		if !succeeded {
			r.inProcessLock.Unlock()
			r.lockfile.Unlock()
		}
	}()
	if reload && r.closed {
		return ErrClosed
	}
	succeeded = true
	return nil
}

// StartWriting locks the store for writing: it returns what startWritingWithReload returns,
// holding the same locks.
func (r *Layers) StartWriting() error { // want StartWriting:`releases\(\) holds\(recv.lockfile:Lock recv.inProcessLock:Lock\)`
	return r.startWritingWithReload(true)
}

// StopWriting releases the locks StartWriting took.
func (r *Layers) StopWriting() { // want StopWriting:`releases\(recv.inProcessLock:Unlock recv.lockfile:Unlock\)`
	r.inProcessLock.Unlock()
	r.lockfile.Unlock()
}

// Reload locks and unlocks around its work: it holds nothing when it returns.
func (r *Layers) Reload() error {
	return r.reload(r)
}

func (r *Layers) reload(other *Layers) error {
	other.lockfile.Lock()
	defer other.lockfile.Unlock()
	return nil
}
