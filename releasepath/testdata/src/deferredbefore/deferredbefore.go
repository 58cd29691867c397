// Package deferredbefore drops and retakes a lock whose release was deferred at the top of
// the function: the deferred release ends the retaken lock too.
package deferredbefore

import "sync"

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
		return 0 // want `return may skip a.mu.Unlock \(Lock at line 35\)`
	}
	a.mu.Unlock()
	return 1
}
