package holderrelease

import (
	"os"
	"sync"
)

// fileHolder closes the file it holds by a pointer method.
type fileHolder struct {
	f    *os.File
	name string
}

func (h *fileHolder) Close() error { return h.f.Close() }

type innerFile struct{ f *os.File }

// outerHolder holds the file in a field of a field.
type outerHolder struct{ in innerFile }

func (o *outerHolder) Close() error { return o.in.f.Close() }

func step() error { return nil }

func keep(h *fileHolder) {}

// closedValue makes a value, not a pointer, and closes it by a pointer method.
func closedValue(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	h := fileHolder{f: f, name: path}
	if err := step(); err != nil {
		h.Close()
		return err
	}
	return h.Close()
}

// closedVar declares the holder with var.
func closedVar(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	var h *fileHolder = &fileHolder{f: f}
	if err := step(); err != nil {
		h.Close()
		return err
	}
	return h.Close()
}

// closedAssignedOnce declares the holder first and gives it its one value later.
func closedAssignedOnce(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	var h *fileHolder
	h = &fileHolder{f: f}
	if err := step(); err != nil {
		h.Close()
		return err
	}
	return h.Close()
}

// closedAddressTaken passes the holder's address on before it closes it: still the holder.
func closedAddressTaken(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	h := fileHolder{f: f}
	keep(&h)
	if err := step(); err != nil {
		h.Close()
		return err
	}
	return h.Close()
}

// closedNested holds the file in a field of a field.
func closedNested(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	o := &outerHolder{in: innerFile{f: f}}
	if err := step(); err != nil {
		o.Close()
		return err
	}
	return o.Close()
}

// givenTwice gives the holder another value on some path: none is the holder.
func givenTwice(path string, spare *fileHolder, swap bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	h := &fileHolder{f: f}
	if swap {
		h = spare
	}
	if err := step(); err != nil {
		h.Close()
		return err // want `return may skip f.Close \(Open at line \d+\)`
	}
	return h.Close() // want `return may skip f.Close \(Open at line \d+\)`
}

type dirLock struct{ path string }

func (l *dirLock) Close() error { return nil }

// LockDirectory is pebble's directory lock: the database it opens keeps it, and its Close
// releases it.
func LockDirectory(dir string) (*dirLock, error) { return &dirLock{path: dir}, nil }

type db struct {
	mu   sync.Mutex
	lock *dirLock
}

// replayWAL is called holding the database's mutex and drops it while it reads: a release
// on the holder, by the lock's release name.
func (d *db) replayWAL() error {
	d.mu.Unlock()
	defer d.mu.Lock()
	return step()
}

// openDB releases the lock nowhere itself: its holder's replayWAL is no evidence that the
// lock must be released on these returns.
func openDB(dir string) (*db, error) {
	lock, err := LockDirectory(dir)
	if err != nil {
		return nil, err
	}
	d := &db{lock: lock}
	if err := step(); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.replayWAL(); err != nil {
		return nil, err
	}
	return d, nil
}
