// Package suppress silences findings with comments.
package suppress

import "sync"

type gate struct{ mu sync.Mutex }

func (g *gate) enter(busy bool) bool {
	g.mu.Lock()
	if busy {
		return false //releasepath:ok the caller's leave unlocks it
	}
	g.mu.Unlock()
	return true
}

func (g *gate) enterNolint(busy bool) bool {
	g.mu.Lock()
	if busy {
		return false //nolint:releasepath // same as above
	}
	g.mu.Unlock()
	return true
}

func (g *gate) enterNoReason(busy bool) bool {
	g.mu.Lock()
	if busy {
		//releasepath:ok
		return false // want `return may skip g.mu.Unlock`
	}
	g.mu.Unlock()
	return true
}
