package correlated

import "sync"

type client struct {
	mu  sync.Mutex
	acc *account
}

type account struct{ name string }

type subscription struct {
	client *client
	mode   int
	locked bool
}

const modeLocked = 1

// names locks each subscription's client under a test of its fields, and unlocks under the
// same test: the function changes neither sub nor its fields, so it is one decision.
func (c *client) names(subs []*subscription) []string {
	var out []string
	for _, sub := range subs {
		if sub.client != nil && sub.client != c {
			sub.client.mu.Lock()
		}
		name := "global"
		if sub.client != nil && sub.client.acc != nil {
			name = sub.client.acc.name
		}
		if sub.client != nil && sub.client != c {
			sub.client.mu.Unlock()
		}
		out = append(out, name)
	}
	return out
}

// byMode tests a field against a constant, and a bool field, twice each.
func byMode(sub *subscription) {
	if sub.mode == modeLocked {
		sub.client.mu.Lock()
	}
	if sub.locked {
		sub.client.mu.Lock()
	}
	touch()
	if sub.locked {
		sub.client.mu.Unlock()
	}
	if sub.mode != modeLocked {
		return
	}
	sub.client.mu.Unlock()
}

// reassigned changes sub.client between the tests: they are two decisions.
func (c *client) reassigned(sub *subscription, other *client) {
	if sub.client != c {
		sub.client.mu.Lock()
	}
	sub.client = other
	if sub.client != c {
		sub.client.mu.Unlock()
	}
} // want `return may skip sub.client.mu.Unlock \(Lock at line 61\)`

// addressTaken hands &sub out between the tests: what it points at may change.
func (c *client) addressTaken(sub *subscription, reset func(**subscription)) {
	if sub.client != c {
		sub.client.mu.Lock()
	}
	reset(&sub)
	if sub.client != c {
		sub.client.mu.Unlock()
	}
} // want `return may skip sub.client.mu.Unlock \(Lock at line 72\)`

// nextIteration tests the previous iteration's subscription after the range moved on: the
// range declares sub again, and the path forgets what it knew of it.
func nextIteration(subs []*subscription) {
	for i, sub := range subs {
		if i == 0 && sub.mode == modeLocked {
			sub.client.mu.Lock()
			continue
		}
		if sub.mode == modeLocked {
			sub.client.mu.Unlock()
		}
	}
} // want `return may skip sub.client.mu.Unlock \(Lock at line 85\)`

func touch() {}

type inner struct{ locked bool }

type wrapped struct {
	inner
	n  int
	mu sync.Mutex
}

// relational tests n > 0 twice, and 0 < n: one decision.
func relational(s *wrapped) {
	if s.n > 0 {
		s.mu.Lock()
	}
	touch()
	if 0 < s.n {
		s.mu.Unlock()
	}
}

// promotedTwoWays tests the promoted field by both names, and through (*s).
func promotedTwoWays(s *wrapped) {
	if s.locked {
		s.mu.Lock()
	}
	touch()
	if (*s).inner.locked {
		s.mu.Unlock()
	}
}

// A txn locks the store's revision only when it has changes, and unlocks under the same
// test: the length of a field the method never changes is as steady as the field (etcd's
// storeTxnWrite.End).
type txn struct {
	s       *store
	changes []string
}

func (tw *txn) end() {
	if len(tw.changes) != 0 {
		tw.s.mu.Lock()
	}
	touch()
	if len(tw.changes) != 0 {
		tw.s.mu.Unlock()
	}
}

// endGrowing appends to the field between the tests: the second says nothing of the first.
func (tw *txn) endGrowing() {
	if len(tw.changes) == 0 {
		tw.s.mu.Lock()
	}
	tw.changes = append(tw.changes, "x")
	if len(tw.changes) == 0 {
		tw.s.mu.Unlock()
	}
} // want `return may skip tw.s.mu.Unlock \(Lock at line [0-9]+\)`
