// Package hostilefailokay spells a comment that only starts like the suppression directive.
package hostilefailokay

import "sync"

type gate struct{ mu sync.Mutex }

func (g *gate) lookalike(busy bool) bool {
	g.mu.Lock()
	if busy {
		return false //releasepath:okay not the directive // want `return may skip g.mu.Unlock \(Lock at line 9\)`
	}
	g.mu.Unlock()
	return true
}
