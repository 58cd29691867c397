// Package addresshold is the shape of kubernetes#97740: an address manager holds an IP for
// the forwarding rule, and the release sits at the end of the success path.
package addresshold

import (
	"errors"
	"log"
)

type addressManager struct{ name, ip string }

func newAddressManager(name, ip string) *addressManager { return &addressManager{name, ip} }

func (m *addressManager) HoldAddress() (string, error) { return m.ip, nil }
func (m *addressManager) ReleaseAddress() error        { return nil }

type cloud struct{ legacy bool }

func (c *cloud) ensureFirewall(ip string) error       { return nil }
func (c *cloud) ensureBackendService() error          { return nil }
func (c *cloud) ensureForwardingRule(ip string) error { return nil }
func (c *cloud) getForwardingRule() (string, error)   { return "", nil }

// ensureV1201 leaks the reservation on every error return between the hold and the release.
// Its first finding carries the v1.20.2 fix: getForwardingRule follows the release on the
// success path, but it mentions neither the address manager nor the address, so the release
// may run after it.
func (c *cloud) ensureV1201(name, ipToUse string) (string, error) {
	var err error
	var addrMgr *addressManager
	if !c.legacy {
		addrMgr = newAddressManager(name, ipToUse)
		ipToUse, err = addrMgr.HoldAddress()
		if err != nil {
			return "", err
		}
	}
	if err = c.ensureFirewall(ipToUse); err != nil {
		return "", err // want `return may skip addrMgr.ReleaseAddress \(HoldAddress at line 33\)`
	}
	if err := c.ensureBackendService(); err != nil {
		return "", err // want `return may skip addrMgr.ReleaseAddress`
	}
	if err := c.ensureForwardingRule(ipToUse); err != nil {
		return "", err // want `return may skip addrMgr.ReleaseAddress`
	}
	if addrMgr != nil {
		if err := addrMgr.ReleaseAddress(); err != nil {
			log.Printf("release address: %v", err)
		}
	}
	rule, err := c.getForwardingRule()
	if err != nil {
		return "", err // after the release: not a leak
	}
	return rule, nil
}

// ensureReleaseLast is ensureV1201 with the release as the last step before its return: the
// fix defers the release right after the hold's error check and deletes the release with its
// nil guard, the v1.20.2 change.
func (c *cloud) ensureReleaseLast(name, ipToUse string) (string, error) {
	var err error
	var addrMgr *addressManager
	if !c.legacy {
		addrMgr = newAddressManager(name, ipToUse)
		ipToUse, err = addrMgr.HoldAddress()
		if err != nil {
			return "", err
		}
	}
	if err = c.ensureFirewall(ipToUse); err != nil {
		return "", err // want `return may skip addrMgr.ReleaseAddress \(HoldAddress at line 67\)`
	}
	if err := c.ensureForwardingRule(ipToUse); err != nil {
		return "", err // want `return may skip addrMgr.ReleaseAddress`
	}
	if addrMgr != nil {
		if err := addrMgr.ReleaseAddress(); err != nil {
			log.Printf("release address: %v", err)
		}
	}
	return ipToUse, nil
}

// ensureV1202 is the fix: the release is deferred right after the hold.
func (c *cloud) ensureV1202(name, ipToUse string) (string, error) {
	var err error
	var addrMgr *addressManager
	if !c.legacy {
		addrMgr = newAddressManager(name, ipToUse)
		ipToUse, err = addrMgr.HoldAddress()
		if err != nil {
			return "", err
		}
		defer func() {
			if err := addrMgr.ReleaseAddress(); err != nil {
				log.Printf("release address: %v", err)
			}
		}()
	}
	if err = c.ensureFirewall(ipToUse); err != nil {
		return "", err
	}
	if err := c.ensureForwardingRule(ipToUse); err != nil {
		return "", err
	}
	return c.getForwardingRule()
}

var errConflict = errors.New("conflict")

// holdOrFind checks the failure branch with errors.Is before the plain check: both are the
// hold's own failure.
func (c *cloud) holdOrFind(m *addressManager) error {
	_, err := m.HoldAddress()
	if errors.Is(err, errConflict) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := c.ensureBackendService(); err != nil {
		m.ReleaseAddress()
		return err
	}
	return m.ReleaseAddress()
}
