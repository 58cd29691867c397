// Package hostilefailvalueerr returns the held address together with a non-nil error, which hands nothing on.
package hostilefailvalueerr

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
