package releasepath

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
)

// loopReleased returns the local slice or map that loop goes over when its body releases
// each element before anything that may leave the loop, with that release call: for _, f :=
// range files { f.Close() }, also under a nil guard (if f != nil { f.Close() }), with its
// error taken (_ = f.Close(), if err := f.Close(); err != nil { … }), through the index
// (files[i].Close()), or by index in a for loop over the whole slice, either way (for i :=
// len(files) - 1; i >= 0; i-- { files[i].Close() }). A local that holds the value, gone over
// so, releases it (rangerelease). Nil for any other loop.
func loopReleased(info *types.Info, loop ast.Stmt, releaseNamed func(string) bool) (types.Object, *ast.CallExpr) {
	var over ast.Expr
	var key, value types.Object
	var body *ast.BlockStmt
	switch l := loop.(type) {
	case *ast.RangeStmt:
		over, body = l.X, l.Body
		if k, ok := l.Key.(*ast.Ident); ok {
			key = info.ObjectOf(k)
		}
		if v, ok := l.Value.(*ast.Ident); ok {
			value = info.ObjectOf(v)
		}
	case *ast.ForStmt:
		over, key = indexLoop(info, l)
		body = l.Body
	}
	id, ok := ast.Unparen(over).(*ast.Ident)
	if !ok {
		return nil, nil
	}
	ranged, ok := info.Uses[id].(*types.Var)
	if !ok {
		return nil, nil
	}
	switch ranged.Type().Underlying().(type) {
	case *types.Slice, *types.Map, *types.Array:
	default:
		return nil, nil
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
	release := func(e ast.Expr) *ast.CallExpr {
		call, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok {
			return nil
		}
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && releaseNamed(sel.Sel.Name) && element(sel.X) {
			return call
		}
		return nil
	}
	var releases func(s ast.Stmt) *ast.CallExpr
	releases = func(s ast.Stmt) *ast.CallExpr {
		switch s := s.(type) {
		case *ast.ExprStmt:
			return release(s.X)
		case *ast.AssignStmt:
			if len(s.Rhs) == 1 {
				return release(s.Rhs[0])
			}
		case *ast.IfStmt:
			if s.Init != nil {
				return releases(s.Init) // if err := f.Close(); err != nil { … }
			}
			// if f != nil { f.Close() }: a nil element holds nothing.
			if s.Else == nil && len(s.Body.List) == 1 && comparedNotNil(info, s.Cond, element) {
				return releases(s.Body.List[0])
			}
		}
		return nil
	}
	for _, s := range body.List {
		if r := releases(s); r != nil {
			return ranged, r
		}
		if mayLeave(info, s) {
			return nil, nil
		}
	}
	return nil, nil
}

// rangeReleased is loopReleased for a range statement, the local alone.
func rangeReleased(info *types.Info, rs *ast.RangeStmt, releaseNamed func(string) bool) types.Object {
	o, _ := loopReleased(info, rs, releaseNamed)
	return o
}

// indexLoop returns the slice a for loop goes over by index from one end to the other, and
// its index variable: s and i of for i := 0; i < len(s); i++ and of for i := len(s) - 1; i >=
// 0; i--. Nil for any other loop.
func indexLoop(info *types.Info, l *ast.ForStmt) (ast.Expr, types.Object) {
	init, ok := l.Init.(*ast.AssignStmt)
	post, ok2 := l.Post.(*ast.IncDecStmt)
	cond, ok3 := ast.Unparen(l.Cond).(*ast.BinaryExpr)
	if !ok || !ok2 || !ok3 || len(init.Lhs) != 1 || len(init.Rhs) != 1 || init.Tok != token.DEFINE {
		return nil, nil
	}
	id, _ := init.Lhs[0].(*ast.Ident)
	i := info.Defs[id]
	if i == nil || !isIdentOf(info, post.X, i) || !isIdentOf(info, cond.X, i) {
		return nil, nil
	}
	lenOf := func(e ast.Expr) ast.Expr { // s of len(s)
		call, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok {
			return nil
		}
		if b, ok := info.Uses[calleeIdent(call)].(*types.Builtin); ok && b.Name() == "len" && len(call.Args) == 1 {
			return call.Args[0]
		}
		return nil
	}
	isInt := func(e ast.Expr, v int64) bool {
		tv, ok := info.Types[e]
		if !ok || tv.Value == nil || tv.Value.Kind() != constant.Int {
			return false // for i := start; …: not a constant
		}
		n, exact := constant.Int64Val(tv.Value)
		return exact && n == v
	}
	switch {
	case post.Tok == token.INC && cond.Op == token.LSS && isInt(init.Rhs[0], 0):
		return lenOf(cond.Y), i // for i := 0; i < len(s); i++
	case post.Tok == token.DEC && cond.Op == token.GEQ && isInt(cond.Y, 0):
		if b, ok := ast.Unparen(init.Rhs[0]).(*ast.BinaryExpr); ok && b.Op == token.SUB && isInt(b.Y, 1) {
			return lenOf(b.X), i // for i := len(s) - 1; i >= 0; i--
		}
	}
	return nil, nil
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
			if o, _ := loopReleased(info, s, releaseNamed); o != nil && o == param {
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

// deferredLoops applies the loops of a deferred closure that release element by element
// (loopReleased) over a local of the function: each releases what that local holds when the
// closure runs, under the conditions the closure puts around it (if keep { return }, if !ok {
// for … }), as guardOf reads them for a release of its own.
func (w *walker) deferredLoops(lit *ast.FuncLit, st *state) {
	info := w.p.pass.TypesInfo
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.RangeStmt, *ast.ForStmt:
		default:
			return true
		}
		o, r := loopReleased(info, n.(ast.Stmt), w.a.releaseNamed)
		if o == nil || !isLocal(o, w.body) || o.Pos() >= lit.Pos() && o.Pos() < lit.End() || w.p.changesOf(w.fnNode).escaped[o] {
			return false
		}
		w.releasedLoop = n
		c, g := w.guardOf(lit, r)
		w.releasedLoop = nil
		held := condRelease{fnVar: o, viaAlias: true} // what o holds at the return
		switch g {
		case deferUnconditional:
			st.conds = append(st.conds, held)
		case deferConditional:
			st.conds = append(st.conds, held.conjoin(c))
		}
		return false
	})
}
