package releasepath

import (
	"go/ast"
	"go/types"
	"slices"
)

// sureAssertion reports whether the edge of cond cannot be taken because cond is the ok of
// a type assertion that cannot fail, on its false edge: tlsConn, ok := conn.(*tls.Conn)
// right after conn = tls.Client(…), whose value is a *tls.Conn (goproxy's transport). The
// statement before the assertion must give the variable a value of the asserted type
// itself, a concrete one, and ok must be assigned nowhere else.
func (w *walker) sureAssertion(cond ast.Expr, edge bool) bool {
	if edge {
		return false
	}
	id, ok := ast.Unparen(cond).(*ast.Ident)
	if !ok {
		return false
	}
	o := w.p.pass.TypesInfo.Uses[id]
	if o == nil || !isBool(o.Type()) {
		return false
	}
	if v, ok := w.sure[o]; ok {
		return v
	}
	if w.sure == nil {
		w.sure = map[types.Object]bool{}
	}
	w.sure[o] = w.assertsJustAssigned(o)
	return w.sure[o]
}

// assertsJustAssigned reports whether okVar is assigned once, by x, ok := v.(T) for a
// concrete T, and the statement before it (before its if, for an if's init) assigns v a
// value of type T.
func (w *walker) assertsJustAssigned(okVar types.Object) bool {
	info := w.p.pass.TypesInfo
	if !assignsOnce(info, w.body, okVar) {
		return false
	}
	var as *ast.AssignStmt
	ast.Inspect(w.body, func(n ast.Node) bool {
		if a, isAs := n.(*ast.AssignStmt); isAs && len(a.Lhs) == 2 && len(a.Rhs) == 1 {
			if id, isID := ast.Unparen(a.Lhs[1]).(*ast.Ident); isID && info.ObjectOf(id) == okVar {
				as = a
			}
		}
		return as == nil
	})
	if as == nil {
		return false
	}
	ta, isTA := ast.Unparen(as.Rhs[0]).(*ast.TypeAssertExpr)
	if !isTA || ta.Type == nil {
		return false
	}
	v, isID := ast.Unparen(ta.X).(*ast.Ident)
	t := info.TypeOf(ta.Type)
	if !isID || t == nil || types.IsInterface(t) {
		return false
	}
	var stmt ast.Stmt = as
	path := pathTo(w.body, as)
	if len(path) >= 2 {
		if is, ok := path[len(path)-2].(*ast.IfStmt); ok && is.Init == as {
			stmt, path = is, path[:len(path)-1] // if tc, ok := c.(*tls.Conn); !ok { … }
		}
	}
	if len(path) < 2 {
		return false
	}
	list, _ := stmtList(path[len(path)-2])
	i := slices.Index(list, stmt)
	if i < 1 {
		return false
	}
	prev, isAs := list[i-1].(*ast.AssignStmt)
	if !isAs || len(prev.Lhs) != len(prev.Rhs) {
		return false
	}
	for j, l := range prev.Lhs {
		if lid, ok := ast.Unparen(l).(*ast.Ident); ok && info.ObjectOf(lid) == info.Uses[v] {
			return types.Identical(info.TypeOf(prev.Rhs[j]), t)
		}
	}
	return false
}
