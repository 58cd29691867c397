// Package failurebranch returns on the acquisition's own failure, checked at once or later,
// with errors.Is, a switch, or a wrapped error: nothing was acquired there.
package failurebranch

import (
	"errors"
	"fmt"
	"log"
)

type addrMgr struct{}

func (m *addrMgr) HoldAddress(name string) (string, error) { return name, nil }

func (m *addrMgr) ReleaseAddress(name string) error { return nil }

func step() error { return nil }

var errNotFound = errors.New("not found")

type locker struct{}

func (l *locker) Acquire() error { return nil }

func (l *locker) Release() {}

func ifInitAcquire(l *locker) error {
	if err := l.Acquire(); err != nil {
		return err
	}
	defer l.Release()
	return step()
}

func errorsIsFailure(l *locker) error {
	err := l.Acquire()
	if errors.Is(err, errNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	l.Release()
	return nil
}

func switchTrueFailure(l *locker) error {
	err := l.Acquire()
	switch {
	case errors.Is(err, errNotFound):
		return nil
	case err != nil:
		return err
	}
	l.Release()
	return nil
}

func laterErrCheck(m *addrMgr) error {
	ip, err := m.HoldAddress("a")
	log.Printf("held %q", ip)
	if err != nil {
		return err
	}
	defer m.ReleaseAddress(ip)
	return step()
}

func wrappedFailure(m *addrMgr) error {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return fmt.Errorf("hold address: %w", err)
	}
	defer m.ReleaseAddress(ip)
	return step()
}

var errGone = errors.New("gone")

// eitherFailure leaves the switch on either of two errors.Is of the acquisition's error, as
// buildkit's user lookup does: both say it failed, so the path that skips the defer holds
// nothing.
func eitherFailure(l *locker, byName bool) error {
	switch {
	case byName:
		err := l.Acquire()
		if errors.Is(err, errNotFound) || errors.Is(err, errGone) {
			break
		}
		if err != nil {
			return err
		}
		defer l.Release()
	}
	return step()
}

// failureOrVerbose leaves on a failure or on a flag that says nothing about it.
func failureOrVerbose(l *locker, byName, verbose bool) error {
	switch {
	case byName:
		err := l.Acquire()
		if errors.Is(err, errNotFound) || verbose {
			break
		}
		if err != nil {
			return err
		}
		defer l.Release()
	}
	return step() // want `return may skip l.Release \(Acquire at line 102\)`
}

// isNilOrFailure tests errors.Is(err, nil), which holds when the acquisition succeeded.
func isNilOrFailure(l *locker) error {
	err := l.Acquire()
	if errors.Is(err, nil) || errors.Is(err, errGone) {
		return nil // want `return may skip l.Release \(Acquire at line 116\)`
	}
	if err != nil {
		return err
	}
	defer l.Release()
	return step()
}
