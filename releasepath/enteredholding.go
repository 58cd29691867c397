package releasepath

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
)

// enteredHolding reports whether the function is entered holding what a acquires: the first
// call of the function, by position, that acquires or releases it on a's receiver, or for a
// function its first argument, is a release (c.mu.Unlock(); runtime.Gosched(); c.mu.Lock(),
// unlockQ(q); wait(); lockQ(q)). Then a takes back what the caller
// holds, and returning with it held is what the caller expects. Calls in function literals
// do not count: they may run at any time.
func (p *pkgChecker) enteredHolding(a *acquisition, all []callInfo) bool {
	info := p.pass.TypesInfo
	key, ok := operandKey(info, a.call)
	if a.kind != scoped || !ok {
		return false
	}
	firstRelease := token.NoPos
	for _, r := range a.releases {
		if a.recvKey == "" {
			// A function's release must be passed what it was (unlockQ(q) for lockQ(q)); a
			// method's is matched to its receiver already, or through a helper of it.
			if k, ok := operandKey(info, r.call); !ok || k != key {
				continue
			}
		}
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
		if k, ok := operandKey(info, c.call); ok && k == key {
			return false // acquired here first: the release before a is that one's
		}
	}
	return true
}

// operandKey returns the identity of what call acquires or releases: its receiver's
// (c.mu.Lock()), or for a function its first argument's other than a context (lockQ(q)).
func operandKey(info *types.Info, call *ast.CallExpr) (string, bool) {
	if receiver(info, call) != nil {
		return recvKeyOf(info, call)
	}
	if args := nonContextArgs(info, call); len(args) > 0 {
		return exprKey(info, args[0])
	}
	return "", false
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
// mu.Unlock(); wait(); mu.Lock(); return). The deferred call's arguments are read when it is
// deferred, so they must hold then what they hold at a: constants, or variables the function
// never changes (locker.Lock(key); defer locker.Unlock(key); …; locker.Lock(key)).
func deferredBefore(info *types.Info, a *acquisition, body *ast.BlockStmt) bool {
	if a.recvKey == "" {
		return false // a deferred call's receiver and arguments are read when it is deferred
	}
	for _, r := range a.releases {
		if len(r.stack) < 2 || r.stack[0] != body || r.call.Pos() >= a.call.Pos() {
			continue
		}
		if k, ok := recvKeyOf(info, r.call); !ok || k != a.recvKey || !argsUnchanged(info, r.call, body) {
			continue // defer closeQuietly(f), defer f.Close(): the nil f of that time
		}
		if d, ok := r.stack[1].(*ast.DeferStmt); ok && d.Call == r.call {
			return true
		}
	}
	return false
}

// argsUnchanged reports whether every argument of call is a constant or a variable that body
// never assigns after declaring it, increments, takes the address of or ranges into.
func argsUnchanged(info *types.Info, call *ast.CallExpr, body *ast.BlockStmt) bool {
	for _, arg := range call.Args {
		if tv, ok := info.Types[arg]; ok && tv.Value != nil {
			continue
		}
		id, ok := ast.Unparen(arg).(*ast.Ident)
		if !ok {
			return false
		}
		v, ok := info.Uses[id].(*types.Var)
		if !ok || changedIn(info, v, body) {
			return false
		}
	}
	return true
}

// changedIn reports whether body, function literals included, may change v after its
// declaration.
func changedIn(info *types.Info, v *types.Var, body *ast.BlockStmt) bool {
	return mutates(info, body, func(e ast.Expr, _ bool) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && info.Uses[id] == v
	})
}

// mutates reports whether body, function literals included, may change what an expression
// that is reports true for names: by assigning it, incrementing it or ranging into it, which
// replace it (is is asked with replaced true), or by taking its address or calling a pointer
// method on it (key.reset() is (&key).reset()), which may change what is inside it.
func mutates(info *types.Info, body *ast.BlockStmt, is func(e ast.Expr, replaced bool) bool) bool {
	replaces := func(e ast.Expr) bool { return is(e, true) }
	changed := false
	ast.Inspect(body, func(n ast.Node) bool {
		if changed {
			return false // one change answers; the siblings Inspect still visits must not undo it
		}
		switch n := n.(type) {
		case *ast.AssignStmt:
			changed = slices.ContainsFunc(n.Lhs, replaces)
		case *ast.IncDecStmt:
			changed = replaces(n.X)
		case *ast.UnaryExpr:
			changed = n.Op == token.AND && is(n.X, false)
		case *ast.RangeStmt:
			changed = (n.Key != nil && replaces(n.Key)) || (n.Value != nil && replaces(n.Value))
		case *ast.SelectorExpr:
			if sel, ok := info.Selections[n]; ok && sel.Kind() == types.MethodVal && is(n.X, false) {
				_, ptr := sel.Obj().Type().(*types.Signature).Recv().Type().(*types.Pointer)
				changed = ptr
			}
		}
		return !changed
	})
	return changed
}
