// Package valuewitherror returns the held address together with a non-nil error, which hands nothing on.
package valuewitherror

type addrMgr struct{}

func (m *addrMgr) HoldAddress(name string) (string, error) { return name, nil }
func (m *addrMgr) ReleaseAddress(name string) error        { return nil }

func step() error { return nil }

func valueWithError(m *addrMgr) (string, error) {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return "", err
	}
	if err := step(); err != nil {
		return ip, err // want `return may skip m.ReleaseAddress \(HoldAddress at line 12\)`
	}
	return ip, nil
}

type Client struct{}

type Addr struct{ Name string }

func (c *Client) ReserveAddress(name string) (*Addr, error) { return &Addr{Name: name}, nil }
func (a *Addr) Release() error                              { return nil }

func withError(c *Client) (*Addr, error) {
	a, err := c.ReserveAddress("a")
	if err != nil {
		return nil, err
	}
	if err := step(); err != nil {
		return a, err // want `return may skip a.Release \(ReserveAddress at line 30\)`
	}
	return a, nil
}

// maybeNil returns the address with an error that is nil on success: the caller gets it then.
func maybeNil(m *addrMgr) (string, error) {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return "", err
	}
	err = step()
	return ip, err
}

// maybeNilReleased releases on one failure and returns the address with an error that may be
// nil on the other path.
func maybeNilReleased(m *addrMgr, fail bool) (string, error) {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return "", err
	}
	if fail {
		m.ReleaseAddress(ip)
		return "", step()
	}
	err = step()
	return ip, err
}

// releasedValueWithError releases on one failure and returns the address with a failing
// error on another.
func releasedValueWithError(m *addrMgr, fail bool) (string, error) {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return "", err
	}
	if fail {
		m.ReleaseAddress(ip)
		return "", step()
	}
	if err := step(); err != nil {
		return ip, err // want `return may skip m.ReleaseAddress \(HoldAddress at line 68\)`
	}
	return ip, nil
}
