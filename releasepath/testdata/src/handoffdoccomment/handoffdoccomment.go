// Package handoffdoccomment writes //releasepath:handoff in comments near a function that are
// not its doc comment: "//releasepath:handoff as a line of the doc comment of a function ...
// silences the function". None of them is, so each function's leaking returns are reported.
package handoffdoccomment

import "sync"

type gate struct {
	mu sync.Mutex
	n  int
}

// A directive in a comment that is no function's doc comment: a blank line stands between
// it and detachedByABlankLine.
//
//releasepath:handoff

func (g *gate) detachedByABlankLine(busy bool) bool {
	g.mu.Lock()
	if busy {
		return false // want `return may skip g.mu.Unlock`
	}
	return true // want `return may skip g.mu.Unlock`
}

//releasepath:handoff

// aboveAnotherDocComment has a doc comment of its own, without the directive; a stray
// directive stands above it, separated by a blank line.
func (g *gate) aboveAnotherDocComment(busy bool) bool {
	g.mu.Lock()
	if busy {
		return false // want `return may skip g.mu.Unlock`
	}
	return true // want `return may skip g.mu.Unlock`
}

//releasepath:handoff

func (g *gate) twoBlankLinesBelowIt(busy bool) bool {
	g.mu.Lock()
	if busy {
		return false // want `return may skip g.mu.Unlock`
	}
	return true // want `return may skip g.mu.Unlock`
}

var stray = 1 //releasepath:handoff
func (g *gate) trailingCommentOfTheLineAbove(busy bool) bool {
	g.mu.Lock()
	if busy {
		return false // want `return may skip g.mu.Unlock`
	}
	return true // want `return may skip g.mu.Unlock`
}

func (g *gate) onTheFuncLine(busy bool) bool { //releasepath:handoff
	g.mu.Lock()
	if busy {
		return false // want `return may skip g.mu.Unlock`
	}
	return true // want `return may skip g.mu.Unlock`
}
