package samevalue

import (
	"errors"
	"sync"

	"samevalue/rawlock"
)

// A part of a variable is another value than another part of it: n.b than n.a, s[1] than
// s[0], byName["b"] than byName["a"]. Releasing one neither releases the other nor is evidence
// for it.

type names struct{ a, b string }

// otherField releases n.b only: no evidence that n.a must be released here.
func otherField(m *addrMgr, n names) error {
	if _, err := m.HoldAddress(n.a); err != nil {
		return err
	}
	if err := step(); err != nil {
		return err
	}
	m.ReleaseAddress(n.b)
	return nil
}

// otherElement releases s[1] only.
func otherElement(m *addrMgr, s []string) error {
	if _, err := m.HoldAddress(s[0]); err != nil {
		return err
	}
	if err := step(); err != nil {
		return err
	}
	m.ReleaseAddress(s[1])
	return nil
}

// otherEntry releases byName["b"] only.
func otherEntry(m *addrMgr, byName map[string]string) error {
	if _, err := m.HoldAddress(byName["a"]); err != nil {
		return err
	}
	if err := step(); err != nil {
		return err
	}
	m.ReleaseAddress(byName["b"])
	return nil
}

// otherFieldOnFailure releases n.a on success and n.b on failure: the failure return skips
// the release of n.a (the field form of samevalue's releaseOtherLeak).
func otherFieldOnFailure(m *addrMgr, n names) error {
	if _, err := m.HoldAddress(n.a); err != nil {
		return err
	}
	if err := step(); err != nil {
		m.ReleaseAddress(n.b)
		return err // want `return may skip m.ReleaseAddress`
	}
	m.ReleaseAddress(n.a)
	return nil
}

type lockFile struct {
	state sync.Mutex
	fd    int
	count int
}

// lockFD takes the file lock on l.fd under l.state: the deferred l.state.Unlock releases
// another part of l than l.fd, and is no evidence for the file lock, which is kept on purpose.
func (l *lockFile) lockFD() {
	l.state.Lock()
	defer l.state.Unlock()
	if l.count == 0 {
		if err := rawlock.LockFile(l.fd); err != nil {
			panic(err)
		}
	}
	l.count++
}

func (l *lockFile) unlockState() { l.state.Unlock() }
func (l *lockFile) unlockFD()    { rawlock.UnlockFile(l.fd) }

// helperOtherPart calls a helper that unlocks l.state on one path: another part of l than
// the l.fd of the file lock, so that path skips it.
func (l *lockFile) helperOtherPart() error {
	l.state.Lock()
	if err := rawlock.LockFile(l.fd); err != nil {
		l.state.Unlock()
		return err
	}
	if l.count > 0 {
		l.unlockState()
		return errOther // want `return may skip rawlock.UnlockFile \(LockFile at line 92\)`
	}
	rawlock.UnlockFile(l.fd)
	l.state.Unlock()
	return nil
}

// helperSamePart calls a helper that unlocks l.fd: the file lock's release.
func (l *lockFile) helperSamePart() error {
	if err := rawlock.LockFile(l.fd); err != nil {
		return err
	}
	if l.count > 0 {
		l.unlockFD()
		return errOther
	}
	rawlock.UnlockFile(l.fd)
	return nil
}

var errOther = errors.New("other")
