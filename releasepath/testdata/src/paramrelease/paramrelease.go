// Package paramrelease releases through the parameter of a function literal called where
// it is written.
package paramrelease

import (
	"os"
	"sync"
)

func step() error { return nil }

func deferredWithParam(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func(f *os.File) {
		f.Close()
	}(f)
	return step()
}

func calledWithParam(path string) error {
	x, err := os.Open(path)
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		func(f *os.File) { f.Close() }(x)
		return err
	}
	return x.Close()
}

// otherFile closes another file through the parameter: x stays open.
func otherFile(path string, y *os.File) error {
	x, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func(f *os.File) {
		f.Close()
	}(y)
	if err := step(); err != nil {
		return err // want `return may skip x.Close \(Open at line 37\)`
	}
	return x.Close()
}

type store struct {
	mu sync.Mutex
	n  int
}

// lockedRecovery defers the unlock through a parameter passed the receiver's root, under
// an ok flag cleared when it unlocks itself: every return is covered.
func (fs *store) lockedRecovery() error {
	fs.mu.Lock()
	unlocked := false
	defer func(fs *store) {
		if !unlocked {
			fs.mu.Unlock()
		}
	}(fs)
	if err := step(); err != nil {
		return err
	}
	fs.n++
	fs.mu.Unlock()
	unlocked = true
	return step()
}

// otherStore unlocks another store's lock through the parameter: fs.mu stays locked.
func (fs *store) otherStore(other *store) error {
	fs.mu.Lock()
	defer func(fs *store) {
		fs.mu.Unlock()
	}(other)
	if err := step(); err != nil {
		return err // want `return may skip fs.mu.Unlock \(Lock at line 76\)`
	}
	fs.mu.Unlock()
	return nil
}
