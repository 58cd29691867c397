// Package deferguard releases in deferred closures under conditions: a nil guard on the
// handle or an ok flag the function sets count, an unrelated condition does not, and
// err == nil releases only where err is nil.
package deferguard

import (
	"errors"
	"fmt"
	"os"
)

func step() error { return nil }

func nilGuard(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() {
		if f != nil {
			f.Close()
		}
	}()
	return step()
}

func okFlag(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
		}
	}()
	if err := step(); err != nil {
		return nil, err
	}
	ok = true
	return f, nil
}

// unrelatedParam closes only when verbose: the flag says nothing about the file.
func unrelatedParam(path string, verbose bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() {
		if verbose {
			f.Close()
		}
	}()
	return step() // want `return may skip f.Close \(Open at line 47\)`
}

var retries int

// unrelatedCompare closes only under a comparison of something else.
func unrelatedCompare(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() {
		if retries > 0 {
			f.Close()
		}
	}()
	return step() // want `return may skip f.Close \(Open at line 63\)`
}

// onSuccessOnly closes only when the named err is nil: the error returns skip it.
func onSuccessOnly(path string) (err error) {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() {
		if err == nil {
			f.Close()
		}
	}()
	if err = step(); err != nil {
		return err // want `return may skip f.Close \(Open at line 77\)`
	}
	return nil
}

// onSuccessLocal closes while a local err is nil: a new error returned while err is nil
// runs the Close, a return after err is set to a failure skips it.
func onSuccessLocal(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() {
		if err == nil {
			f.Close()
		}
	}()
	if step() != nil {
		return errors.New("step failed")
	}
	if err = step(); err != nil {
		return fmt.Errorf("step: %w", err) // want `return may skip f.Close \(Open at line 95\)`
	}
	return nil
}

// inElse closes in the else branch of err != nil: the same as err == nil.
func inElse(path string) (err error) {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			return
		} else {
			f.Close()
		}
	}()
	if err = step(); err != nil {
		return err // want `return may skip f.Close \(Open at line 115\)`
	}
	return nil
}
