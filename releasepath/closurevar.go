package releasepath

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
)

// closureVars returns the local variables of body bound once to a function literal, v :=
// func(…) {…} or var v = func(…) {…}, and never assigned again or address-taken in body: a
// call of v runs that literal. Computed once per body.
func (p *pkgChecker) closureVars(body *ast.BlockStmt) map[types.Object]*ast.FuncLit {
	if m, ok := p.closures[body]; ok {
		return m
	}
	info := p.pass.TypesInfo
	m := map[types.Object]*ast.FuncLit{}
	bind := func(id *ast.Ident, e ast.Expr) {
		if lit, ok := ast.Unparen(e).(*ast.FuncLit); ok && info.Defs[id] != nil {
			m[info.Defs[id]] = lit
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) == len(n.Rhs) {
				for i, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						bind(id, n.Rhs[i])
					}
				}
			}
		case *ast.ValueSpec:
			if len(n.Names) == len(n.Values) {
				for i, id := range n.Names {
					bind(id, n.Values[i])
				}
			}
		}
		return true
	})
	for o := range assignedIn(info, body) {
		delete(m, o) // v = other, &v: a call of v may run anything
	}
	if p.closures == nil {
		p.closures = map[*ast.BlockStmt]map[types.Object]*ast.FuncLit{}
	}
	p.closures[body] = m
	return m
}

// calledLiteral returns the function literal a call runs: the literal itself, called where
// it is written, or the one a closure variable of body is bound to.
func (p *pkgChecker) calledLiteral(call *ast.CallExpr, body *ast.BlockStmt) *ast.FuncLit {
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.FuncLit:
		return f
	case *ast.Ident:
		return p.closureVars(body)[p.pass.TypesInfo.Uses[f]]
	}
	return nil
}

// closureCallReleases adds to a's releases the calls of closure variables that release it:
// closeIt(f) for closeIt := func(c io.Closer) { c.Close() }, whose literal releases the
// parameter the call passes the acquired value, and cleanup() for cleanup := func() {
// l.Release() }, declared before the acquisition or after it. A call that passes another
// value releases nothing of a.
func (p *pkgChecker) closureCallReleases(a *acquisition, all []callInfo, body *ast.BlockStmt) {
	info := p.pass.TypesInfo
	vars := p.closureVars(body)
	if len(vars) == 0 {
		return
	}
	for _, c := range all {
		id, ok := ast.Unparen(c.call.Fun).(*ast.Ident)
		if !ok {
			continue
		}
		lit := vars[info.Uses[id]]
		if lit == nil || exclusiveBranches(a.stmtStack, c.stack) {
			continue
		}
		params := litParams(info, lit)
		for _, r := range a.releases {
			if !within(lit.Body, r.call) || !unconditional(info, r.stack, lit.Body, r.call, nil) {
				continue // func() { if verbose { s.mu.Unlock() } }: a call may release nothing
			}
			if p.passesRelease(a, c.call, r, params) {
				a.releases = append(a.releases, &releaseCall{call: c.call, stack: c.stack, text: id.Name})
				break
			}
		}
	}
}

// passesRelease reports whether call, of a literal with these parameters, makes the literal's
// release r release a: r is on no parameter (the literal captured the value), or on one the
// call passes the acquired value, the lock itself (unlock(&p.mu)) or its receiver's root.
func (p *pkgChecker) passesRelease(a *acquisition, call *ast.CallExpr, r *releaseCall, params []types.Object) bool {
	info := p.pass.TypesInfo
	on := releaseParams(info, r.call, params)
	for _, i := range on {
		if i >= len(call.Args) {
			continue
		}
		if k, ok := exprKey(info, call.Args[i]); ok && a.recvKey != "" && k == a.recvKey {
			return true
		}
		if id, ok := ast.Unparen(call.Args[i]).(*ast.Ident); ok {
			if v := info.Uses[id]; v != nil && (a.values[v] || a.basic[v] || v == rootObj(info, receiver(info, a.call))) {
				return true
			}
		}
	}
	return len(on) == 0
}

// releaseParams returns the indices of the parameters a release call is made on or with.
func releaseParams(info *types.Info, call *ast.CallExpr, params []types.Object) []int {
	var on []int
	for _, e := range append([]ast.Expr{receiver(info, call)}, call.Args...) {
		if o := rootObj(info, e); o != nil {
			if i := slices.Index(params, o); i >= 0 {
				on = append(on, i)
			}
		}
	}
	return on
}

// litParams returns the parameters of lit in order, nil for an unnamed one.
func litParams(info *types.Info, lit *ast.FuncLit) []types.Object {
	var params []types.Object
	for _, f := range lit.Type.Params.List {
		for _, id := range f.Names {
			params = append(params, info.Defs[id])
		}
		if len(f.Names) == 0 {
			params = append(params, nil)
		}
	}
	return params
}

// capturedRelease reports whether lit releases what it captured, not what a parameter is
// passed: cleanup := func() { l.Release() } releases whenever it is called, closeIt :=
// func(c io.Closer) { c.Close() } only what each call passes it (closureCallReleases).
func (w *walker) capturedRelease(lit *ast.FuncLit) bool {
	info := w.p.pass.TypesInfo
	params := litParams(info, lit)
	for _, r := range w.litReleases(lit) {
		if _, g := w.guardOf(lit, r); g == deferUnconditional && len(releaseParams(info, r, params)) == 0 {
			return true
		}
	}
	return false
}

// unconditional reports whether call, with its ancestors stack, runs whenever body (one of
// them) runs: no loop, switch, select or function literal between them, not the right of
// an && or ||, and no if unless call is in its init or condition or under a nil guard (if c
// != nil { c.Close() }) or a test of a flag in trueFlags, which a summary assumes true (if
// freeTurn { p.freeTurn() }).
func unconditional(info *types.Info, stack []ast.Node, body ast.Node, call *ast.CallExpr, trueFlags map[types.Object]bool) bool {
	in := false
	for _, n := range stack {
		if n == body {
			in = true
			continue
		}
		if !in {
			continue
		}
		switch n := n.(type) {
		case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt,
			*ast.CaseClause, *ast.CommClause, *ast.FuncLit:
			return false
		case *ast.BinaryExpr:
			if (n.Op == token.LAND || n.Op == token.LOR) && within(n.Y, call) {
				return false // verbose || c.Close() == nil may not evaluate it
			}
		case *ast.IfStmt:
			if within(n.Body, call) && (comparesToNil(info, n.Cond) || isTrueFlag(info, n.Cond, trueFlags)) {
				continue
			}
			if within(n.Body, call) || (n.Else != nil && within(n.Else, call)) {
				return false
			}
		}
	}
	return in
}

// comparesToNil reports whether cond is x != nil for an x that is no error: a nil guard on
// a handle. if err != nil is a condition.
func comparesToNil(info *types.Info, cond ast.Expr) bool {
	b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok || b.Op != token.NEQ || isNilIdent(info, b.X) == isNilIdent(info, b.Y) {
		return false
	}
	x := b.X
	if isNilIdent(info, x) {
		x = b.Y
	}
	t := info.TypeOf(x)
	return t != nil && !isError(t)
}

// flagSettledRelease reports whether call runs a closure variable's literal whose release of
// the acquisition is under ok flags (isFlag) whose values the path knows, and that hold:
// reject := func(err error) { if held { q.unhold(id) } } called after held = true. A flag the
// path has not settled releases nothing here.
func (w *walker) flagSettledRelease(call *ast.CallExpr, st *state) bool {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	lit := w.p.closureVars(w.body)[w.p.pass.TypesInfo.Uses[id]]
	if lit == nil {
		return false
	}
	params := litParams(w.p.pass.TypesInfo, lit)
	for _, r := range w.a.releases {
		if !within(lit.Body, r.call) || inNestedLit(r.stack, lit) || len(releaseParams(w.p.pass.TypesInfo, r.call, params)) > 0 {
			continue // in a literal of its own, or on what a parameter is passed (closureCallReleases)
		}
		if c, g := w.guardOf(lit, r.call); g == deferConditional && flagsSettled(c, st) {
			return true
		}
	}
	return false
}

// inNestedLit reports whether stack, the ancestors of a call inside lit, holds another
// function literal below lit: the call runs only when that literal is called.
func inNestedLit(stack []ast.Node, lit *ast.FuncLit) bool {
	in := false
	for _, n := range stack {
		if n == lit {
			in = true
			continue
		}
		if _, ok := n.(*ast.FuncLit); ok && in {
			return true
		}
	}
	return false
}

// flagsSettled reports whether every term of c is an ok flag whose value on the path is
// known and is the one c runs under.
func flagsSettled(c condRelease, st *state) bool {
	for ; ; c = *c.and {
		v, known := st.flags[c.flag]
		if c.flag == nil || !known || v != c.when {
			return false
		}
		if c.and == nil {
			return true
		}
	}
}
