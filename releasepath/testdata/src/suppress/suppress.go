// Package suppress silences findings with comments, in the places and spellings users
// write them; only a comment that is the directive counts, not one that mentions it in
// prose. A directive without its reason is in package reasonless.
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

func (g *gate) onAcquisition(busy bool) bool {
	g.mu.Lock() //releasepath:ok leave unlocks it
	if busy {
		return false
	}
	g.mu.Unlock()
	return true
}

func (g *gate) onlyThatReturn(busy, full bool) bool {
	g.mu.Lock()
	if busy {
		return false //releasepath:ok leave unlocks it
	}
	if full {
		return false // want `return may skip g.mu.Unlock \(Lock at line 38\)`
	}
	g.mu.Unlock()
	return true
}

func (g *gate) nolintList(busy bool) bool {
	g.mu.Lock()
	if busy {
		return false //nolint:errcheck,releasepath // leave unlocks it
	}
	g.mu.Unlock()
	return true
}

func (g *gate) nolintOther(busy bool) bool {
	g.mu.Lock()
	if busy {
		return false //nolint:errcheck // want `return may skip g.mu.Unlock \(Lock at line 59\)`
	}
	g.mu.Unlock()
	return true
}

func (g *gate) nolintLookalike(busy bool) bool {
	g.mu.Lock()
	if busy {
		return false //nolint:releasepathx // want `return may skip g.mu.Unlock \(Lock at line 68\)`
	}
	g.mu.Unlock()
	return true
}

// enterHeld returns holding g.mu on purpose; leave unlocks it.
//
//releasepath:handoff
func (g *gate) enterHeld(busy bool) bool {
	g.mu.Lock()
	if busy {
		return false
	}
	return true
}

// enterNoDirective has the word only in its body, which is no hand-off.
func (g *gate) enterNoDirective(busy bool) bool {
	g.mu.Lock()
	//releasepath:handoff
	if busy {
		return false // want `return may skip g.mu.Unlock \(Lock at line 89\)`
	}
	g.mu.Unlock()
	return true
}

func (g *gate) lookalike(busy bool) bool {
	g.mu.Lock()
	if busy {
		return false //releasepath:okay not the directive // want `return may skip g.mu.Unlock \(Lock at line 99\)`
	}
	g.mu.Unlock()
	return true
}

func (g *gate) lineAbove(busy bool) bool {
	g.mu.Lock()
	if busy {
		//releasepath:ok the caller's leave unlocks it
		return false
	}
	g.mu.Unlock()
	return true
}

func (g *gate) nolintBare(busy bool) bool {
	g.mu.Lock()
	if busy {
		return false //nolint // leave unlocks it
	}
	g.mu.Unlock()
	return true
}

func (g *gate) nolintAll(busy bool) bool {
	g.mu.Lock()
	if busy {
		return false //nolint:all // leave unlocks it
	}
	g.mu.Unlock()
	return true
}

func (g *gate) nolintSpaced(busy bool) bool {
	g.mu.Lock()
	if busy {
		return false // nolint:releasepath // want `return may skip g.mu.Unlock \(Lock at line 136\)`
	}
	g.mu.Unlock()
	return true
}

// nolintInDoc is silenced in its doc comment.
//
//nolint:releasepath // leave unlocks it
func (g *gate) nolintInDoc(busy bool) bool {
	g.mu.Lock()
	if busy {
		return false
	}
	g.mu.Unlock()
	return true
}

// proseNolint only mentions nolint in a comment: that is no directive.
func (g *gate) proseNolint(busy bool) bool {
	g.mu.Lock()
	if busy {
		// the old code had a nolint here; we removed it
		return false // want `return may skip g.mu.Unlock \(Lock at line 158\)`
	}
	g.mu.Unlock()
	return true
}

// proseOK mentions the directive inside a sentence: only a comment that starts with it counts.
func (g *gate) proseOK(busy bool) bool {
	g.mu.Lock()
	if busy {
		// TODO: releasepath:ok maybe
		return false // want `return may skip g.mu.Unlock \(Lock at line 169\)`
	}
	g.mu.Unlock()
	return true
}

// proseHandoff returns holding g.mu on one path by mistake.
// Do not add //releasepath:handoff here.
func (g *gate) proseHandoff(busy bool) bool {
	g.mu.Lock()
	if busy {
		return false // want `return may skip g.mu.Unlock \(Lock at line 181\)`
	}
	g.mu.Unlock()
	return true
}
