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

type leases struct{}

var errExists = errors.New("exists")

func (*leases) Create(id string) (string, error) { return id, nil }
func (*leases) Delete(id string) error           { return nil }

// createdAndFailed deletes the lease on the way out when the update failed and this call
// created it, as buildkit's history queue does: every error return sets the named err, and
// created is true on every path from the Create.
func createdAndFailed(m *leases, id string) (err error) {
	l, err := m.Create(id)
	created := true
	if err != nil {
		if !errors.Is(err, errExists) {
			return err
		}
		l = id
		created = false
	}
	defer func() {
		if err != nil && created {
			m.Delete(l)
		}
	}()
	if err := step(); err != nil {
		return err
	}
	return nil
}

// createdNeverSet never sets its flag true: the deferred Delete runs on no path.
func createdNeverSet(m *leases, id string) (err error) {
	l, err := m.Create(id)
	if err != nil {
		return err
	}
	created := false
	defer func() {
		if err != nil && created {
			m.Delete(l)
		}
	}()
	if err := step(); err != nil {
		return err // want `return may skip m.Delete \(Create at line 165\)`
	}
	return nil
}

// createdAndVerbose has a term that says nothing about the lease.
func createdAndVerbose(m *leases, id string, verbose bool) (err error) {
	l, err := m.Create(id)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil && verbose {
			m.Delete(l)
		}
	}()
	if err := step(); err != nil {
		return err // want `return may skip m.Delete \(Create at line 183\)`
	}
	return nil
}

// createdClearedByClosure clears its flag through a closure: the search does not follow it.
func createdClearedByClosure(m *leases, id string) (err error) {
	l, err := m.Create(id)
	if err != nil {
		return err
	}
	created := true
	clear := func() { created = false }
	defer func() {
		if err != nil && created {
			m.Delete(l)
		}
	}()
	clear()
	if err := step(); err != nil {
		return err // want `return may skip m.Delete \(Create at line 200\)`
	}
	return nil
}

// createdThroughPointer clears its flag through its address.
func createdThroughPointer(m *leases, id string) (err error) {
	l, err := m.Create(id)
	if err != nil {
		return err
	}
	created := true
	pc := &created
	defer func() {
		if err != nil && created {
			m.Delete(l)
		}
	}()
	*pc = false
	if err := step(); err != nil {
		return err // want `return may skip m.Delete \(Create at line 220\)`
	}
	return nil
}

// deferEarlyReturn defers a closure that returns before it closes where skip is set: the
// exception is the closure's own, as a closure that keeps what the result holds, and the
// close counts.
func deferEarlyReturn(p string, skip bool) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer func() {
		if skip {
			return
		}
		f.Close()
	}()
	return nil
}

// deferEarlyNilReturn returns early where f is nil: a nil guard, no condition.
func deferEarlyNilReturn(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer func() {
		if f == nil {
			return
		}
		f.Close()
	}()
	return nil
}

// deferEarlyErrReturn returns early where err is nil: it closes where err is not.
func deferEarlyErrReturn(p string) (err error) {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer func() {
		if err == nil {
			return
		}
		f.Close()
	}()
	if err = step(); err != nil {
		return err
	}
	return nil // want `return may skip f.Close \(Open at line 272\)`
}

// deferReturnInLoop may return from a loop before it closes: the closure's own exception.
func deferReturnInLoop(p string, xs []int) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer func() {
		for _, x := range xs {
			if x < 0 {
				return
			}
		}
		f.Close()
	}()
	return nil
}

type keyLocker struct{}

func (keyLocker) Lock(k string)         {}
func (keyLocker) Unlock(k string) error { return nil }

type repo struct{ releasers []func() error }

// closureReturnsRelease releases in its closure's return statement, a release and no early
// return, and hands the closure to what it returns once the first step succeeds.
func closureReturnsRelease(l keyLocker, k string) (_ *repo, retErr error) {
	l.Lock(k)
	cleanup := func() error { return l.Unlock(k) }
	defer func() {
		if retErr != nil {
			cleanup()
		}
	}()
	if err := step(); err != nil {
		return nil, err
	}
	r := &repo{}
	r.releasers = append(r.releasers, cleanup)
	return r, nil
}

// deferInLoop closes only in a loop of the deferred closure, which may run no time.
func deferInLoop(p string, xs []int) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer func() {
		for range xs {
			f.Close()
		}
	}()
	return nil // want `return may skip f.Close \(Open at line 332\)`
}

// deferOwnErr returns early on the closure's own err: its exception, and the close counts.
func deferOwnErr(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer func() {
		if err := f.Sync(); err == nil {
			return
		}
		f.Close()
	}()
	return step()
}

// deferErrThenOk returns early where err is nil, and closes where ok is false: both hold at
// the error return, which closes f; the success return keeps it.
func deferErrThenOk(p string) (err error) {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if err == nil {
			return
		}
		if !ok {
			f.Close()
		}
	}()
	if err = step(); err != nil {
		return err
	}
	ok = true
	return nil // want `return may skip f.Close \(Open at line 362\)`
}

// deferTwoEarly returns early where verbose, the closure's own exception, and where err is
// nil: the success return keeps f.
func deferTwoEarly(p string, verbose bool) (err error) {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer func() {
		if verbose {
			return
		}
		if err == nil {
			return
		}
		f.Close()
	}()
	if err = step(); err != nil {
		return err
	}
	return nil // want `return may skip f.Close \(Open at line 385\)`
}

// closeAndMark closes f and says so through closed.
func closeAndMark(f *os.File, closed *bool) error {
	*closed = true
	return f.Close()
}

// putBlob defers a close under !explicitClosed and passes the flag's address only at its
// end: until the path takes &explicitClosed it knows the flag is false, so the returns
// before release the file through the deferred close.
func putBlob(dir string, data []byte) (err error) {
	f, err := os.CreateTemp(dir, "blob")
	if err != nil {
		return err
	}
	explicitClosed := false
	defer func() {
		if !explicitClosed {
			f.Close()
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	return closeAndMark(f, &explicitClosed)
}

type closedFlag bool

func (c *closedFlag) set() { *c = true }

// pointerMethodFlag takes the flag's address through a pointer method: known until then,
// so the early return closes; after closed.set() the release counts nowhere.
func pointerMethodFlag(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	var closed closedFlag
	defer func() {
		if !closed {
			f.Close()
		}
	}()
	if err := step(); err != nil {
		return err
	}
	closed.set()
	return nil // want `return may skip f.Close \(Open at line 440\)`
}

func markClosed(b *bool) { *b = true }

// addressInLiteral makes a literal that takes the flag's address: from there it may run at
// any time, and the release counts nowhere.
func addressInLiteral(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	closed := false
	defer func() {
		if !closed {
			f.Close()
		}
	}()
	if err := step(); err != nil {
		return err
	}
	g := func() { markClosed(&closed) }
	g()
	return nil // want `return may skip f.Close \(Open at line 462\)`
}
