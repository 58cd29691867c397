// Package osfile opens files: closed, returned, or left open on an error path.
package osfile

import (
	"io"
	"log"
	"os"
)

func readHeaderLeaky(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, 16)
	if _, err := io.ReadFull(f, buf); err != nil {
		return nil, err // want `return may skip f.Close \(Open at line 11\)`
	}
	return buf, f.Close()
}

func readHeader(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, 16)
	_, err = io.ReadFull(f, buf)
	return buf, err
}

// openLog hands the file to its caller, except when it returns an error with it.
func openLog(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o600); err != nil {
		return f, err // want `return may skip f.Close \(OpenFile at line 35\)`
	}
	return f, nil
}

func mustOpen(path string) *os.File {
	f, err := os.Open(path)
	if err != nil {
		log.Fatalf("open %s: %v", path, err)
	}
	return f
}

func firstLine(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	if fi, err := f.Stat(); err == nil && fi.Size() == 0 {
		log.Fatal("empty") // never returns
	}
	f.Close()
	return "", nil
}

func fsync(f *os.File) error { return f.Sync() }

// save has a named err: a later err = fsync(f) is no hand-off of f, and its return leaks.
func save(path string) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if err = fsync(f); err != nil {
		return err // want `return may skip f.Close \(OpenFile at line 69\)`
	}
	return f.Close()
}

type lease struct{ held bool }

func (l *lease) acquire() error { l.held = true; return nil }
func (l *lease) release()       { l.held = false }

// maintain re-binds the lease its receiver owns: the receiver's state, no local obligation.
func (l *lease) maintain(renew bool) error {
	if err := l.acquire(); err != nil {
		return err
	}
	if renew {
		return nil
	}
	l.release()
	return nil
}
