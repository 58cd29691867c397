package holdcallers

import "holdcallers/store"

// The summaries of package store reach its callers as facts: each call holds the lock of
// what it is passed where its result says success.

func stale(s *store.Store, k string) error {
	e := s.Lookup(k)
	if e == nil {
		return errStale
	}
	if e.Stale {
		return errStale // want `return may skip s.Done \(Lookup at line 9\)`
	}
	s.Done()
	return nil
}

func begun(s *store.Store, fail bool) error {
	if err := s.Begin(); err != nil {
		return err
	}
	if fail {
		return errBusy // want `return may skip s.Done \(Begin at line 21\)`
	}
	s.Done()
	return nil
}

func tried(s *store.Store, fail bool) error {
	if !s.TryNamed() {
		return errBusy
	}
	defer s.Done()
	if fail {
		return errBusy
	}
	return nil
}

func readShared(sh *store.Shared) int {
	if !store.RLockShared(sh) {
		return 0
	}
	if sh.N == 0 {
		return -1 // want `return may skip sh.Mu.RUnlock \(RLockShared at line 43\)`
	}
	n := sh.N
	sh.Mu.RUnlock()
	return n
}

// neverReleased has no evidence: the caller releases the lock nowhere, so nothing says
// the lock is its to release here.
func neverReleased(s *store.Store, k string) bool {
	return s.Lookup(k) != nil
}

// leaky calls a function with no summary: nothing is held.
func leaky(s *store.Store, k string) error {
	if _, err := s.Leaky(k); err != nil {
		return err
	}
	s.Done()
	return nil
}
