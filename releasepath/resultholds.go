package releasepath

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
)

// resultholds: a function of the package whose result holds one of its parameters, or its
// receiver, hands that value on to whoever gets the result. pgx's c.getPoolRows(rows)
// returns rows that keep c, to release it when they close: return c.getPoolRows(rows), nil
// hands the acquired c to the caller. A result holds a value when it is the value, a
// composite literal with it (&poolRows{c: c}), a local the function stores it in (pr.c = c;
// return pr), or the result of such a call of the package that is passed it.

// heldBy is what the results of a function hold of its parameters (-1 the receiver): in
// any result, and by result.
type heldBy struct {
	any map[int]bool
	at  []map[int]bool
}

// resultHolds returns the parameters (-1 the receiver) that a result of fn, a function of
// the package, holds on some return.
func (p *pkgChecker) resultHolds(fn *types.Func) map[int]bool {
	if h := p.resultSummary(fn, false); h != nil {
		return h.any
	}
	return nil
}

// resultSummary computes what fn's results hold, once for each flavour; a cycle of calls
// proves nothing. With parts, a field of a parameter counts as the parameter (return
// &resp{body: c.rwc} holds a part of c): that reads a result for a caller whose argument
// holds the value in a field (client := client{rwc: conn}), of which a part may be the
// value; for a caller whose argument is the value itself, a part of it is not it
// (c.dataOnly()).
func (p *pkgChecker) resultSummary(fn *types.Func, parts bool) *heldBy {
	fn = fn.Origin()
	if fn.Pkg() != p.pass.Pkg {
		return nil
	}
	cache := &p.kept
	if parts {
		cache = &p.keptParts
	}
	if h, ok := (*cache)[fn]; ok {
		return h
	}
	if *cache == nil {
		*cache = map[*types.Func]*heldBy{}
	}
	(*cache)[fn] = nil // a cycle proves nothing
	decl := p.decls[fn]
	if decl == nil {
		return nil
	}
	info := p.pass.TypesInfo
	params := declParams(info, decl)
	// stored maps each local, and each named result, to the parameters the function stores
	// in it or in a field of it: pr.c = c, pr := &poolRows{c: c}, resp.Body = closer.
	stored := map[types.Object]map[int]bool{}
	var named []types.Object // the named results, in order, for a bare return
	if decl.Type.Results != nil {
		for _, f := range decl.Type.Results.List {
			for _, id := range f.Names {
				named = append(named, info.Defs[id])
			}
		}
	}
	store := func(lhs, rhs ast.Expr) {
		root := rootObj(info, lhs)
		if root == nil || !isLocal(root, decl.Body) && !slices.Contains(named, root) {
			return
		}
		for idx := range p.exprHolds(rhs, params, stored, parts) {
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
						for _, arg := range p.heldArgsAt(call, k, parts) {
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
	out, at := p.returnedHolds(decl, named, params, stored, parts)
	h := &heldBy{any: out, at: at}
	(*cache)[fn] = h
	return h
}

// heldArgsAt returns the receiver and arguments of call that its result i holds (any
// result for i -1), or, with parts, a field of which it holds.
func (p *pkgChecker) heldArgsAt(call *ast.CallExpr, i int, parts bool) []ast.Expr {
	info := p.pass.TypesInfo
	fn, ok := typeInfoCallee(info, call)
	if !ok {
		return nil
	}
	held := p.resultHoldsAt(fn, i, parts)
	var out []ast.Expr
	if r := receiver(info, call); r != nil && held[-1] {
		out = append(out, r)
	}
	for j, arg := range call.Args {
		if held[argParam(fn, j)] {
			out = append(out, arg)
		}
	}
	return out
}

// argParam returns the index of fn's parameter that a call's argument j is passed to: j, or
// the variadic parameter for every argument from it on (lib.Collect(os.Stdout, fd)).
func argParam(fn *types.Func, j int) int {
	sig := fn.Type().(*types.Signature)
	if n := sig.Params().Len(); sig.Variadic() && j >= n-1 {
		return n - 1
	}
	return j
}

// resultHoldsAt is resultHolds for fn's result i alone (any result for i -1): st, _, err :=
// split(fd) keeps in st only what split's first result holds. For another package's
// function it is read from the function's fact, which lists it for a function of several
// results and whole parameters only.
func (p *pkgChecker) resultHoldsAt(fn *types.Func, i int, parts bool) map[int]bool {
	if fn.Pkg() != nil && fn.Pkg() != p.pass.Pkg {
		wi := p.wrapper(fn)
		if wi == nil {
			return nil
		}
		out := map[int]bool{}
		for k, held := range wi.holdsAt {
			if i < 0 || k == i {
				for _, j := range held {
					out[j] = true
				}
			}
		}
		return out
	}
	h := p.resultSummary(fn, parts)
	switch {
	case h == nil:
		return nil
	case i < 0:
		return h.any
	case i < len(h.at):
		return h.at[i]
	}
	return nil
}

// returnedHolds returns the parameters decl's returns hold (stored: what its locals and
// named results hold), in any result and by result; a bare return returns the named results.
func (p *pkgChecker) returnedHolds(decl *ast.FuncDecl, named []types.Object, params map[types.Object]int, stored map[types.Object]map[int]bool, parts bool) (map[int]bool, []map[int]bool) {
	info := p.pass.TypesInfo
	nres := info.Defs[decl.Name].Type().(*types.Signature).Results().Len()
	out := map[int]bool{}
	at := make([]map[int]bool, nres)
	for i := range at {
		at[i] = map[int]bool{}
	}
	for ret := range ownReturns(decl.Body) {
		if len(ret.Results) == 0 && len(named) == nres {
			for i, o := range named { // h = &Holder{W: w}; return
				for idx := range stored[o] {
					out[idx] = true
					at[i][idx] = true
				}
			}
		}
		for i, r := range ret.Results {
			for idx := range p.exprHolds(r, params, stored, parts) {
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
// result holds what it is passed there; with parts, a field of a parameter too (c.rwc).
func (p *pkgChecker) exprHolds(e ast.Expr, params map[types.Object]int, stored map[types.Object]map[int]bool, parts bool) map[int]bool {
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
		case *ast.FuncLit:
			// A closure that captures a parameter holds it: func() io.Writer { return w }.
			ast.Inspect(x.Body, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok {
					if idx, ok := params[info.Uses[id]]; ok {
						out[idx] = true
					}
				}
				return true
			})
		case *ast.SelectorExpr:
			// A field that can hold a value (c.rwc, not c.reqID) is a part of c.
			if t := info.TypeOf(x); parts && t != nil && !isBasic(t) && !isError(t) &&
				info.Selections[x] != nil && info.Selections[x].Kind() == types.FieldVal {
				visit(x.X)
			}
		case *ast.CallExpr:
			if tv, ok := info.Types[x.Fun]; ok && tv.IsType() && len(x.Args) == 1 {
				visit(x.Args[0]) // a conversion: any(w)
				return
			}
			if b, ok := info.Uses[calleeIdent(x)].(*types.Builtin); ok && b.Name() == "append" {
				for _, arg := range x.Args {
					visit(arg) // append(ws, w)
				}
				return
			}
			fn, ok := typeInfoCallee(info, x)
			if !ok {
				return
			}
			if fn.Pkg() != p.pass.Pkg && !hasTupleFact(fn) {
				// Another package's function with no fact of its results is taken to hold
				// what it is passed, as the search takes it (bufio.NewWriter(w)), unless its
				// result cannot hold anything.
				if t := info.TypeOf(x); t != nil && !isError(t) && !isBasic(t) {
					if r := receiver(info, x); r != nil {
						visit(r)
					}
					for _, arg := range x.Args {
						visit(arg)
					}
				}
				return
			}
			held := p.resultHoldsAt(fn, -1, parts)
			if held[-1] {
				if r := receiver(info, x); r != nil {
					visit(r)
				}
			}
			for j, arg := range x.Args {
				if held[argParam(fn, j)] {
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
	if !ok {
		return false, false
	}
	if fn.Pkg() == w.p.pass.Pkg && w.p.decls[fn.Origin()] == nil || fn.Pkg() != w.p.pass.Pkg && !hasTupleFact(fn) {
		return false, false
	}
	return w.resultHolds(call, fn, holds), true
}

// hasTupleFact reports whether another package's fn is one whose fact says what each result
// holds (tupleHolds): exported, of several results, one of which can hold a value. Its
// fact's silence says that no result holds anything.
func hasTupleFact(fn *types.Func) bool {
	sig := fn.Type().(*types.Signature)
	return fn.Exported() && sig.Results().Len() >= 2 && canHold(sig.Results())
}

func (w *walker) resultHolds(call *ast.CallExpr, fn *types.Func, holds func(ast.Expr) bool) bool {
	held := w.p.resultHoldsAt(fn, -1, false)
	if r := receiver(w.p.pass.TypesInfo, call); r != nil && held[-1] && holds(r) {
		return true
	}
	for j, arg := range call.Args {
		if held[argParam(fn, j)] && holds(arg) {
			return true
		}
	}
	return false
}

// heldInPart reports whether e is a local that holds the value in a field (client :=
// client{rwc: conn}), not the value itself: a part of it the callee's result holds may be
// the value.
func (w *walker) heldInPart(e ast.Expr, st *state) bool {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = ast.Unparen(u.X)
	}
	id, ok := e.(*ast.Ident)
	if !ok {
		return false
	}
	o := w.p.pass.TypesInfo.Uses[id]
	return o != nil && st.aliases[o] && !w.a.values[o] && isStructHolder(o.Type())
}

// isStructHolder reports whether t is a struct or a pointer to one: a value that can hold
// another in a field.
func isStructHolder(t types.Type) bool {
	if ptr, ok := types.Unalias(t).Underlying().(*types.Pointer); ok {
		t = ptr.Elem()
	}
	_, ok := types.Unalias(t).Underlying().(*types.Struct)
	return ok
}

// partsHolder reports whether result i of call (any result for i -1), of a function of the
// package, holds a field of its receiver or of an argument that holds the value in a field
// (heldInPart): resp, err = client.Get(env) for a Get whose response body keeps c.rwc.
func (w *walker) partsHolder(call *ast.CallExpr, i int, st *state) bool {
	fn, ok := typeInfoCallee(w.p.pass.TypesInfo, call)
	if !ok || fn.Pkg() != w.p.pass.Pkg {
		return false
	}
	return slices.ContainsFunc(w.p.heldArgsAt(call, i, true), func(e ast.Expr) bool { return w.heldInPart(e, st) })
}

// tupleHolds returns, for fn of several results, the parameters each result holds, for its
// fact; nil when none does. Only a result that is neither an error nor of a basic type can
// hold anything (the summary is computed for a function with such a result alone); any
// receiver or parameter can be held, a string too (an address from a pool).
func (p *pkgChecker) tupleHolds(fn *types.Func) map[int][]int {
	sig := fn.Type().(*types.Signature)
	if !hasTupleFact(fn) || sig.Recv() == nil && sig.Params().Len() == 0 {
		return nil
	}
	var out map[int][]int
	for i := range sig.Results().Len() {
		if t := sig.Results().At(i).Type(); isError(t) || isBasic(t) {
			continue
		}
		for j := range p.resultHoldsAt(fn, i, false) {
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
