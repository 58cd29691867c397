// Package selectend leaks on one case of a select; only that return leaks.
package selectend

import (
	"errors"
)

type addrMgr struct{}

func (m *addrMgr) HoldAddress(name string) (string, error) { return name, nil }
func (m *addrMgr) ReleaseAddress(name string) error        { return nil }

func step() error { return nil }

func returnInSelect(m *addrMgr, done <-chan struct{}, in <-chan error) error {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return err
	}
	select {
	case <-done:
		return errors.New("cancelled") // want `return may skip m.ReleaseAddress \(HoldAddress at line 16\)`
	case err := <-in:
		if err != nil {
			m.ReleaseAddress(ip)
			return err
		}
	}
	m.ReleaseAddress(ip)
	return nil
}

func selectLoop(m *addrMgr, done <-chan struct{}, in <-chan error) error {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return err
	}
	for {
		select {
		case <-done:
			return errors.New("cancelled") // want `return may skip m.ReleaseAddress \(HoldAddress at line 34\)`
		case err := <-in:
			if err == nil {
				m.ReleaseAddress(ip)
				return nil
			}
		}
	}
}

// selectDefault falls out of a select with a default case to a real end of the function
// (reported as a return: the CFG ends a body that falls off with an implicit one).
func selectDefault(m *addrMgr, done <-chan struct{}) {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return
	}
	select {
	case <-done:
		m.ReleaseAddress(ip)
		return
	default:
	}
} // want `return may skip m.ReleaseAddress \(HoldAddress at line 54\)`
