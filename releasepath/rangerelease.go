package releasepath

import (
	"go/ast"
	"go/types"
)

// rangeReleased returns the local slice or map that rs ranges over when its body releases
// each element before anything that may leave the loop: for _, f := range files { f.Close() },
// also under a nil guard (if f != nil { f.Close() }), with its error taken (_ = f.Close(), if
// err := f.Close(); err != nil { … }) or through the index (files[i].Close()). A local that
// holds the value, ranged so, releases it (rangerelease). Nil for any other loop.
func rangeReleased(info *types.Info, rs *ast.RangeStmt, releaseNamed func(string) bool) types.Object {
	id, ok := ast.Unparen(rs.X).(*ast.Ident)
	if !ok {
		return nil
	}
	ranged, ok := info.Uses[id].(*types.Var)
	if !ok {
		return nil
	}
	switch ranged.Type().Underlying().(type) {
	case *types.Slice, *types.Map, *types.Array:
	default:
		return nil
	}
	var key, value types.Object
	if k, ok := rs.Key.(*ast.Ident); ok {
		key = info.ObjectOf(k)
	}
	if v, ok := rs.Value.(*ast.Ident); ok {
		value = info.ObjectOf(v)
	}
	// element reports whether e is the element of this round: the value variable, or the
	// ranged local indexed by the key.
	element := func(e ast.Expr) bool {
		e = ast.Unparen(e)
		if value != nil && isIdentOf(info, e, value) {
			return true
		}
		ix, ok := e.(*ast.IndexExpr)
		return ok && key != nil && isIdentOf(info, ix.X, ranged) && isIdentOf(info, ix.Index, key)
	}
	release := func(e ast.Expr) bool {
		call, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok {
			return false
		}
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		return ok && releaseNamed(sel.Sel.Name) && element(sel.X)
	}
	var releases func(s ast.Stmt) bool
	releases = func(s ast.Stmt) bool {
		switch s := s.(type) {
		case *ast.ExprStmt:
			return release(s.X)
		case *ast.AssignStmt:
			return len(s.Rhs) == 1 && release(s.Rhs[0])
		case *ast.IfStmt:
			if s.Init != nil && releases(s.Init) {
				return true // if err := f.Close(); err != nil { … }
			}
			// if f != nil { f.Close() }: a nil element holds nothing.
			return s.Init == nil && s.Else == nil && len(s.Body.List) == 1 && releases(s.Body.List[0]) && comparedNotNil(info, s.Cond, element)
		}
		return false
	}
	for _, s := range rs.Body.List {
		if releases(s) {
			return ranged
		}
		if mayLeave(info, s) {
			return nil
		}
	}
	return nil
}

// rangeReleasesArg returns the argument of call, to a function of the package, that the
// function releases element by element: files of closeFiles(files) for a closeFiles whose
// body ranges over its parameter so (rangeReleased) before anything that may leave it, and
// never assigns the parameter. Nil when there is none.
func (p *pkgChecker) rangeReleasesArg(call *ast.CallExpr, releaseNamed func(string) bool) ast.Expr {
	info := p.pass.TypesInfo
	fn, ok := typeInfoCallee(info, call)
	if !ok || fn.Pkg() != p.pass.Pkg || p.decls[fn] == nil {
		return nil
	}
	fd := p.decls[fn]
	sig := fn.Type().(*types.Signature)
	for i, arg := range call.Args {
		if i >= sig.Params().Len() || sig.Variadic() && i >= sig.Params().Len()-1 {
			continue
		}
		param := sig.Params().At(i)
		if p.changesOf(fd).escaped[param] || reassigned(info, fd.Body, param) {
			continue // fs = fs[1:], fs = others: the loop ranges over another slice
		}
		for _, s := range fd.Body.List {
			if rs, ok := s.(*ast.RangeStmt); ok && rangeReleased(info, rs, releaseNamed) == param {
				return arg
			}
			if mayLeave(info, s) {
				break
			}
		}
	}
	return nil
}

// rangeReleases reports whether call releases the value element by element through a local
// that holds it on the path: closeFiles(files) (rangeReleasesArg).
func (w *walker) rangeReleases(call *ast.CallExpr, st *state) bool {
	if len(call.Args) == 0 {
		return false
	}
	arg := w.p.rangeReleasesArg(call, w.a.releaseNamed)
	if arg == nil {
		return false
	}
	id, ok := ast.Unparen(arg).(*ast.Ident)
	return ok && st.aliases[w.p.pass.TypesInfo.Uses[id]]
}
