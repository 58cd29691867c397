package releasepath

import (
	"go/ast"
	"go/types"
	"slices"
	"strings"
)

// releaseMethodValue reports whether e is a method value of the release on the acquired
// value (l.Release, f.Close), a closure that releases it when called.
func (w *walker) releaseMethodValue(e ast.Expr, st *state) bool {
	info := w.p.pass.TypesInfo
	sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	s, ok := info.Selections[sel]
	if !ok || s.Kind() != types.MethodVal {
		return false
	}
	fn, ok := s.Obj().(*types.Func)
	if !ok {
		return false
	}
	if w.p.isReleaseValue(w.a, sel, fn, st.aliases) {
		return true
	}
	// A method of the package that releases it when called: unlockFn = r.stopReading for
	// r.mu.RLock(), when stopReading unlocks r.mu.
	return w.p.isReleaseOf(w.a, &ast.CallExpr{Fun: sel}, fn)
}

// aliasRelease reports whether call is the release called on a local that the path made
// hold the value: output.Close() after output = f, where output := os.Stdout was declared
// before the open. The release's own calls on the value are w.rels already.
func (w *walker) aliasRelease(call *ast.CallExpr, st *state) bool {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	info := w.p.pass.TypesInfo
	o := rootObj(info, sel.X)
	if o == nil || !st.aliases[o] || w.a.values[o] || w.p.changesOf(w.fnNode).escaped[o] {
		return false // an alias a literal or a pointer may point elsewhere
	}
	if s := info.Selections[sel]; s != nil && s.Kind() == types.MethodVal && types.IsInterface(s.Recv()) {
		// var c io.Closer = …; c = f; c.Close(): the interface's Close is f's.
		return w.a.releaseNamed(s.Obj().Name())
	}
	if w.holderRelease(sel) {
		return true // b.Close() for b := &bundle{}; b.add(f), as defer func() { b.Close() }() reads it
	}
	return w.releaseMethodValue(sel, st)
}

// releaseNamed reports whether a method of this name releases a: the method of a pair's
// release, or a release of a's verb.
func (a *acquisition) releaseNamed(name string) bool {
	name = mustless(name)
	if a.pair != nil {
		return slices.ContainsFunc(a.pair.releases, func(r string) bool { return strings.HasSuffix(r, "."+name) })
	}
	return slices.Contains(a.verb.releases, name) || isReleaseVerbName(name, a.verb.relVerbs)
}

// isReleaseValue reports whether sel, a method value of fn, is the release of a as a value:
// on the acquired value (l.Release, f.Close) or on the acquisition's receiver (c.mu.Unlock
// for c.mu.Lock). aliases are more locals that hold the value.
func (p *pkgChecker) isReleaseValue(a *acquisition, sel *ast.SelectorExpr, fn *types.Func, aliases map[types.Object]bool) bool {
	info := p.pass.TypesInfo
	o := rootObj(info, sel.X)
	onValue := o != nil && (a.values[o] || aliases[o])
	onRecv := false
	if k, ok := exprKey(info, sel.X); ok && a.recvKey != "" {
		ids, _ := embeddedPath(info, sel)
		onRecv = k+ids == a.recvKey
	}
	if !onValue && !onRecv {
		return false
	}
	if a.pair != nil {
		return slices.Contains(a.pair.releases, funcName(fn))
	}
	if onRecv && !onValue {
		return slices.Contains(a.verb.releases, fn.Name()) || slices.Contains(a.verb.relVerbs, fn.Name())
	}
	return slices.Contains(a.verb.releases, fn.Name()) || isReleaseVerbName(fn.Name(), a.verb.relVerbs)
}

// holderRelease reports whether sel is a method of the package named as the release, called
// on a local the function made itself (b := &bundle{}): a holder of its own whose release
// is its own to write (b.Close() after b.add(f)).
func (w *walker) holderRelease(sel *ast.SelectorExpr) bool {
	info := w.p.pass.TypesInfo
	s := info.Selections[sel]
	if s == nil || s.Kind() != types.MethodVal || s.Obj().Pkg() != w.p.pass.Pkg || !w.a.releaseNamed(s.Obj().Name()) {
		return false
	}
	id, ok := ast.Unparen(sel.X).(*ast.Ident)
	return ok && freshLocal(info, w.body, info.Uses[id])
}

// deferredHolder returns the local of defer b.Close() for a holder release (holderRelease)
// on a pointer the function never assigns again: the call reads the pointer when it is
// deferred, and what it points at when it runs, so it releases what b holds at the return,
// deferred before b.add(f) too. Nil for any other defer.
func (w *walker) deferredHolder(d *ast.DeferStmt) types.Object {
	sel, ok := ast.Unparen(d.Call.Fun).(*ast.SelectorExpr)
	if !ok || !w.holderRelease(sel) {
		return nil
	}
	info := w.p.pass.TypesInfo
	o := info.Uses[ast.Unparen(sel.X).(*ast.Ident)]
	if _, isPtr := o.Type().Underlying().(*types.Pointer); !isPtr || w.p.changesOf(w.fnNode).escaped[o] || reassigned(info, w.body, o) {
		return nil
	}
	return o
}

// reassigned reports whether body assigns o anywhere but in its declaration: mutates, for
// the changes that replace it.
func reassigned(info *types.Info, body *ast.BlockStmt, o types.Object) bool {
	return mutates(info, body, func(e ast.Expr, replaced bool) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return replaced && ok && info.Uses[id] == o
	})
}
