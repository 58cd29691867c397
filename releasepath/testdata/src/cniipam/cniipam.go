// Package cniipam is a CNI plugin's ADD: an IP allocated by the IPAM plugin must be given
// back when a later step of ADD fails (the default table's ipam.ExecAdd/ExecDel pair).
package cniipam

import (
	"errors"

	"github.com/containernetworking/plugins/pkg/ipam"
)

type netConf struct{ IPAMType string }

func setupVeth(r *ipam.Result) error      { return nil }
func configureIface(r *ipam.Result) error { return nil }

// cmdAddLeaky never releases the allocation on a failed ADD.
func cmdAddLeaky(conf netConf, stdin []byte) (*ipam.Result, error) {
	r, err := ipam.ExecAdd(conf.IPAMType, stdin)
	if err != nil {
		return nil, err
	}
	if len(r.IPs) == 0 {
		return nil, errors.New("IPAM plugin returned missing IP config") // want `return may skip ipam.ExecDel \(ExecAdd at line 18\)`
	}
	if err := setupVeth(r); err != nil {
		return nil, err // want `return may skip ipam.ExecDel`
	}
	return r, nil
}

// cmdAdd releases on every failure through an ok flag.
func cmdAdd(conf netConf, stdin []byte) (*ipam.Result, error) {
	success := false
	r, err := ipam.ExecAdd(conf.IPAMType, stdin)
	if err != nil {
		return nil, err
	}
	defer func() {
		if !success {
			ipam.ExecDel(conf.IPAMType, stdin)
		}
	}()
	if err := setupVeth(r); err != nil {
		return nil, err
	}
	if err := configureIface(r); err != nil {
		return nil, err
	}
	success = true
	return r, nil
}

// cmdAddFlagTooEarly sets the flag before the last step: that step's failure leaks.
func cmdAddFlagTooEarly(conf netConf, stdin []byte) (*ipam.Result, error) {
	success := false
	r, err := ipam.ExecAdd(conf.IPAMType, stdin)
	if err != nil {
		return nil, err
	}
	defer func() {
		if !success {
			ipam.ExecDel(conf.IPAMType, stdin)
		}
	}()
	success = true
	if err := configureIface(r); err != nil {
		return nil, err // want `return may skip ipam.ExecDel`
	}
	return r, nil
}

// cmdAddExplicit undoes the allocation on each error return by hand.
func cmdAddExplicit(conf netConf, stdin []byte) (*ipam.Result, error) {
	r, err := ipam.ExecAdd(conf.IPAMType, stdin)
	if err != nil {
		return nil, err
	}
	if err := setupVeth(r); err != nil {
		ipam.ExecDel(conf.IPAMType, stdin)
		return nil, err
	}
	return r, nil
}
