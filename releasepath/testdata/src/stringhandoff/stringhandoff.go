// Package stringhandoff hands a held address (a string, released by ReleaseAddress(ip)) on; none of it leaks.
package stringhandoff

type addrMgr struct{}

func (m *addrMgr) HoldAddress(name string) (string, error) { return name, nil }
func (m *addrMgr) ReleaseAddress(name string) error        { return nil }

func step() error { return nil }

type holder struct {
	ip string
	m  map[string]string
	ch chan string
}

func okFlagDefer(m *addrMgr) (string, error) {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return "", err
	}
	ok := false
	defer func() {
		if !ok {
			m.ReleaseAddress(ip)
		}
	}()
	if err := step(); err != nil {
		return "", err
	}
	ok = true
	return ip, nil
}

func handOffReturn(m *addrMgr) (string, error) {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return "", err
	}
	if err := step(); err != nil {
		m.ReleaseAddress(ip)
		return "", err
	}
	return ip, nil
}

func (h *holder) handOffField(m *addrMgr) error {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		m.ReleaseAddress(ip)
		return err
	}
	h.ip = ip
	return nil
}

func (h *holder) handOffMap(m *addrMgr) error {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		m.ReleaseAddress(ip)
		return err
	}
	h.m["a"] = ip
	return nil
}

func (h *holder) handOffChan(m *addrMgr) error {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		m.ReleaseAddress(ip)
		return err
	}
	h.ch <- ip
	return nil
}

func handOffGoroutine(m *addrMgr) error {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		m.ReleaseAddress(ip)
		return err
	}
	go func() {
		step()
		m.ReleaseAddress(ip)
	}()
	return nil
}
