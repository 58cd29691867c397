package releasepath

import (
	"go/ast"
	"go/types"
	"slices"
)

// resultholds: a function of the package whose result holds one of its parameters, or its
// receiver, hands that value on to whoever gets the result. pgx's c.getPoolRows(rows)
// returns rows that keep c, to release it when they close: return c.getPoolRows(rows), nil
// hands the acquired c to the caller. A result holds a value when it is the value, a
// composite literal with it (&poolRows{c: c}), a local the function stores it in (pr.c = c;
// return pr), or the result of such a call of the package that is passed it.

// resultHolds returns the parameters (-1 the receiver) that a result of fn, a function of
// the package, holds on some return. It is computed once; a cycle of calls proves nothing.
func (p *pkgChecker) resultHolds(fn *types.Func) map[int]bool {
	fn = fn.Origin()
	if fn.Pkg() != p.pass.Pkg {
		return nil
	}
	if h, ok := p.kept[fn]; ok {
		return h
	}
	if p.kept == nil {
		p.kept = map[*types.Func]map[int]bool{}
	}
	p.kept[fn] = nil // a cycle proves nothing
	decl := p.decls[fn]
	if decl == nil {
		return nil
	}
	info := p.pass.TypesInfo
	params := declParams(info, decl)
	// stored maps each local to the parameters the function stores in it or in a field of
	// it: pr.c = c, pr := &poolRows{c: c}.
	stored := map[types.Object]map[int]bool{}
	store := func(lhs, rhs ast.Expr) {
		root := rootObj(info, lhs)
		if root == nil || !isLocal(root, decl.Body) {
			return
		}
		for idx := range p.exprHolds(rhs, params, nil) {
			if stored[root] == nil {
				stored[root] = map[int]bool{}
			}
			stored[root][idx] = true
		}
	}
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			// x.init(c), for a method that stores its argument in its receiver.
			if r := receiver(info, n); r != nil {
				if fn, ok := typeInfoCallee(info, n); ok {
					if wi := p.wrapper(fn); wi != nil {
						for j, arg := range n.Args {
							if wi.keeps[j] == storedInRecv {
								store(r, arg)
							}
						}
					}
				}
			}
		case *ast.AssignStmt:
			if len(n.Lhs) == len(n.Rhs) {
				for k := range n.Lhs {
					store(n.Lhs[k], n.Rhs[k])
				}
			} else if call, ok := ast.Unparen(n.Rhs[0]).(*ast.CallExpr); ok && len(n.Rhs) == 1 {
				// f, err := createContainer(rw, co): f holds what that result of the call
				// holds.
				for k, l := range n.Lhs {
					if t := info.TypeOf(l); t != nil && !isError(t) && !isBasic(t) {
						for _, arg := range p.heldArgsAt(call, k) {
							store(l, arg)
						}
					}
				}
			}
		case *ast.ValueSpec:
			if len(n.Names) == len(n.Values) {
				for k := range n.Names {
					store(n.Names[k], n.Values[k])
				}
			}
		}
		return true
	})
	out, at := p.returnedHolds(decl, fn.Type().(*types.Signature).Results().Len(), params, stored)
	p.kept[fn] = out
	if p.keptAt == nil {
		p.keptAt = map[*types.Func][]map[int]bool{}
	}
	p.keptAt[fn] = at
	return out
}

// heldArgsAt returns the receiver and arguments of call, of a function of the package, that
// its result i holds.
func (p *pkgChecker) heldArgsAt(call *ast.CallExpr, i int) []ast.Expr {
	info := p.pass.TypesInfo
	fn, ok := typeInfoCallee(info, call)
	if !ok {
		return nil
	}
	held := p.resultHolds(fn)
	if i >= 0 {
		held = p.resultHoldsAt(fn, i)
	}
	var out []ast.Expr
	if r := receiver(info, call); r != nil && held[-1] {
		out = append(out, r)
	}
	for j, arg := range call.Args {
		if held[j] {
			out = append(out, arg)
		}
	}
	return out
}

// heldArgs returns the receiver and arguments of call, of a function of the package, that
// one of its results holds.
func (p *pkgChecker) heldArgs(call *ast.CallExpr) []ast.Expr {
	return p.heldArgsAt(call, -1)
}

// resultHoldsAt is resultHolds for fn's result i alone: st, _, err := split(fd) keeps in st
// only what split's first result holds. For another package's function it is read from the
// function's fact, which lists it for a function of several results.
func (p *pkgChecker) resultHoldsAt(fn *types.Func, i int) map[int]bool {
	if fn.Pkg() != nil && fn.Pkg() != p.pass.Pkg {
		wi := p.wrapper(fn)
		if wi == nil || len(wi.holdsAt[i]) == 0 {
			return nil
		}
		out := map[int]bool{}
		for _, j := range wi.holdsAt[i] {
			out[j] = true
		}
		return out
	}
	p.resultHolds(fn)
	if at := p.keptAt[fn.Origin()]; i < len(at) {
		return at[i]
	}
	return nil
}

// returnedHolds returns the parameters decl's returns hold (stored: what its locals hold),
// in any result and by result (nres results).
func (p *pkgChecker) returnedHolds(decl *ast.FuncDecl, nres int, params map[types.Object]int, stored map[types.Object]map[int]bool) (map[int]bool, []map[int]bool) {
	out := map[int]bool{}
	at := make([]map[int]bool, nres)
	for i := range at {
		at[i] = map[int]bool{}
	}
	for ret := range ownReturns(decl.Body) {
		for i, r := range ret.Results {
			for idx := range p.exprHolds(r, params, stored) {
				out[idx] = true
				if len(ret.Results) == nres {
					at[i][idx] = true
				} else {
					for j := range at { // return f(x): any of f's results
						at[j][idx] = true
					}
				}
			}
		}
	}
	return out, at
}

// exprHolds returns the parameters e holds, by params: a parameter itself, inside a composite
// literal, a local they were stored in (stored), or passed to a function of the package whose
// result holds what it is passed there.
func (p *pkgChecker) exprHolds(e ast.Expr, params map[types.Object]int, stored map[types.Object]map[int]bool) map[int]bool {
	info := p.pass.TypesInfo
	out := map[int]bool{}
	var visit func(e ast.Expr)
	visit = func(e ast.Expr) {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			o := info.ObjectOf(x)
			if idx, ok := params[o]; ok {
				out[idx] = true
			}
			for idx := range stored[o] {
				out[idx] = true
			}
		case *ast.UnaryExpr:
			visit(x.X)
		case *ast.CompositeLit:
			for _, el := range x.Elts {
				visit(el)
			}
		case *ast.KeyValueExpr:
			visit(x.Value)
		case *ast.CallExpr:
			fn, ok := typeInfoCallee(info, x)
			if !ok {
				return
			}
			held := p.resultHolds(fn)
			if held[-1] {
				if r := receiver(info, x); r != nil {
					visit(r)
				}
			}
			for j, arg := range x.Args {
				if held[j] {
					visit(arg)
				}
			}
		}
	}
	visit(e)
	return out
}

// resultHoldsValue reports, for a call of a function of the package with a body, whether its
// result holds the value: the value is its receiver or an argument whose parameter the
// result holds (known). known is false for any other call, which holds says nothing of.
func (w *walker) resultHoldsValue(call *ast.CallExpr, holds func(ast.Expr) bool) (held, known bool) {
	fn, ok := typeInfoCallee(w.p.pass.TypesInfo, call)
	if !ok || fn.Pkg() != w.p.pass.Pkg || w.p.decls[fn.Origin()] == nil {
		return false, false
	}
	return w.resultHolds(call, fn, holds), true
}

func (w *walker) resultHolds(call *ast.CallExpr, fn *types.Func, holds func(ast.Expr) bool) bool {
	held := w.p.resultHolds(fn)
	if held[-1] {
		if r := receiver(w.p.pass.TypesInfo, call); r != nil && holds(r) {
			return true
		}
	}
	for j, arg := range call.Args {
		if held[j] && holds(arg) {
			return true
		}
	}
	return false
}

// tupleHolds returns, for fn of several results, the parameters each result holds, for its
// fact; nil when none does. Only a result that is neither an error nor of a basic type can
// hold anything, and only a receiver or parameter that is not of a basic type can be held:
// the summary is computed for such a function alone.
func (p *pkgChecker) tupleHolds(fn *types.Func) map[int][]int {
	sig := fn.Type().(*types.Signature)
	if sig.Results().Len() < 2 || !canHold(sig.Results()) {
		return nil
	}
	if (sig.Recv() == nil || isBasic(sig.Recv().Type())) && !canHold(sig.Params()) {
		return nil
	}
	var out map[int][]int
	for i := range sig.Results().Len() {
		for j := range p.resultHoldsAt(fn, i) {
			if out == nil {
				out = map[int][]int{}
			}
			out[i] = append(out[i], j)
		}
		slices.Sort(out[i])
	}
	return out
}

// canHold reports whether one of vars is neither an error nor of a basic type.
func canHold(vars *types.Tuple) bool {
	for v := range vars.Variables() {
		if t := v.Type(); !isError(t) && !isBasic(t) {
			return true
		}
	}
	return false
}
