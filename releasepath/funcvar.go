package releasepath

import (
	"go/ast"
	"go/token"
	"go/types"
)

// deferredVarCall returns the local function variable that lit, a deferred closure, calls
// whenever it runs: unlockFn() as a statement of its body, or alone in if unlockFn != nil
// { unlockFn() }, with nothing before it that may leave the closure. What the call releases
// is what the variable holds when the closure runs, at the return: the search follows the
// variable (st.clos), so defer func() { if unlockFn != nil { unlockFn() } }() releases
// after unlockFn = r.stopReading, not after unlockFn = nil. Nil when lit makes no such call.
func (w *walker) deferredVarCall(lit *ast.FuncLit) types.Object {
	info := w.p.pass.TypesInfo
	local := func(e ast.Expr) types.Object {
		id, ok := ast.Unparen(e).(*ast.Ident)
		if !ok {
			return nil
		}
		o, ok := info.Uses[id].(*types.Var)
		if !ok || !isLocal(o, w.body) || within(lit, id) && o.Pos() >= lit.Pos() && o.Pos() < lit.End() {
			return nil
		}
		if _, ok := o.Type().Underlying().(*types.Signature); !ok {
			return nil
		}
		return o
	}
	called := func(s ast.Stmt) types.Object {
		es, ok := s.(*ast.ExprStmt)
		if !ok {
			return nil
		}
		call, ok := ast.Unparen(es.X).(*ast.CallExpr)
		if !ok || len(call.Args) > 0 {
			return nil
		}
		return local(call.Fun)
	}
	for _, s := range lit.Body.List {
		if o := called(s); o != nil {
			return o
		}
		if ifs, ok := s.(*ast.IfStmt); ok && ifs.Init == nil && ifs.Else == nil && len(ifs.Body.List) == 1 {
			if o := called(ifs.Body.List[0]); o != nil && notNilTest(info, ifs.Cond, o) {
				return o
			}
		}
		if mayLeave(info, s) {
			return nil
		}
	}
	return nil
}

// notNilTest reports whether cond is o != nil.
func notNilTest(info *types.Info, cond ast.Expr, o types.Object) bool {
	c, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok || c.Op != token.NEQ {
		return false
	}
	x, y := c.X, c.Y
	if isNilIdent(info, x) {
		x, y = y, x
	}
	return isIdentOf(info, x, o) && isNilIdent(info, y)
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
