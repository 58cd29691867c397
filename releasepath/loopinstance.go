package releasepath

import "go/ast"

// loopInstance reports whether n, a node on the path, is the acquisition again, reached
// around a loop: that is the next iteration's acquisition, with its own search, so the path
// of this one ends there. for … { mu.Lock(); …; mu.Unlock() } is not a leak of the first Lock.
func (w *walker) loopInstance(n ast.Node) bool {
	return n != w.a.node && within(n, w.a.call)
}
