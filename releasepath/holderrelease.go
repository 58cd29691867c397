package releasepath

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
)

// compositeHolders returns the locals of body that hold a's value in a field of their own
// (or a field of a field) by the one composite literal they are ever given (ns :=
// &proxyNS{nsPath: nsPath}, var h = plain{f: f}, or var h *plain; h = &plain{f: f}): what a
// method of one of them releases of its receiver, it may release of the value
// (holderReleases). A local given anything else as well, anywhere in the function, is none.
func (p *pkgChecker) compositeHolders(body *ast.BlockStmt, a *acquisition) map[types.Object]bool {
	info := p.pass.TypesInfo
	var holdsValue func(e ast.Expr) bool
	holdsValue = func(e ast.Expr) bool {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			e = kv.Value
		}
		e = ast.Unparen(e)
		if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
			e = ast.Unparen(u.X)
		}
		switch x := e.(type) {
		case *ast.Ident:
			return a.values[info.Uses[x]] || a.basic[info.Uses[x]]
		case *ast.CompositeLit:
			return slices.ContainsFunc(x.Elts, holdsValue) // &outer{in: inner{f: f}}
		}
		return false
	}
	given := map[types.Object]int{} // how many values each local is given
	var holders []types.Object
	give := func(id *ast.Ident, value ast.Expr) {
		o := info.ObjectOf(id)
		if o == nil || !isLocal(o, body) {
			return
		}
		given[o]++
		if value != nil && isStructHolder(o.Type()) && isAllocation(info, value) && holdsValue(value) {
			holders = append(holders, o)
		}
	}
	for _, g := range p.index(body).gives {
		give(g.id, g.value)
	}
	var out map[types.Object]bool
	for _, o := range holders {
		if given[o] == 1 {
			if out == nil {
				out = map[types.Object]bool{}
			}
			out[o] = true
		}
	}
	return out
}

// holderReleases reports whether call, a method of fn called on a composite holder of a's
// value (compositeHolders), releases the value: a method of this package that makes a's
// release on its receiver or with a field of it on some path (buildkit's ns.Close(), whose
// release deletes n.nsPath), or another package's whose fact says it releases a field of its
// receiver on every path. Which field is not compared: a holder's Close is taken to release
// what it holds. Such a release ends the acquisition but is no evidence that it needs one
// (see checkFunc): d.replayWAL() does not make d's directory lock a thing to release.
func (p *pkgChecker) holderReleases(a *acquisition, call *ast.CallExpr, fn *types.Func) bool {
	if len(a.holders) == 0 && len(a.closureHolders) == 0 {
		return false
	}
	r := receiver(p.pass.TypesInfo, call)
	if r == nil || !isIdent(r) {
		return false
	}
	if fields := a.closureHolders[rootObj(p.pass.TypesInfo, r)]; fields != nil && fn.Pkg() == p.pass.Pkg {
		if fd := p.decls[fn.Origin()]; fd != nil && callsFieldFirst(p.pass.TypesInfo, fd, fields) {
			return true // body.Close() runs body.BeforeClose, the literal that releases
		}
	}
	if !a.holders[rootObj(p.pass.TypesInfo, r)] {
		return false
	}
	wi := p.wrapper(fn)
	if wi == nil {
		return false
	}
	for _, nf := range wi.names[-1] {
		if a.isReleaseName(nf[0], nf[1]) {
			return true
		}
	}
	for _, f := range wi.fields[-1] {
		if f[0] != "" && a.isReleaseName(f[1], "") {
			return true
		}
	}
	return false
}

// closureHolders returns the locals of body that a composite literal made holding a's
// release in a field, as a function literal that releases whenever it runs (body :=
// &fnOnClose{BeforeClose: func() { r.Release(1) }, ReadCloser: resp.Body}, containerd's
// fetcher), with the names of those fields. Every value such a local is given must be a
// composite literal: containerd gives body another &fnOnClose{…} for its parallel reads,
// after a goroutine has taken the first. A method of the package that calls such a field
// first thing releases the acquisition (holderReleases).
func (p *pkgChecker) closureHolders(body *ast.BlockStmt, a *acquisition) map[types.Object]map[string]bool {
	info := p.pass.TypesInfo
	out := map[types.Object]map[string]bool{}
	other := map[types.Object]bool{} // given something that is no composite literal
	give := func(id *ast.Ident, value ast.Expr) {
		o := info.ObjectOf(id)
		if o == nil || !isLocal(o, body) {
			return
		}
		v := ast.Unparen(value)
		if u, ok := v.(*ast.UnaryExpr); ok && u.Op == token.AND {
			v = ast.Unparen(u.X)
		}
		lit, ok := v.(*ast.CompositeLit)
		if !ok {
			other[o] = true
			return
		}
		for _, el := range lit.Elts {
			kv, ok := el.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			key, ok := kv.Key.(*ast.Ident)
			fl, isLit := ast.Unparen(kv.Value).(*ast.FuncLit)
			if ok && isLit && p.litReleasesFirst(a, fl) {
				if out[o] == nil {
					out[o] = map[string]bool{}
				}
				out[o][key.Name] = true
			}
		}
	}
	for _, g := range p.index(body).gives {
		give(g.id, g.value)
	}
	for o := range other {
		delete(out, o)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// litReleasesFirst reports whether lit makes a's release as a call statement before
// anything that may leave it: func() { closes++; cancel(); r.Release(1) }.
func (p *pkgChecker) litReleasesFirst(a *acquisition, lit *ast.FuncLit) bool {
	info := p.pass.TypesInfo
	return leadingCall(lit.Body, func(call *ast.CallExpr) bool {
		fn, ok := typeInfoCallee(info, call)
		return ok && p.isReleaseOf(a, call, fn)
	})
}

// callsFieldFirst reports whether the method fd calls one of fields of its receiver as a
// call statement before anything that may leave it: f.closed = true; f.BeforeClose();
// return f.ReadCloser.Close().
func callsFieldFirst(info *types.Info, fd *ast.FuncDecl, fields map[string]bool) bool {
	self := recvObject(info, fd)
	if self == nil {
		return false
	}
	return leadingCall(fd.Body, func(call *ast.CallExpr) bool {
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		return ok && fields[sel.Sel.Name] && isIdentOf(info, sel.X, self)
	})
}

// leadingCall reports whether body makes a call that match accepts as a statement of its
// own before any statement that may leave it, a return, a branch, a loop or a defer: the
// statements before it may only assign, declare, count or call.
func leadingCall(body *ast.BlockStmt, match func(*ast.CallExpr) bool) bool {
	for _, s := range body.List {
		switch s := s.(type) {
		case *ast.ExprStmt:
			if call, ok := ast.Unparen(s.X).(*ast.CallExpr); ok && match(call) {
				return true
			}
		case *ast.AssignStmt, *ast.DeclStmt, *ast.IncDecStmt:
		default:
			return false
		}
	}
	return false
}

// eachGiven calls give for each variable body names on the left of an assignment, a var
// declaration or a range, with the value it is given there, or nil when that is no single
// expression of its own (var h, err = open(), for _, v := range xs).
func eachGiven(body *ast.BlockStmt, give func(id *ast.Ident, value ast.Expr)) {
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				if id, ok := ast.Unparen(l).(*ast.Ident); ok {
					var value ast.Expr
					if len(n.Lhs) == len(n.Rhs) {
						value = n.Rhs[i]
					}
					give(id, value)
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if len(n.Values) == len(n.Names) {
					give(id, n.Values[i])
				} else if len(n.Values) > 0 {
					give(id, nil)
				}
			}
		case *ast.RangeStmt:
			for _, e := range []ast.Expr{n.Key, n.Value} {
				if id, ok := e.(*ast.Ident); ok {
					give(id, nil)
				}
			}
		}
		return true
	})
}
