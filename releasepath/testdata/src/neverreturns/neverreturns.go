// Package neverreturns leaves by calls that never return: panic, log.Fatal, os.Exit.
package neverreturns

import (
	"log"
	"os"
)

type addrMgr struct{}

func (m *addrMgr) HoldAddress(name string) (string, error) { return name, nil }

func (m *addrMgr) ReleaseAddress(name string) error { return nil }

func step() error { return nil }

func panicPath(m *addrMgr) error {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		panic(err)
	}
	m.ReleaseAddress(ip)
	return nil
}

func fatalPath(m *addrMgr) error {
	ip, err := m.HoldAddress("a")
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		log.Fatalf("step: %v", err)
	}
	if err := step(); err != nil {
		os.Exit(1)
	}
	m.ReleaseAddress(ip)
	return nil
}
