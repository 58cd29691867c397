package releasepath

import (
	"go/ast"
	"go/types"
	"slices"
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
	return w.p.isReleaseValue(w.a, sel, fn, st.aliases)
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
