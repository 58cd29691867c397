package holdcallers

import (
	"errors"
	"sync"

	"holdcallers/store"
)

var errMissing = errors.New("missing")

// layers takes two locks for writing, as containers/storage's layer store does.
type layers struct {
	lockfile      sync.Mutex
	inProcessLock sync.RWMutex
	ids           map[string]bool
}

func (r *layers) startWritingWithReload(reload bool) error {
	r.lockfile.Lock()
	r.inProcessLock.Lock()
	succeeded := false
	defer func() {
		if !succeeded {
			r.inProcessLock.Unlock()
			r.lockfile.Unlock()
		}
	}()
	if reload && r.ids == nil {
		return errStale
	}
	succeeded = true
	return nil
}

func (r *layers) startWriting() error { return r.startWritingWithReload(true) }

func (r *layers) stopWriting() {
	r.inProcessLock.Unlock()
	r.lockfile.Unlock()
}

// create stops writing on every return: nothing to report.
func create(r *layers, id string) error {
	if err := r.startWriting(); err != nil {
		return err
	}
	defer r.stopWriting()
	if r.ids[id] {
		return errMissing
	}
	r.ids[id] = true
	return nil
}

// remove forgets both locks where the layer is missing.
func remove(r *layers, id string) error {
	if err := r.startWriting(); err != nil {
		return err
	}
	if !r.ids[id] {
		return errMissing // want `return may skip r.stopWriting \(startWriting at line 58\)`
	}
	delete(r.ids, id)
	r.stopWriting()
	return nil
}

// removeImported forgets the imported store's locks in the same way: the facts carry both.
func removeImported(r *store.Layers, missing bool) error {
	if err := r.StartWriting(); err != nil {
		return err
	}
	if missing {
		return errMissing // want `return may skip r.StopWriting \(StartWriting at line 71\)`
	}
	r.StopWriting()
	return nil
}

// reloadImported calls a method that holds nothing when it returns.
func reloadImported(r *store.Layers) error {
	if err := r.Reload(); err != nil {
		return err
	}
	return errMissing
}

// halfStop releases only the file lock where the id is empty: the lock of the process is
// still held there.
func halfStop(r *layers, id string) error {
	if err := r.startWriting(); err != nil {
		return err
	}
	if id == "" {
		r.lockfile.Unlock()
		return errMissing // want `return may skip r.stopWriting \(startWriting at line 92\)`
	}
	r.stopWriting()
	return nil
}

// startLeaky never releases the file lock, not even where it fails: no contract says what
// its callers hold, and it has no summary.
func (r *layers) startLeaky() error {
	r.lockfile.Lock()
	r.inProcessLock.Lock()
	if r.ids == nil {
		r.inProcessLock.Unlock()
		return errStale
	}
	return nil
}

func leakyCaller(r *layers, id string) error {
	if err := r.startLeaky(); err != nil {
		return err
	}
	if id == "" {
		return errMissing
	}
	r.stopWriting()
	return nil
}
