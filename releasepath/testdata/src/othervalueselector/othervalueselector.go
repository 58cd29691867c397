// Package othervalueselector holds a value reached through a field, a slice element or a map
// entry, and releases another field, element or entry of the same variable:
// "m.ReleaseAddress(other) neither releases m.HoldAddress(a) nor is evidence for it".
package othervalueselector

type addrMgr struct{}

func (m *addrMgr) HoldAddress(name string) (string, error) { return name, nil }
func (m *addrMgr) ReleaseAddress(name string) error        { return nil }

func step() error { return nil }

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
