package releasepath

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
)

// compositeHolders returns the locals of body that hold a's value in a field of their own
// by the composite literal they are declared with (ns := &proxyNS{nsPath: nsPath}), and
// that the function never assigns again, takes the address of or assigns in a literal:
// what a method of one of them releases of its receiver, it may release of the value
// (holderReleases).
func compositeHolders(info *types.Info, body *ast.BlockStmt, a *acquisition, changes *varChanges) map[types.Object]bool {
	var out map[types.Object]bool
	holdsValue := func(e ast.Expr) bool {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			e = kv.Value
		}
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && (a.values[info.Uses[id]] || a.basic[info.Uses[id]])
	}
	ast.Inspect(body, func(n ast.Node) bool {
		s, ok := n.(*ast.AssignStmt)
		if !ok || s.Tok != token.DEFINE || len(s.Lhs) != len(s.Rhs) {
			return true
		}
		for i, l := range s.Lhs {
			id, ok := l.(*ast.Ident)
			o := info.Defs[id]
			if !ok || o == nil || !isStructHolder(o.Type()) || changes.changed([]string{objID(o)}) || changes.escaped[o] {
				continue
			}
			e := ast.Unparen(s.Rhs[i])
			if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
				e = ast.Unparen(u.X)
			}
			if lit, ok := e.(*ast.CompositeLit); ok && slices.ContainsFunc(lit.Elts, holdsValue) {
				if out == nil {
					out = map[types.Object]bool{}
				}
				out[o] = true
			}
		}
		return true
	})
	return out
}

// holderReleases reports whether call, a method of fn called on a composite holder of a's
// value (compositeHolders), releases the value: a method of this package that makes a's
// release on its receiver or with a field of it on some path (buildkit's ns.Close(), whose
// release deletes n.nsPath), or another package's whose fact says it releases a field of its
// receiver on every path. Which field is not compared: a holder's Close is taken to release
// what it holds.
func (p *pkgChecker) holderReleases(a *acquisition, call *ast.CallExpr, fn *types.Func, isRel func(name, full string) bool) bool {
	if len(a.holders) == 0 {
		return false
	}
	r := receiver(p.pass.TypesInfo, call)
	if r == nil || !isIdent(r) || !a.holders[rootObj(p.pass.TypesInfo, r)] {
		return false
	}
	wi := p.wrapper(fn)
	if wi == nil {
		return false
	}
	for _, nf := range wi.names[-1] {
		if isRel(nf[0], nf[1]) {
			return true
		}
	}
	for _, f := range wi.fields[-1] {
		if f[0] != "" && isRel(f[1], "") {
			return true
		}
	}
	return false
}
