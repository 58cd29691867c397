package suppress

// A //releasepath:handoff line silences a function only as a line of its doc comment. Near
// the function but not in its doc comment (detached by a blank line, above another doc
// comment, trailing the line above, on the func line), it silences nothing.

// A directive in a comment that is no function's doc comment: a blank line stands between
// it and detachedByABlankLine.
//
//releasepath:handoff

func (g *gate) detachedByABlankLine(busy bool) bool {
	g.mu.Lock()
	if busy {
		return false // want `return may skip g.mu.Unlock`
	}
	g.mu.Unlock()
	return true
}

//releasepath:handoff

// aboveAnotherDocComment has a doc comment of its own, without the directive; a stray
// directive stands above it, separated by a blank line.
func (g *gate) aboveAnotherDocComment(busy bool) bool {
	g.mu.Lock()
	if busy {
		return false // want `return may skip g.mu.Unlock`
	}
	g.mu.Unlock()
	return true
}

//releasepath:handoff

func (g *gate) twoBlankLinesBelowIt(busy bool) bool {
	g.mu.Lock()
	if busy {
		return false // want `return may skip g.mu.Unlock`
	}
	g.mu.Unlock()
	return true
}

var stray = 1 //releasepath:handoff
func (g *gate) trailingCommentOfTheLineAbove(busy bool) bool {
	g.mu.Lock()
	if busy {
		return false // want `return may skip g.mu.Unlock`
	}
	g.mu.Unlock()
	return true
}

func (g *gate) onTheFuncLine(busy bool) bool { //releasepath:handoff
	g.mu.Lock()
	if busy {
		return false // want `return may skip g.mu.Unlock`
	}
	g.mu.Unlock()
	return true
}
