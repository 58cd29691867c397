package deferguard

import (
	"os"
	"sync"
)

// snowball closes its temporary file by a once deferred at the open, and its reader closes
// it by the same once before it opens the file again (minio-go's PutObjectsSnowball):
// whichever Do runs first closes f, and every return after the defer has.
func snowball(dir string, parts [][]byte) error {
	f, err := os.CreateTemp(dir, "snowball-*")
	if err != nil {
		return err
	}
	var once sync.Once
	defer once.Do(func() {
		f.Close()
	})
	reopen := func() (*os.File, error) {
		once.Do(func() {
			f.Close()
		})
		return os.Open(f.Name())
	}
	for _, p := range parts {
		if _, err := f.Write(p); err != nil {
			return err
		}
	}
	r, err := reopen()
	if err != nil {
		return err
	}
	return r.Close()
}

// onceOther defers a close by a once that another Do of the function may have spent on
// something else: the deferred literal may never run.
func onceOther(dir string, parts [][]byte) error {
	f, err := os.CreateTemp(dir, "snowball-*")
	if err != nil {
		return err
	}
	var once sync.Once
	defer once.Do(func() {
		f.Close()
	})
	if len(parts) == 0 {
		once.Do(func() {})
		return nil // want `return may skip f.Close \(CreateTemp at line 41\)`
	}
	for _, p := range parts {
		if _, err := f.Write(p); err != nil {
			return err // want `return may skip f.Close \(CreateTemp at line 41\)`
		}
	}
	return nil // want `return may skip f.Close \(CreateTemp at line 41\)`
}

// onceSecondConditional gives the once a Do that closes only when verbose: where that Do
// runs first and verbose is false, the deferred Do runs nothing.
func onceSecondConditional(dir string, verbose bool) error {
	f, err := os.CreateTemp(dir, "snowball-*")
	if err != nil {
		return err
	}
	var once sync.Once
	defer once.Do(func() { f.Close() })
	once.Do(func() {
		if verbose {
			f.Close()
		}
	})
	return step() // want `return may skip f.Close \(CreateTemp at line 64\)`
}

// onceClosureVar gives the once a closure variable that closes f.
func onceClosureVar(dir string) error {
	f, err := os.CreateTemp(dir, "snowball-*")
	if err != nil {
		return err
	}
	closeF := func() { f.Close() }
	var once sync.Once
	defer once.Do(closeF)
	return step()
}

type guarded struct {
	mu sync.Mutex
	n  int
}

// onceMethodValue gives the once the lock's release as a method value.
func (g *guarded) onceMethodValue() error {
	g.mu.Lock()
	var once sync.Once
	defer once.Do(g.mu.Unlock)
	if err := step(); err != nil {
		return err
	}
	g.n++
	return nil
}
