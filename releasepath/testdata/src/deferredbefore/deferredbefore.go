// Package deferredbefore drops and retakes a lock whose release was deferred at the top of
// the function: the deferred release ends the retaken lock too. A nil-guarded close deferred
// before the open closes what the open assigns.
package deferredbefore

import (
	"os"
	"sync"
)

type account struct {
	mu     sync.Mutex
	leaves []func()
	maps   map[string]string
}

func (a *account) addMapping(src, dst string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.maps[src] = dst
	if len(a.leaves) > 0 {
		a.mu.Unlock() // lock ordering: leaves before the account
		for _, l := range a.leaves {
			l()
		}
		a.mu.Lock()
	}
	return nil
}

// deferredInBranch defers the release only on one branch: that defer has not run on every
// path to the later Lock.
func (a *account) deferredInBranch(fast bool) int {
	if fast {
		a.mu.Lock()
		defer a.mu.Unlock()
		return len(a.maps)
	}
	a.mu.Lock()
	if a.maps == nil {
		return 0 // want `return may skip a.mu.Unlock \(Lock at line 39\)`
	}
	a.mu.Unlock()
	return 1
}

// closeAtEnd defers a nil-guarded close of f before it opens f: every return after the open
// closes it.
func closeAtEnd(path string, step func() error) (err error) {
	var f *os.File
	defer func() {
		if f != nil {
			f.Close()
		}
	}()
	f, err = os.Open(path)
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		return err
	}
	return nil
}

// closeAtEndInBranch defers the close only when verbose: the other path leaks.
func closeAtEndInBranch(path string, verbose bool, step func() error) (err error) {
	var f *os.File
	if verbose {
		defer func() {
			if f != nil {
				f.Close()
			}
		}()
	}
	f, err = os.Open(path)
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		return err // want `return may skip f.Close \(Open at line 76\)`
	}
	return f.Close()
}
