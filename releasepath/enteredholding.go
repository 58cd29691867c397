package releasepath

import (
	"go/ast"
	"go/token"
	"go/types"
)

// enteredHolding reports whether the function is entered holding what a acquires: the first
// call of the function, by position, that acquires or releases it on a's receiver is a
// release (c.mu.Unlock(); runtime.Gosched(); c.mu.Lock()). Then a takes back what the caller
// holds, and returning with it held is what the caller expects. Calls in function literals
// do not count: they may run at any time.
func (p *pkgChecker) enteredHolding(a *acquisition, all []callInfo) bool {
	if a.kind != scoped || a.recvKey == "" {
		return false
	}
	info := p.pass.TypesInfo
	firstRelease := token.NoPos
	for _, r := range a.releases {
		if !inLiteral(r.stack) && r.call.Pos() < a.call.Pos() && (firstRelease == token.NoPos || r.call.Pos() < firstRelease) {
			firstRelease = r.call.Pos()
		}
	}
	if firstRelease == token.NoPos {
		return false
	}
	for _, c := range all {
		if c.fn != a.fn || c.call.Pos() >= firstRelease || inLiteral(c.stack) {
			continue
		}
		if k, ok := recvKeyOf(info, c.call); ok && k == a.recvKey {
			return false // acquired here first: the release before a is that one's
		}
	}
	return true
}

// inLiteral reports whether a call with these ancestors sits in a function literal.
func inLiteral(stack []ast.Node) bool {
	for _, n := range stack {
		if _, ok := n.(*ast.FuncLit); ok {
			return true
		}
	}
	return false
}

// deferredBefore reports whether a release of a was deferred by a statement of the
// function's own body that precedes a: that statement ran before a on every path to it, so
// the deferred release runs after a too, on every return (mu.Lock(); defer mu.Unlock(); …;
// mu.Unlock(); wait(); mu.Lock(); return).
func deferredBefore(info *types.Info, a *acquisition, body *ast.BlockStmt) bool {
	if a.recvKey == "" {
		return false // a deferred call's receiver and arguments are read when it is deferred
	}
	for _, r := range a.releases {
		if len(r.stack) < 2 || r.stack[0] != body || r.call.Pos() >= a.call.Pos() {
			continue
		}
		if k, ok := recvKeyOf(info, r.call); !ok || k != a.recvKey || len(r.call.Args) > 0 {
			continue // defer closeQuietly(f), defer f.Close(): the nil f of that time
		}
		if d, ok := r.stack[1].(*ast.DeferStmt); ok && d.Call == r.call {
			return true
		}
	}
	return false
}
