// Package switcherr branches on the acquisition's error with switch err; no return leaks.
package switcherr

import (
	"errors"
)

type addrMgr struct{}

func (m *addrMgr) HoldAddress(name string) (string, error) { return name, nil }
func (m *addrMgr) ReleaseAddress(name string) error        { return nil }

func step() error { return nil }

var errNotFound = errors.New("not found")

type locker struct{}

func (l *locker) Acquire() error { return nil }
func (l *locker) Release()       {}

func switchErrFailure(l *locker) error {
	err := l.Acquire()
	switch err {
	case nil:
	case errNotFound:
		return nil
	default:
		return err
	}
	l.Release()
	return nil
}

// switchErrSuccessLeak returns on the success case without the release: that one leaks.
func switchErrSuccessLeak(l *locker) error {
	err := l.Acquire()
	switch err {
	case errNotFound:
		return nil
	case nil:
		if err := step(); err != nil {
			return err // want `return may skip l.Release \(Acquire at line 37\)`
		}
	default:
		return err
	}
	l.Release()
	return nil
}
