// Package reasonless writes suppression directives without a reason: each is reported, and
// silences nothing.
package reasonless

import "sync"

type gate struct{ mu sync.Mutex }

func (g *gate) enter(busy bool) bool {
	g.mu.Lock()
	if busy {
		/* want `a reason: .* silences nothing without one` */ //releasepath:ok
		return false                                           // want `return may skip g.mu.Unlock \(Lock at line 10\)`
	}
	g.mu.Unlock()
	return true
}

func (g *gate) enterSpace(busy bool) bool {
	g.mu.Lock()
	if busy {
		return false /* want `return may skip g.mu.Unlock \(Lock at line 20\)` `a reason: .* silences nothing without one` */ //releasepath:ok
	}
	g.mu.Unlock()
	return true
}

func (g *gate) enterReason(busy bool) bool {
	g.mu.Lock()
	if busy {
		return false //releasepath:ok leave unlocks it
	}
	g.mu.Unlock()
	return true
}
