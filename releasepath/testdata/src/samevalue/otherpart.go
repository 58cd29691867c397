package samevalue

import (
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
