// Package nolint has findings silenced with //nolint, which golangci-lint applies itself.
package nolint

import "sync"

type gate struct{ mu sync.Mutex }

func (g *gate) enter(busy bool) bool {
	g.mu.Lock()
	if busy {
		return false //nolint:releasepath // want `return may skip g.mu.Unlock \(Lock at line 9\)`
	}
	g.mu.Unlock()
	return true
}

// enterHeld is silenced in its doc comment.
//
//nolint:releasepath
func (g *gate) enterHeld(busy bool) bool {
	g.mu.Lock()
	if busy {
		return false // want `return may skip g.mu.Unlock \(Lock at line 21\)`
	}
	g.mu.Unlock()
	return true
}
