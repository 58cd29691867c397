// Package samevalue releases on the same receiver, but not always the value it acquired:
// values are compared by their types.Object, so m.ReleaseAddress(other) releases other.
package samevalue

import "github.com/containernetworking/plugins/pkg/ipam"

type addrMgr struct{}

func (m *addrMgr) HoldAddress(name string) (string, error) { return name, nil }
func (m *addrMgr) ReleaseAddress(name string) error        { return nil }

func step() error { return nil }

// releaseOther releases another address on the failure path: a is never released, and
// without a release of a there is no evidence that HoldAddress(a) must be released here.
func releaseOther(m *addrMgr, a, other string) error {
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
		return err // want `return may skip m.ReleaseAddress \(HoldAddress at line 32\)`
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
		return err // want `return may skip m.ReleaseAddress \(HoldAddress at line 55\)`
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
		return nil, err // want `return may skip ipam.ExecDel \(ExecAdd at line 67\)`
	}
	return r, nil
}
