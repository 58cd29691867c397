package holdsonsuccess

import "sync"

// A series is locked by itself; a collected one is replaced by a live one.
type series struct {
	sync.Mutex
	collected bool
}

func (c *cache) replacement(s *series) (*series, error) {
	if c.closed {
		return nil, errNotFound
	}
	return &series{}, nil
}

// lockLive returns s locked, or the live series that replaced it locked: each round of its
// endless loop locks first, and the unlock goes on to a failure return or to the next
// round's lock (prometheus's lockForAppend). The caller unlocks what it gets.
func (c *cache) lockLive(s *series) (*series, error) {
	for {
		s.Lock()
		if !s.collected {
			return s, nil
		}
		s.Unlock()
		var err error
		if s, err = c.replacement(s); err != nil {
			return nil, err
		}
	}
}

// lockLiveOrAny returns a series it has unlocked where it says success: the unlock leads to
// a return that is no failure, so nothing is the contract.
func (c *cache) lockLiveOrAny(s *series) (*series, error) {
	for {
		s.Lock()
		if !s.collected {
			return s, nil // want `return may skip s.Unlock \(Lock at line 39\)`
		}
		s.Unlock()
		if c.busy {
			return s, nil
		}
	}
}

// lockUntil leaves the loop after its unlock: what comes after the loop says what the unlock
// leads to, a success with a series it never locked, and the return inside is reported.
func (c *cache) lockUntil(s *series, n int) (*series, error) {
	for i := 0; ; i++ {
		s.Lock()
		if !s.collected {
			return s, nil // want `return may skip s.Unlock \(Lock at line 54\)`
		}
		s.Unlock()
		if i == n {
			break
		}
	}
	return &series{}, nil
}

// lockOrSkip leaves its endless inner loop by a continue of the outer one: the unlock leads
// on to the success after the outer loop, a series it never locked, so the return inside
// is reported.
func (c *cache) lockOrSkip(s *series, n int) (*series, error) {
outer:
	for i := 0; i < n; i++ {
		for {
			s.Lock()
			if !s.collected {
				return s, nil // want `return may skip s.Unlock \(Lock at line 73\)`
			}
			s.Unlock()
			if c.busy {
				continue outer
			}
			if c.closed {
				return nil, errNotFound
			}
		}
	}
	return &series{}, nil
}
