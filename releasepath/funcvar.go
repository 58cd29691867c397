package releasepath

import (
	"go/ast"
	"go/token"
	"go/types"
)

// deferredVarCall returns the local variable whose value lit, a deferred closure, releases
// whenever it runs: a function variable it calls (unlockFn() as a statement of its body,
// or alone in if unlockFn != nil { unlockFn() }), or, with alias set, a local on which it
// calls a method of the release's name (output.Close()), with nothing before it that may
// leave the closure. What the call releases is what the variable holds when the closure
// runs, at the return: the search follows the variable (st.clos, st.aliases), so defer
// func() { if unlockFn != nil { unlockFn() } }() releases after unlockFn = r.stopReading,
// not after unlockFn = nil. Nil when lit makes no such call.
func (w *walker) deferredVarCall(lit *ast.FuncLit) (v types.Object, alias bool) {
	info := w.p.pass.TypesInfo
	local := func(e ast.Expr) types.Object {
		id, ok := ast.Unparen(e).(*ast.Ident)
		if !ok {
			return nil
		}
		o, ok := info.Uses[id].(*types.Var)
		if !ok || !isLocal(o, w.body) || o.Pos() >= lit.Pos() && o.Pos() < lit.End() || w.p.changesOf(w.fnNode).escaped[o] {
			return nil // the closure's own, or changed where the path cannot see (clear(&unlockFn))
		}
		return o
	}
	called := func(s ast.Stmt) (types.Object, bool) {
		es, ok := s.(*ast.ExprStmt)
		if !ok {
			return nil, false
		}
		call, ok := ast.Unparen(es.X).(*ast.CallExpr)
		if !ok {
			return nil, false
		}
		if len(call.Args) > 0 {
			if arg := w.p.rangeReleasesArg(call, w.a.releaseNamed); arg != nil && local(arg) != nil {
				return local(arg), true // closeFiles(files): each file files holds (rangerelease)
			}
			return nil, false
		}
		if o := local(call.Fun); o != nil {
			if _, isFunc := o.Type().Underlying().(*types.Signature); isFunc {
				return o, false // unlockFn()
			}
		}
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && w.a.releaseNamed(sel.Sel.Name) {
			if o := local(sel.X); o != nil && !w.a.values[o] {
				return o, true // output.Close()
			}
		}
		return nil, false
	}
	for _, s := range lit.Body.List {
		if o, alias := called(s); o != nil {
			return o, alias
		}
		if ifs, ok := s.(*ast.IfStmt); ok && ifs.Init == nil && ifs.Else == nil && len(ifs.Body.List) == 1 {
			if o, alias := called(ifs.Body.List[0]); o != nil && notNilTest(info, ifs.Cond, o) {
				return o, alias
			}
		}
		if mayLeave(info, s) {
			return nil, false
		}
	}
	return nil, false
}

// notNilTest reports whether cond is o != nil.
func notNilTest(info *types.Info, cond ast.Expr, o types.Object) bool {
	return comparedNotNil(info, cond, func(e ast.Expr) bool { return isIdentOf(info, e, o) })
}

// comparedNotNil reports whether cond is e != nil (or nil != e) for an e that is accepts.
func comparedNotNil(info *types.Info, cond ast.Expr, is func(ast.Expr) bool) bool {
	c, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok || c.Op != token.NEQ {
		return false
	}
	x, y := c.X, c.Y
	if isNilIdent(info, x) {
		x, y = y, x
	}
	return is(x) && isNilIdent(info, y)
}

// takenBack reports whether the statement of release r is followed, in its own block, by a
// statement that takes the same lock again the way the acquisition did: r.mu.RUnlock();
// unlockFn = r.lockfile.Unlock; …; r.mu.RLock(). Such a release lets go for a while and
// says nothing of what the function returns.
func (w *walker) takenBack(r *releaseCall) bool {
	if w.a.recvKey == "" {
		return false
	}
	info := w.p.pass.TypesInfo
	for k := len(r.stack) - 2; k >= 0; k-- {
		list, ok := stmtList(r.stack[k])
		if !ok {
			continue
		}
		after := false
		for _, s := range list {
			if s == r.stack[k+1] {
				after = true
				continue
			}
			es, ok := s.(*ast.ExprStmt)
			if !after || !ok {
				continue
			}
			call, ok := ast.Unparen(es.X).(*ast.CallExpr)
			if !ok {
				continue
			}
			fn, _ := typeInfoCallee(info, call)
			if k, ok := recvKeyOf(info, call); ok && fn != nil && fn.Name() == w.a.name && k == w.a.recvKey {
				return true
			}
		}
		return false
	}
	return false
}
