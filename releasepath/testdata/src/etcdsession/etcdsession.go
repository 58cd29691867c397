// Package etcdsession opens etcd sessions, from the default table: a session ends with its
// Close, or with its Orphan, which leaves the lease to its owner.
package etcdsession

import "go.etcd.io/etcd/client/v3/concurrency"

func step() error { return nil }

// lockFor keeps the client's lease: the session is orphaned at once, as etcd's v3lock server
// does, and nothing is left running.
func lockFor(lease int64) (int64, error) {
	s, err := concurrency.NewSession(lease)
	if err != nil {
		return 0, err
	}
	s.Orphan()
	if err := step(); err != nil {
		return 0, err
	}
	return s.Lease(), nil
}

// leaky returns on a failed step with the session still keeping its lease alive.
func leaky(lease int64) error {
	s, err := concurrency.NewSession(lease)
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		return err // want `return may skip s.Close \(NewSession at line 25\)`
	}
	return s.Close()
}
