// Package samevalue releases on the same receiver, but not always the value it acquired:
// values are compared by their types.Object, so m.ReleaseAddress(other) releases other, and
// is no evidence that a must be released.
package samevalue

import "github.com/containernetworking/plugins/pkg/ipam"

type addrMgr struct{}

func (m *addrMgr) HoldAddress(name string) (string, error) { return name, nil }
func (m *addrMgr) ReleaseAddress(name string) error        { return nil }

func step() error { return nil }

// releaseOnlyOther holds a and releases only other. It is not reported, on purpose: a is
// never released, and a release of other is no evidence that a must be released here (the
// caller may own it). Compare releaseOtherLeak, which releases a on another path.
func releaseOnlyOther(m *addrMgr, a, other string) error {
	ip, err := m.HoldAddress(a)
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		m.ReleaseAddress(other)
		return err
	}
	_ = ip
	return nil
}

// releaseOtherLeak releases a on success and another address on failure: the failure
// return skips the release of a.
func releaseOtherLeak(m *addrMgr, a, other string) error {
	ip, err := m.HoldAddress(a)
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		m.ReleaseAddress(other)
		return err // want `return may skip m.ReleaseAddress \(HoldAddress at line 34\)`
	}
	m.ReleaseAddress(ip)
	return nil
}

// releaseByName releases with the name it held: the same argument.
func releaseByName(m *addrMgr, a string) error {
	if _, err := m.HoldAddress(a); err != nil {
		return err
	}
	defer m.ReleaseAddress(a)
	return step()
}

// releaseConstant holds and releases the same constant.
func releaseConstant(m *addrMgr) error {
	if _, err := m.HoldAddress("a"); err != nil {
		return err
	}
	if err := step(); err != nil {
		m.ReleaseAddress("b")
		return err // want `return may skip m.ReleaseAddress \(HoldAddress at line 57\)`
	}
	return m.ReleaseAddress("a")
}

// execDelOther gives back another network's allocation on failure: the ADD of conf leaks.
func execDelOther(plugin string, conf, other []byte) (*ipam.Result, error) {
	r, err := ipam.ExecAdd(plugin, conf)
	if err != nil {
		return nil, err
	}
	if err := step(); err != nil {
		ipam.ExecDel("other", other)
		return nil, err // want `return may skip ipam.ExecDel \(ExecAdd at line 69\)`
	}
	return r, nil
}
