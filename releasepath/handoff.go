package releasepath

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// holds reports whether e is (or is built from) the acquired value on this path.
func (w *walker) holds(e ast.Expr, st *state) bool {
	info := w.p.pass.TypesInfo
	found := false
	var visit func(e ast.Expr)
	visit = func(e ast.Expr) {
		if found || e == nil {
			return
		}
		if w.a.recvIsResource {
			// The object that holds the reference, stored or returned whole: the new picker's
			// defaultPolicy: b.defaultPolicy after b.defaultPolicy.acquireRef().
			if k, ok := exprKey(info, e); ok && (k == w.a.recvKey || strings.HasPrefix(w.a.recvKey, k+".")) {
				found = true // or what holds it: rv after rv.i.Open()
				return
			}
		}
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			if o := info.ObjectOf(x); o != nil && (w.a.values[o] || st.aliases[o] || st.clos[o] || w.a.closureHolders[o] != nil) {
				found = true // (a closure holder holds the release, made before the acquisition too)
			} else if lit := w.p.closureVars(w.body)[o]; lit != nil && o != nil {
				visit(lit) // cleanup := func() { for _, f := range files { f.Close() } }, bound before the open
			}
		case *ast.UnaryExpr:
			if x.Op == token.AND {
				visit(x.X)
			}
		case *ast.StarExpr:
			visit(x.X)
		case *ast.TypeAssertExpr:
			visit(x.X) // tc := conn.(*tls.Conn) is conn
		case *ast.CompositeLit:
			for _, el := range x.Elts {
				visit(el)
			}
		case *ast.KeyValueExpr:
			visit(x.Value)
		case *ast.FuncLit:
			if w.litReleases(x) != nil || w.mentions(x, st) {
				found = true // a cleanup closure, or one that captures the value
			}
		case *ast.SelectorExpr:
			if w.releaseMethodValue(x, st) {
				found = true // the release as a value: return l.Unlock, nil
			}
		case *ast.CallExpr:
			if lit, ok := ast.Unparen(x.Fun).(*ast.FuncLit); ok && w.litReturnsValue(lit, st) {
				found = true // func() net.Conn { return outbound }()
				return
			}
			if w.passesValue(x, nil) && w.p.madeRelease(w.a, x) {
				found = true // &job{cleanup: closeLater(f)}: the release it makes goes with it
				return
			}
			if tv, ok := info.Types[x.Fun]; ok && tv.IsType() && len(x.Args) == 1 {
				visit(x.Args[0]) // a conversion is the value: uintptr(fd) is the descriptor fd
				return
			}
			// A constructor or conversion that wraps the value (newConn(c), append(s, v)),
			// but not a method of the value itself (f.Name()), nor a call whose result
			// cannot hold it (err = fsync(f) returns an error, not f).
			if t := info.TypeOf(x); t == nil || isError(t) || isBasic(t) {
				return
			}
			if w.holderInterfaceCall(x, info.TypeOf(x), st) {
				found = true
				return
			}
			if held, known := w.resultHoldsValue(x, func(e ast.Expr) bool { return w.holds(e, st) }); known {
				// A function of the package says what its result holds: c.getPoolRows(rows)
				// keeps c (resultholds), freshPlain(c) nothing of it.
				found = found || held || w.partsHolder(x, -1, st)
				return
			}
			if r := receiver(info, x); r != nil {
				if o := rootObj(info, r); o != nil && (w.a.values[o] || st.aliases[o]) {
					return
				}
			}
			if w.rels[x] {
				return
			}
			for _, arg := range x.Args {
				visit(arg)
			}
		}
	}
	visit(e)
	return found
}

// mentions reports whether n refers to the acquired value.
func (w *walker) mentions(n ast.Node, st *state) bool {
	info := w.p.pass.TypesInfo
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if o := info.Uses[id]; o != nil && (w.a.values[o] || st.aliases[o] || st.clos[o]) {
				found = true
			}
		}
		return !found
	})
	return found
}

// releasesWhenRun reports whether lit releases the acquisition whenever it runs: a release
// deferred in its body under no condition but a nil guard (guardOf), or releases that run
// before each of its returns and its end (dominated, as a summary's must); none in a loop,
// or inside a literal of its own unless that one is deferred or called where it is written.
func (w *walker) releasesWhenRun(lit *ast.FuncLit) bool {
	info := w.p.pass.TypesInfo
	ends := bodyEnds(lit.Body)
	covered := make([]bool, len(ends))
	for _, r := range w.a.releases {
		if !within(lit.Body, r.call) || !runsWithLit(r.stack, lit) {
			continue
		}
		if slices.ContainsFunc(r.stack, isDefer) {
			if _, g := w.guardOf(lit, r.call); g == deferUnconditional {
				return true // go func() { defer s.sem.Release(); … }()
			}
			continue
		}
		for i, ok := range dominated(info, callInfo{call: r.call, stack: r.stack}, lit.Body, ends, nil) {
			covered[i] = covered[i] || ok
		}
	}
	return !slices.Contains(covered, false)
}

// runsWithLit reports whether stack, the ancestors of a call inside lit, puts no loop and no
// function literal between lit and the call but one deferred or called where it is written:
// the call runs whenever lit's body gets past that point.
func runsWithLit(stack []ast.Node, lit *ast.FuncLit) bool {
	in := false
	for i, n := range stack {
		if n == lit {
			in = true
			continue
		}
		if !in {
			continue
		}
		switch n.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			return false
		case *ast.FuncLit:
			if call, ok := stack[i-1].(*ast.CallExpr); !ok || ast.Unparen(call.Fun) != n {
				return false // rel := func() { … }: runs only if called
			}
		}
	}
	return in
}

// litReleases returns the release calls inside lit, or nil.
func (w *walker) litReleases(lit *ast.FuncLit) []*ast.CallExpr {
	var out []*ast.CallExpr
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && w.rels[c] {
			out = append(out, c)
		}
		return true
	})
	return out
}

// calledLitReleases reports whether lit, called where it is written, releases a whenever it
// runs: a release under no condition but a guard, with no return of lit before it (func()
// { if acquired { defer p.Release() }; run(b) }()), or, searched through lit's own graph
// as the function's is, a release on every path to its ends (func() { if err := use(); err
// != nil { p.removeConn(cn, true) } else { p.putConn(cn, true) } }()). func() { if n == 0
// { return }; f.Close() }() keeps f where n is 0. The search starts from what the path
// knows where the literal is called (st): the edges it took at tests of variables the
// literal reads (if acquired { defer p.Release() } after the path took acquired's true
// edge), the flags it set, the aliases and the errors it settled; not the releases the
// function deferred, which run when the function returns, not the literal.
func (w *walker) calledLitReleases(lit *ast.FuncLit, st *state) bool {
	rels := w.litReleases(lit)
	if len(rels) == 0 && !w.callsHeldRelease(lit, st) {
		return false
	}
	for _, r := range rels {
		// A release under no condition but a guard (if acquired { defer p.Release() }), with
		// no return of lit before it, and in no literal of its own (which the search below
		// follows where lit calls it).
		nested := slices.ContainsFunc(pathTo(lit.Body, r), func(n ast.Node) bool { _, ok := n.(*ast.FuncLit); return ok })
		if _, g := w.guardOf(lit, r); g == deferUnconditional && !nested && !returnsBefore(lit.Body, r.Pos()) {
			return true
		}
	}
	sig, _ := w.p.pass.TypesInfo.TypeOf(lit).(*types.Signature)
	g := w.p.cfgs.FuncLit(lit)
	if sig == nil || g == nil || len(g.Blocks) == 0 {
		return false
	}
	sub := &walker{p: w.p, a: w.a, sig: sig, g: g, body: lit.Body, fnNode: lit, reported: map[token.Pos]bool{}}
	sub.prepare()
	sub.vars = mergeBoolVars(w.vars, sub.vars)
	in := st.clone()
	in.conds = nil
	sub.block(g.Blocks[0], 0, in)
	return len(sub.leaks) == 0
}

// callsHeldRelease reports whether lit calls a local that holds a release where lit is
// called (func() { release() }() after release := t.unlockAndCount): the search of lit's
// graph below reads it.
func (w *walker) callsHeldRelease(lit *ast.FuncLit, st *state) bool {
	info := w.p.pass.TypesInfo
	found := false
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok && st.clos[info.Uses[id]] {
				found = true
			}
		}
		return !found
	})
	return found
}

// returnsBefore reports whether body has a return of its own that ends before pos.
func returnsBefore(body *ast.BlockStmt, pos token.Pos) bool {
	for _, end := range bodyEnds(body) {
		if _, ok := end.(*ast.ReturnStmt); ok && end.End() <= pos {
			return true
		}
	}
	return false
}

// litReturnsValue reports whether lit returns the acquired value from a return of its own,
// not of a literal inside it: lit is a factory of the resource, and whoever calls it takes
// it (tcpproxy.DialProxy{DialContext: func(…) (net.Conn, error) { return outbound, nil }},
// whose HandleConn closes what it dials). A literal called where it is written is not one
// (nodeStep): what it returns stays the function's.
func (w *walker) litReturnsValue(lit *ast.FuncLit, st *state) bool {
	results, ok := w.litResults[lit]
	if !ok {
		results = litReturned(w.p.pass.TypesInfo, lit)
		if w.litResults == nil {
			w.litResults = map[*ast.FuncLit][]ast.Expr{}
		}
		w.litResults[lit] = results // walked once for every path that meets the literal
	}
	return slices.ContainsFunc(results, func(r ast.Expr) bool { return w.holds(r, st) })
}

// litReturned returns what lit's own returns return: their results, and what lit assigns
// to a local it returns (c := outbound; return c, nil) or to a named result a bare return
// returns (c = outbound; return).
func litReturned(info *types.Info, lit *ast.FuncLit) []ast.Expr {
	assigned := map[types.Object][]ast.Expr{}
	var results []ast.Expr
	var named []types.Object
	if lit.Type.Results != nil {
		for _, f := range lit.Type.Results.List {
			for _, id := range f.Names {
				named = append(named, info.Defs[id])
			}
		}
	}
	bare := false
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			if len(n.Lhs) == len(n.Rhs) {
				for i, l := range n.Lhs {
					if id, ok := ast.Unparen(l).(*ast.Ident); ok && info.ObjectOf(id) != nil {
						assigned[info.ObjectOf(id)] = append(assigned[info.ObjectOf(id)], n.Rhs[i])
					}
				}
			}
		case *ast.ReturnStmt:
			results = append(results, n.Results...)
			bare = bare || len(n.Results) == 0
		}
		return true
	})
	var out []ast.Expr
	for _, r := range results {
		out = append(out, r)
		if id, ok := ast.Unparen(r).(*ast.Ident); ok {
			out = append(out, assigned[info.Uses[id]]...)
		}
	}
	if bare {
		for _, o := range named {
			out = append(out, assigned[o]...)
		}
	}
	return out
}

// compositeHandOff reports whether passing arg to call hands the acquired value on: arg is a
// composite literal that holds it (s.push(entry{lease: l})), whose new owner is whatever
// call stores the literal, or call is a Serve-like method, which owns what it is given
// (srv.Serve(ln)).
func (w *walker) compositeHandOff(call *ast.CallExpr, arg ast.Expr, st *state) bool {
	e := ast.Unparen(arg)
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = ast.Unparen(u.X)
	}
	if _, ok := e.(*ast.CompositeLit); ok {
		return w.holds(e, st)
	}
	if fn, ok := typeInfoCallee(w.p.pass.TypesInfo, call); ok && serveLike(fn) {
		return w.holds(arg, st)
	}
	return false
}

// serveLike reports whether fn is a method whose name leads with the word Serve (Serve,
// ServeConn, ServeListener): a server's loop, which owns what it is given to serve. A
// function of that name is read by its summary, as any other.
func serveLike(fn *types.Func) bool {
	sig, ok := fn.Type().(*types.Signature)
	return ok && sig.Recv() != nil && words(fn.Name())[0] == "Serve"
}

// assign applies lhs = rhs: aliases, handoffs into fields, maps and slices, flag values, and
// the end of the acquisition's error once err is reassigned.
func (w *walker) assign(lhs, rhs []ast.Expr, st *state) step {
	info := w.p.pass.TypesInfo
	if w.reassignsStored(lhs, rhs, st) {
		return handedOn // err assigned again after t.out, err = newSniffer(fd): the store may keep it
	}
	// Go evaluates every right-hand side before it assigns: res, spare = spare, res moves
	// the value into spare, whatever res is given.
	var heldBefore []bool
	if len(lhs) == len(rhs) && len(lhs) > 1 {
		for _, r := range rhs {
			heldBefore = append(heldBefore, w.holds(r, st))
		}
	}
	holds := func(i int, r ast.Expr) bool {
		if heldBefore != nil {
			return heldBefore[i]
		}
		return r != nil && w.holds(r, st)
	}
	if errObj := w.givesStructHolder(lhs, rhs, st); errObj != nil {
		// tmpdb, err := bolt.Open(p, 0o600, &options): the callee takes what options holds
		// where it succeeds; where err is non-nil it took nothing.
		st.stored = append(remove(st.stored, errObj), errObj)
	}
	for i, l := range lhs {
		r, tupleErr := w.assignedFrom(i, lhs, rhs, st)
		l = ast.Unparen(l)
		id, isIdent := l.(*ast.Ident)
		var o types.Object
		if isIdent {
			o = info.ObjectOf(id)
			if o == nil && id.Name != "_" {
				continue // switch c := conn.(type): each clause's c is conn, declared there
			}
		}
		if o != nil {
			w.assignKnown(o, l, r, st)
		} else if _, isSel := l.(*ast.SelectorExpr); isSel && r != nil {
			w.setFlag(info, l, r, st) // rv.open = true: a holder's ok flag (fieldFlag)
		}
		if o != nil && isLocal(o, w.body) && !holds(i, r) {
			// A local assigned anything else holds nothing of the value any more: unlock =
			// func() {} after unlock := mu.Unlock, v = other after v := f. (What holds it
			// stays an alias: list = append(list, x).)
			delete(st.clos, o)
			delete(st.aliases, o)
		}
		if r == nil {
			continue
		}
		if lit, ok := ast.Unparen(r).(*ast.FuncLit); ok && w.litReleases(lit) != nil {
			if o != nil && isLocal(o, w.body) {
				if w.capturedRelease(lit) {
					st.clos[o] = true
				}
				continue
			}
			return handedOn // a cleanup stored for later
		}
		if maker, ok := ast.Unparen(r).(*ast.CallExpr); w.releaseMethodValue(r, st) || ok && w.p.madeRelease(w.a, maker) {
			if isIdent && id.Name == "_" {
				continue // _ = closeLater(f): the release made is dropped
			}
			if o != nil && isLocal(o, w.body) {
				st.clos[o] = true // cleanup := l.Release, cleanup := closeLater(f)
				continue
			}
			return handedOn // h.cleanup = l.Release
		}
		if !(isIdent && id.Name == "_") && w.storesLockHolder(r, o != nil && isLocal(o, w.body)) {
			return handedOn // toDelete = append(toDelete, &record{r: cr}): cr goes on locked
		}
		if holds(i, r) {
			if o != nil && isLocal(o, w.body) {
				st.aliases[o] = true // v2 := v, s := &server{ln: ln}, list = append(list, v)
				continue
			}
			if isIdent && id.Name == "_" {
				continue
			}
			if h := localStructField(info, l, w.body); h != nil {
				st.aliases[h] = true // options.OpenFile = func(…) { return temp, nil }: options holds it
				continue
			}
			if tupleErr != nil {
				// t.out, err = newSniffer(fd): where err is non-nil the result stored is
				// nil and keeps nothing; atReturn decides by what the path knows of err.
				st.stored = append(remove(st.stored, tupleErr), tupleErr)
				continue
			}
			return handedOn // s.conn = c, m[k] = v, *p = v, a package variable
		}
	}
	return goOn
}

// assignedFrom returns what lhs[i] is assigned, as far as what it holds goes: its own right
// side, the call of s, err := newSniffer(fd) for an s that holds what the call's result
// holds (with err, the call's error), the assertion of tc, ok := conn.(*tls.Conn) for tc;
// nil when it is assigned nothing the search reads.
func (w *walker) assignedFrom(i int, lhs, rhs []ast.Expr, st *state) (r ast.Expr, tupleErr types.Object) {
	switch {
	case len(lhs) == len(rhs):
		return rhs[i], nil
	case w.tupleHolder(i, lhs[i], rhs, st) || w.tupleMaker(lhs[i], rhs):
		return rhs[0], lastError(w.p.pass.TypesInfo, lhs)
	case len(rhs) == 1 && i == 0 && isTypeAssert(rhs[0]):
		return rhs[0], nil
	}
	return nil, nil
}

// assignKnown updates what the path knows of the variable o, assigned r (nil when unknown):
// the acquisition's error is no longer live in it, it is non-nil only where r is, and a
// flag takes r's constant.
func (w *walker) assignKnown(o types.Object, l, r ast.Expr, st *state) {
	if o == w.a.errObj {
		st.errLive = false
	}
	// err = fmt.Errorf("…: %w", err) keeps err non-nil: decided before err's evidence is
	// dropped, since the value may name err itself.
	nonNil := r != nil && isError(o.Type()) && w.nonNilError(r, st)
	st.nilErr = remove(st.nilErr, o)
	st.errSet = remove(st.errSet, o)
	if nonNil {
		st.errSet = append(st.errSet, o)
	} else if r != nil && isError(o.Type()) && isNilIdent(w.p.pass.TypesInfo, r) {
		st.nilErr = append(st.nilErr, o) // err = nil
	}
	if r != nil {
		w.setFlag(w.p.pass.TypesInfo, l, r, st)
	}
}

// tupleHolder reports whether l, assigned result i of the single call in rhs, holds the
// acquired value there: the callee's summary says its result i holds what the call passes
// it (resultholds), and l is neither an error nor of a basic type (the s of s, err :=
// newSniffer(fd), not its err nor the n of n, err := w.Write(b)). Another package's callee
// says it by its fact (endpoint, err := sniffer.NewWithWriter(lower, fd, n)); with none,
// its results hold nothing (result, err = current.NewResultFromResult(r) converts an IPAM
// result; it keeps no allocation).
func (w *walker) tupleHolder(i int, l ast.Expr, rhs []ast.Expr, st *state) bool {
	if len(rhs) != 1 {
		return false
	}
	call, ok := ast.Unparen(rhs[0]).(*ast.CallExpr)
	if !ok || !w.passesValue(call, st) {
		return false // most calls: decided before any callee's summary is computed
	}
	info := w.p.pass.TypesInfo
	if w.holderInterfaceCall(call, info.TypeOf(l), st) {
		return true
	}
	fn, ok := typeInfoCallee(info, call)
	if !ok || fn.Pkg() == w.p.pass.Pkg && w.p.decls[fn.Origin()] == nil {
		return false
	}
	if t := info.TypeOf(l); t == nil || isError(t) || isBasic(t) {
		return false
	}
	return slices.ContainsFunc(w.p.heldArgsAt(call, i, false), func(e ast.Expr) bool { return w.holds(e, st) }) || w.partsHolder(call, i, st)
}

// holderInterfaceCall reports whether call is a method of an interface, called on a local
// that holds the value (not the value itself), whose result, of type t, may keep that
// holder: no summary can say it does not. An ssh agent's signers sign through the client
// made of the connection (signers, err := ac.Signers() for ac := agent.NewClient(conn),
// go-libvirt's agent auth). A method of the value is read as its data: conn.RemoteAddr().
func (w *walker) holderInterfaceCall(call *ast.CallExpr, t types.Type, st *state) bool {
	info := w.p.pass.TypesInfo
	r := receiver(info, call)
	if r == nil {
		return false
	}
	o := rootObj(info, r)
	if o == nil || !st.aliases[o] || w.a.values[o] {
		return false
	}
	for v := range w.a.values {
		if types.AssignableTo(v.Type(), o.Type()) {
			return false // c2 := conn, var c io.Closer = conn: the value itself, not a holder
		}
	}
	fn, ok := typeInfoCallee(info, call)
	return ok && isInterfaceMethod(fn) && mayRefer(t, 0)
}

// reassignsStored reports whether lhs = rhs assigns again an error of st.stored (t.out, err
// = newSniffer(fd), then err = other()): what the path knew of the store's error is gone.
// Wrapping an error known non-nil back into it (err = fmt.Errorf("…: %w", err)) keeps it
// non-nil, and the store failed as before.
func (w *walker) reassignsStored(lhs, rhs []ast.Expr, st *state) bool {
	info := w.p.pass.TypesInfo
	for i, l := range lhs {
		o := rootObj(info, l)
		if o == nil || !slices.Contains(st.stored, o) {
			continue
		}
		if len(lhs) == len(rhs) && slices.Contains(st.errSet, o) && w.nonNilError(rhs[i], st) {
			continue
		}
		return true
	}
	return false
}

// lastError returns the variable of the error lhs assigns last (the err of s, err = f()), or
// nil when it is none or _.
func lastError(info *types.Info, lhs []ast.Expr) types.Object {
	id, ok := ast.Unparen(lhs[len(lhs)-1]).(*ast.Ident)
	if !ok {
		return nil
	}
	if o := info.ObjectOf(id); o != nil && isError(o.Type()) {
		return o
	}
	return nil
}

func isTypeAssert(e ast.Expr) bool {
	_, ok := ast.Unparen(e).(*ast.TypeAssertExpr)
	return ok
}

// passesValue reports whether call passes the acquired value as its receiver or an
// argument: what holds it on the path st (holds), or without st the value or an argument of
// its acquisition (as releasesVia reads them). It spares the summaries of the callees of the
// calls that pass it nothing.
func (w *walker) passesValue(call *ast.CallExpr, st *state) bool {
	info := w.p.pass.TypesInfo
	held := func(e ast.Expr) bool {
		if st != nil {
			return w.holds(e, st)
		}
		o := rootObj(info, e) // as releasesVia tests what a call passes
		return o != nil && (w.a.values[o] || w.a.argRoots[o])
	}
	if r := receiver(info, call); r != nil && held(r) {
		return true
	}
	return slices.ContainsFunc(call.Args, held)
}

// tupleMaker reports whether l, of a function type, is assigned a result of the single call
// in rhs that makes the acquisition's release (c, err := closerOf(f)): l holds the release.
func (w *walker) tupleMaker(l ast.Expr, rhs []ast.Expr) bool {
	if len(rhs) != 1 {
		return false
	}
	call, ok := ast.Unparen(rhs[0]).(*ast.CallExpr)
	if !ok || !w.passesValue(call, nil) {
		return false
	}
	t := w.p.pass.TypesInfo.TypeOf(l)
	if t == nil {
		return false // _
	}
	_, isFunc := t.Underlying().(*types.Signature)
	return isFunc && w.p.madeRelease(w.a, call)
}

// assignsOuter reports whether the acquisition's value goes straight into a variable the
// function checked did not declare: a variable of the enclosing function, assigned in a
// literal (conn, err = d.DialContext(…) inside ns.Do(func(…) error {…})), or a package
// variable. The variable outlives the call, and whoever declared it takes the resource.
func assignsOuter(a *acquisition, fnNode ast.Node) bool {
	for o := range a.values {
		if v, ok := o.(*types.Var); ok && !v.IsField() && (o.Pos() < fnNode.Pos() || o.Pos() >= fnNode.End()) {
			return true
		}
	}
	return false
}

func isLocal(o types.Object, body *ast.BlockStmt) bool {
	return o.Pos() >= body.Pos() && o.Pos() < body.End()
}

// valueWithError reports whether ret returns the acquired value together with an error that
// is non-nil on this path: the error is known non-nil here (the true edge of err != nil), or
// is made by errors.New or fmt.Errorf.
func (w *walker) valueWithError(ret *ast.ReturnStmt, st *state) bool {
	res := w.sig.Results()
	if ret == nil || len(ret.Results) < 2 || len(ret.Results) != res.Len() || !isError(res.At(res.Len()-1).Type()) {
		return false
	}
	info := w.p.pass.TypesInfo
	nonNil := false
	switch e := ast.Unparen(ret.Results[len(ret.Results)-1]).(type) {
	case *ast.Ident:
		nonNil = slices.Contains(st.errSet, info.ObjectOf(e))
	case *ast.CallExpr:
		if fn, ok := typeInfoCallee(info, e); ok {
			n := funcName(fn)
			nonNil = n == "errors.New" || n == "fmt.Errorf"
		}
	}
	if !nonNil {
		return false
	}
	for _, r := range ret.Results[:len(ret.Results)-1] {
		if w.holds(r, st) {
			return true
		}
	}
	return false
}

// stringHandOff makes a basic-typed result an acquired value when a release takes it as
// an argument (ip, _ := m.HoldAddress(name) … m.ReleaseAddress(ip)): the string is then the
// handle of the resource, and returning it, storing it or handing it to a goroutine hands the
// resource on. A basic result no release takes (a count, a port number) stays a plain value.
func (a *acquisition) stringHandOff(info *types.Info) {
	for _, r := range a.releases {
		for _, arg := range r.call.Args {
			if id, ok := ast.Unparen(arg).(*ast.Ident); ok {
				if o := info.Uses[id]; o != nil && a.basic[o] {
					a.values[o] = true
				}
			}
		}
	}
}

// keptByCallee reports whether call passes the acquired value to a function that keeps it
// beyond the call (wrapperInfo.keeps): it hands it to a goroutine, sends it, or stores it in
// a package variable or a field of its receiver (pprof.StartCPUProfile(f), reg.add(conn)).
func (w *walker) keptByCallee(call *ast.CallExpr, st *state) bool {
	info := w.p.pass.TypesInfo
	if w.rels[call] {
		return false
	}
	if w.unknownCallee(call) {
		// No summary says what a function value or an interface method does with its
		// arguments: the default tier takes it as kept, the broader one as read.
		if w.broad() {
			return false
		}
		return slices.ContainsFunc(call.Args, func(arg ast.Expr) bool { return w.holds(arg, st) })
	}
	fn, _ := typeInfoCallee(info, call)
	if fn == nil {
		return false
	}
	wi := w.p.wrapper(fn)
	if wi == nil || len(wi.keeps) == 0 {
		return false
	}
	// Stored in the receiver, it is handed on when the receiver outlives the function (a
	// parameter, the function's receiver, a field or a package variable), not when it is a
	// local the function made (rd := bufio.NewReader(f) keeps f in rd, which dies with it).
	recvLives := false
	var fresh types.Object
	if r := receiver(info, call); r != nil {
		if o := rootObj(info, r); o != nil && !freshLocal(info, w.body, o) {
			recvLives = true
		} else {
			fresh = o
		}
	}
	sig := fn.Type().(*types.Signature)
	for i, arg := range call.Args {
		how := wi.keeps[paramIndex(sig, i)] // keep(g, f) for keep(fs ...*os.File)
		if (how == keptAway || (how == storedInRecv && recvLives)) && w.holds(arg, st) {
			return true
		}
		if how == storedInRecv && fresh != nil && w.holds(arg, st) {
			// r := &registry{}; r.add(f): r holds f now, and goes where f would
			// (return r hands it on; r dying with the function leaks it).
			st.aliases[fresh] = true
		}
	}
	return false
}

// freshLocal reports whether o is a local of body made there from nothing the function was
// given: r := &registry{}, r := new(T), var r T. What is stored in it dies with it, unless
// it is handed on itself. A copy of a parameter (rr := r) or a call's result is not fresh.
func freshLocal(info *types.Info, body *ast.BlockStmt, o types.Object) bool {
	if !isLocal(o, body) {
		return false
	}
	fresh := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				if id, ok := l.(*ast.Ident); ok && info.Defs[id] == o && len(n.Lhs) == len(n.Rhs) {
					fresh = isAllocation(info, n.Rhs[i])
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if info.Defs[id] == o {
					fresh = len(n.Values) == 0 || (len(n.Values) == len(n.Names) && isAllocation(info, n.Values[i]))
				}
			}
		}
		return true
	})
	return fresh
}

// isAllocation reports whether e makes a new value: T{…}, &T{…} or new(T).
func isAllocation(info *types.Info, e ast.Expr) bool {
	switch x := ast.Unparen(e).(type) {
	case *ast.CompositeLit:
		return true
	case *ast.UnaryExpr:
		_, lit := ast.Unparen(x.X).(*ast.CompositeLit)
		return x.Op == token.AND && lit
	case *ast.CallExpr:
		if id, ok := ast.Unparen(x.Fun).(*ast.Ident); ok {
			b, ok := info.Uses[id].(*types.Builtin)
			return ok && b.Name() == "new"
		}
	}
	return false
}

// unknownCallee reports whether call's callee has no summary: a function value (a variable,
// a field, a map element) or an interface method not called on the acquired value itself.
// A conversion, a builtin and a function literal are no calls of an unknown function.
func (w *walker) unknownCallee(call *ast.CallExpr) bool {
	info := w.p.pass.TypesInfo
	if tv, ok := info.Types[call.Fun]; ok && tv.IsType() {
		return false
	}
	if _, lit := ast.Unparen(call.Fun).(*ast.FuncLit); lit {
		return false
	}
	switch callee := typeutil.Callee(info, call).(type) {
	case *types.Builtin:
		return false
	case *types.Func:
		if !isInterfaceMethod(callee) {
			return false
		}
		if r := receiver(info, call); r != nil {
			if o := rootObj(info, r); o != nil && w.a.values[o] {
				return false // f.Write(b) on the acquired io.Writer
			}
		}
		return true
	case *types.Var:
		if _, ok := w.p.closureVars(w.body)[callee]; ok {
			return false // closeIt := func(c io.Closer) { … }: its body is read (closurevar)
		}
	}
	return true // a variable, field or expression of function type
}

// lockHolders returns the local or parameter a field of which is the lock the acquisition
// takes (cr for cr.mu.Lock()), or that a function's lock is taken on (f for lockFile(f)),
// never the method's receiver or a package variable, with the locals that copy it and never
// change (x := cr); nil when there is none. Computed once.
func (w *walker) lockHolders() map[types.Object]bool {
	if w.holdersDone {
		return w.holders
	}
	w.holdersDone = true
	if !isLock(w.a) {
		return nil
	}
	info := w.p.pass.TypesInfo
	var h types.Object
	args := nonContextArgs(info, w.a.call)
	switch {
	case w.a.held != nil:
		h = rootObj(info, w.a.heldExpr(info)) // x for lockTable(x), which holds x.mu
	case receiver(info, w.a.call) == nil && len(args) == 1:
		// f for lockFile(f), a function whose lock is f's own (an flock): nothing else of
		// the call names what it locks.
		id, ok := ast.Unparen(args[0]).(*ast.Ident)
		if !ok || reassigned(info, w.body, info.Uses[id]) {
			return nil // f = other: what f names at a return may be unlocked
		}
		h = info.Uses[id]
	default:
		sel, ok := ast.Unparen(receiver(info, w.a.call)).(*ast.SelectorExpr)
		if !ok {
			return nil
		}
		h = rootObj(info, sel)
	}
	if v, ok := h.(*types.Var); !ok || v == w.sig.Recv() || !(isLocal(v, w.body) || v.Parent() != nil && v.Parent() != v.Pkg().Scope()) {
		return nil
	}
	w.holders = map[types.Object]bool{h: true}
	ast.Inspect(w.body, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && as.Tok == token.DEFINE && len(as.Lhs) == len(as.Rhs) {
			for i, l := range as.Lhs {
				id, _ := l.(*ast.Ident)
				r, _ := ast.Unparen(as.Rhs[i]).(*ast.Ident)
				if v, ok := info.Defs[id].(*types.Var); ok && r != nil && info.Uses[r] == h && !changedIn(info, v, w.body) {
					w.holders[v] = true
				}
			}
		}
		return true
	})
	return w.holders
}

// lockOnArgument reports whether the acquisition is a function's lock taken on its one
// argument, the lock's holder (lockFile(f)): returning the holder, or a value made holding
// it (return &dirLock{f: f}, nil), hands the lock on to the caller with it.
func (w *walker) lockOnArgument() bool {
	return w.a.held == nil && receiver(w.p.pass.TypesInfo, w.a.call) == nil && w.lockHolders() != nil
}

// storesLockHolder reports whether e, assigned or sent, puts the lock's holder into a
// collection or a value that outlives this statement: an element of a composite literal or
// an appended element (toDelete = append(toDelete, &deleteRecord{cacheRecord: cr}), as
// buildkit's prune leaves the records it will delete locked), or the holder itself when the
// target is not a local (m[k] = cr, ch <- cr). The lock goes with the holder, and with the
// mutex itself (append(stashed, &cr.mu)).
func (w *walker) storesLockHolder(e ast.Expr, toLocal bool) bool {
	holders := w.lockHolders()
	if holders == nil || e == nil {
		return false
	}
	info := w.p.pass.TypesInfo
	var in func(e ast.Expr, top bool) bool
	in = func(e ast.Expr, top bool) bool {
		if k, ok := exprKey(info, e); ok && k == w.a.recvKey {
			return !(top && toLocal)
		}
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			return holders[info.Uses[x]] && !(top && toLocal)
		case *ast.UnaryExpr:
			return x.Op == token.AND && in(x.X, top)
		case *ast.CompositeLit:
			return slices.ContainsFunc(x.Elts, func(el ast.Expr) bool { return in(el, false) })
		case *ast.KeyValueExpr:
			return in(x.Value, false)
		case *ast.CallExpr:
			if b, ok := info.Uses[calleeIdent(x)].(*types.Builtin); ok && b.Name() == "append" && len(x.Args) > 1 {
				return slices.ContainsFunc(x.Args[1:], func(el ast.Expr) bool { return in(el, false) })
			}
		}
		return false
	}
	return in(e, true)
}

// calleeIdent returns the identifier a call calls directly (append in append(s, v)), or nil.
func calleeIdent(call *ast.CallExpr) *ast.Ident {
	id, _ := ast.Unparen(call.Fun).(*ast.Ident)
	return id
}

// mayRefer reports whether a value of type t can refer to a resource: an interface other
// than error, a function, or a pointer, channel, container or struct of one. []string,
// map[string]int and *int cannot.
func mayRefer(t types.Type, depth int) bool {
	if t == nil || depth > 4 {
		return t != nil
	}
	switch u := types.Unalias(t).Underlying().(type) {
	case *types.Basic:
		return false
	case *types.Interface:
		return !isError(t)
	case *types.Pointer:
		return mayRefer(u.Elem(), depth+1)
	case *types.Chan:
		return mayRefer(u.Elem(), depth+1)
	case *types.Slice:
		return mayRefer(u.Elem(), depth+1)
	case *types.Array:
		return mayRefer(u.Elem(), depth+1)
	case *types.Map:
		return mayRefer(u.Key(), depth+1) || mayRefer(u.Elem(), depth+1)
	case *types.Struct:
		for f := range u.Fields() {
			if mayRefer(f.Type(), depth+1) {
				return true
			}
		}
		return false
	case *types.Tuple:
		for v := range u.Variables() {
			if mayRefer(v.Type(), depth+1) {
				return true
			}
		}
		return false
	}
	return true
}

// localStructField returns the local of the function body whose field l is, when the local
// is a struct value, not a pointer: the field is in the local's own memory, and storing in
// it makes the local hold what it stores (options.OpenFile = func(…) { return temp, nil },
// o.Inner.File = f).
func localStructField(info *types.Info, l ast.Expr, body *ast.BlockStmt) types.Object {
	sel, ok := ast.Unparen(l).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	x := ast.Unparen(sel.X)
	for {
		// o.Inner.File: a field of a field is the local's own memory while each step is a
		// struct value, not a pointer.
		inner, ok := x.(*ast.SelectorExpr)
		if !ok {
			break
		}
		if _, isStruct := info.TypeOf(inner).Underlying().(*types.Struct); !isStruct {
			return nil
		}
		x = ast.Unparen(inner.X)
	}
	id, ok := x.(*ast.Ident)
	if !ok {
		return nil
	}
	o, ok := info.Uses[id].(*types.Var)
	if !ok || !isLocal(o, body) {
		return nil
	}
	if _, isStruct := o.Type().Underlying().(*types.Struct); !isStruct {
		return nil
	}
	return o
}

// givesStructHolder returns the error variable of an assignment from one call given a
// local struct value that holds the value in a field (takesStructHolder): tmpdb, err :=
// bolt.Open(p, 0o600, &options) after options.OpenFile = func(…) { return temp, nil }. The
// callee takes what the struct holds where it succeeds, and nothing where it fails. Nil for
// any other assignment.
func (w *walker) givesStructHolder(lhs, rhs []ast.Expr, st *state) types.Object {
	if len(rhs) != 1 {
		return nil
	}
	call, ok := ast.Unparen(rhs[0]).(*ast.CallExpr)
	if !ok {
		return nil
	}
	errObj := lastError(w.p.pass.TypesInfo, lhs)
	if errObj == nil || !w.takesStructHolder(call, st) {
		return nil
	}
	if w.structGiven == nil {
		w.structGiven = map[*ast.CallExpr]bool{}
	}
	w.structGiven[call] = true // no other hand-off at the call (callStep)
	return errObj
}

// takesStructHolder reports whether call returns an error and is given, as an argument, its
// address or the receiver of another package's method (tp.Run() for tp :=
// tcpproxy.TCPProxy{Listener: l}), a local struct value that holds the value in a field: a
// call that may take it.
func (w *walker) takesStructHolder(call *ast.CallExpr, st *state) bool {
	info := w.p.pass.TypesInfo
	if t := info.TypeOf(call.Fun); t == nil || !returnsError(t) {
		return false
	}
	given := call.Args
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		// A method of the package is read by what its summary says its results keep
		// (resultholds: resp, err := client.ID() keeps nothing of client).
		if s := info.Selections[sel]; s != nil && s.Kind() == types.MethodVal && s.Obj().Pkg() != w.p.pass.Pkg {
			given = append([]ast.Expr{sel.X}, given...)
		}
	}
	for _, arg := range given {
		e := ast.Unparen(arg)
		if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
			e = ast.Unparen(u.X)
		}
		id, ok := e.(*ast.Ident)
		if !ok {
			continue
		}
		if o := info.Uses[id]; o != nil && st.aliases[o] && !w.a.values[o] {
			if _, isStruct := o.Type().Underlying().(*types.Struct); isStruct {
				return true
			}
		}
	}
	return false
}

// unsettledStructHolder reports whether n drops or returns the error of a call that may take
// a local struct holding the value (takesStructHolder): tp.Run(), return tp.Run(). Nothing
// after it tells whether the call succeeded and took what the struct holds, so the function
// gives it on there (etcd's gateway, whose proxy serves its listener until it fails).
func (w *walker) unsettledStructHolder(n ast.Node, st *state) bool {
	var calls []ast.Expr
	switch n := n.(type) {
	case *ast.ExprStmt:
		calls = []ast.Expr{n.X}
	case *ast.ReturnStmt:
		calls = n.Results
	}
	for _, e := range calls {
		if call, ok := ast.Unparen(e).(*ast.CallExpr); ok && w.takesStructHolder(call, st) {
			return true
		}
	}
	return false
}
