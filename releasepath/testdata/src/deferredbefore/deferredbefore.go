// Package deferredbefore drops and retakes a lock whose release was deferred at the top of
// the function: the deferred release ends the retaken lock too. A nil-guarded close deferred
// before the open closes what the open assigns.
package deferredbefore

import (
	"os"
	"sync"
	"syscall"
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
		return 0 // want `return may skip a.mu.Unlock \(Lock at line 40\)`
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
		return err // want `return may skip f.Close \(Open at line 77\)`
	}
	return f.Close()
}

// reopenDirect closes its descriptor and opens it again; the close deferred at the first
// open reads fd when it runs, and its guard fd != 0 is the handle's own, as f != nil is a
// file's: it closes the second descriptor at every return after it.
func reopenDirect(path string, buf []byte) error {
	fd, err := syscall.Open(path, syscall.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer func() {
		if fd != 0 {
			syscall.Close(fd)
		}
	}()
	if _, err := syscall.Write(fd, buf); err != nil {
		return err
	}
	err = syscall.Close(fd)
	fd = 0
	if err != nil {
		return err
	}
	fd, err = syscall.Open(path, syscall.O_RDONLY, 0)
	if err != nil {
		return err
	}
	if _, err := syscall.Read(fd, buf); err != nil {
		return err
	}
	return nil
}

// reopenWrongGuard closes only where fd is 0, which is not where it holds a descriptor.
func reopenWrongGuard(path string, buf []byte) error {
	var fd int
	defer func() {
		if fd == 0 {
			syscall.Close(fd)
		}
	}()
	fd, err := syscall.Open(path, syscall.O_RDONLY, 0)
	if err != nil {
		return err
	}
	if _, err := syscall.Read(fd, buf); err != nil {
		return err // want `return may skip syscall.Close \(Open at line 126\)`
	}
	return nil // want `return may skip syscall.Close \(Open at line 126\)`
}

// reopenAtLeastZero guards its deferred close by fd >= 0, for a descriptor that starts at -1.
func reopenAtLeastZero(path string, buf []byte) error {
	fd := -1
	defer func() {
		if fd >= 0 {
			syscall.Close(fd)
		}
	}()
	fd, err := syscall.Open(path, syscall.O_RDONLY, 0)
	if err != nil {
		return err
	}
	if _, err := syscall.Read(fd, buf); err != nil {
		return err
	}
	return nil
}
