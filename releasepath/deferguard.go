package releasepath

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"maps"
	"slices"
)

// A condRelease is a deferred release that runs only under a condition: while a flag has a
// value (defer func() { if !ok { release } }()) or while an error is non-nil, and, for a
// conjunction of such terms (if err != nil && created), while the next term holds too.
type condRelease struct {
	flag     types.Object // the bool flag, or nil
	fnVar    types.Object // the local whose value the closure releases (deferredVarCall), or nil
	viaAlias bool         // fnVar is an alias of the value, not a function variable
	when     bool         // the flag's value for which the release runs
	errVar   types.Object // the error, or nil
	errNil   bool         // the release runs while errVar is nil (if err == nil), not non-nil
	namedErr bool         // errVar is a named result: every error return sets it
	and      *condRelease // the conjunction's next term, or nil
}

// declaredIn reports whether a term of c tests a variable declared inside lit: the closure's
// own err or flag, which says nothing of the function's.
func (c condRelease) declaredIn(lit *ast.FuncLit) bool {
	for t := &c; t != nil; t = t.and {
		for _, o := range []types.Object{t.flag, t.errVar} {
			if o != nil && o.Pos() >= lit.Pos() && o.Pos() < lit.End() {
				return true
			}
		}
	}
	return false
}

// conjoin returns c && o.
func (c condRelease) conjoin(o condRelease) condRelease {
	if c.and == nil {
		c.and = &o
	} else {
		next := c.and.conjoin(o)
		c.and = &next
	}
	return c
}

// initialDefers records the deferred conditional releases placed before the acquisition
// (var ok bool; defer func() { if !ok { release } }(); acquire), and the constant values of
// flags declared before it.
func (w *walker) initialDefers(st *state) {
	info := w.p.pass.TypesInfo
	var stack []ast.Node // n's ancestors, from the body, as collectCalls keeps them
	ast.Inspect(w.body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		if n.Pos() >= w.a.call.Pos() {
			return false
		}
		if exclusiveBranches(w.a.stmtStack, append(stack, n)) {
			// The branch the acquisition's does not run with: if write { mu.Lock(); unlock =
			// mu.Unlock } else { mu.RLock() } leaves unlock as it was for the RLock.
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.UnaryExpr, *ast.SelectorExpr:
			w.takenOnPath(n, st) // &closed or closed.set() before the acquisition
		case *ast.DeferStmt:
			// A defer among the body's own statements ran on every path to the acquisition:
			// a release in it that counts here runs at every later return too (var f
			// *os.File; defer func() { if f != nil { f.Close() } }(); f, err = os.Open(p)),
			// when it is a closure that reads the variable then. The arguments of a
			// deferred call are read when it is deferred, before the acquisition: defer
			// f.Close() or defer func(f *os.File) { … }(f) close the nil f of that time.
			// The defer must sit in a block around the acquisition (the body, or a loop's
			// body the acquisition is in), so that it ran on every path to it.
			_, lit := ast.Unparen(n.Call.Fun).(*ast.FuncLit)
			if w.deferred(n, st) && lit && len(n.Call.Args) == 0 && w.aroundAcquisition(n) {
				w.deferredBefore = true
			}
			return false
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				if i < len(n.Rhs) && len(n.Lhs) == len(n.Rhs) {
					w.setFlag(info, l, n.Rhs[i], st)
					w.earlyReleaseValue(l, n.Rhs[i], st)
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if i < len(n.Values) && len(n.Names) == len(n.Values) {
					w.earlyReleaseValue(id, n.Values[i], st)
				}
				if o, ok := info.Defs[id].(*types.Var); ok && isBool(o.Type()) {
					if i < len(n.Values) {
						w.setFlag(info, id, n.Values[i], st)
					} else if len(n.Values) == 0 {
						st.flags[o] = false
					}
				}
			}
		}
		stack = append(stack, n)
		return true
	})
}

// earlyReleaseValue records lhs = rhs, met before the acquisition: a local that holds a
// method value of the release (unlock := c.mu.Unlock, taken before c.mu.Lock) releases when
// it is called after the acquisition, as one taken after it does. Inspect meets assignments
// in source order, so the last one before the acquisition decides.
func (w *walker) earlyReleaseValue(lhs, rhs ast.Expr, st *state) {
	id, ok := ast.Unparen(lhs).(*ast.Ident)
	if !ok {
		return
	}
	o := w.p.pass.TypesInfo.ObjectOf(id)
	if o == nil || !isLocal(o, w.body) {
		return
	}
	if w.releaseMethodValue(rhs, st) {
		st.clos[o] = true
	} else {
		delete(st.clos, o)
	}
}

func isBool(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Kind() == types.Bool
}

func (w *walker) setFlag(info *types.Info, lhs, rhs ast.Expr, st *state) {
	var o types.Object
	switch l := ast.Unparen(lhs).(type) {
	case *ast.Ident:
		o = info.ObjectOf(l)
	case *ast.SelectorExpr:
		o = w.fieldFlag(l) // rv.open = true
	}
	if o == nil || !isBool(o.Type()) {
		return
	}
	if c, ok := info.Types[rhs]; ok && c.Value != nil && !st.escaped[o] {
		st.flags[o] = c.Value.String() == "true"
	} else {
		delete(st.flags, o)
	}
}

// guardKept reports whether o, a bool the acquisition set, still says false only where
// the acquisition holds nothing: no function literal assigns it and no address of it is
// taken (the search follows it, correlated), and the function assigns it elsewhere only
// before the acquisition and outside any loop around it, or only where it is false (if
// !acquired { acquired = sem.Acquire(ctx) == nil }, go-redis's fallback to a blocking
// acquisition).
func (w *walker) guardKept(o types.Object) bool {
	if !w.vars.tracked[o] {
		return false
	}
	info := w.p.pass.TypesInfo
	found := false
	ast.Inspect(w.body, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && as != w.a.node {
			for _, l := range as.Lhs {
				if id, ok := ast.Unparen(l).(*ast.Ident); ok && info.ObjectOf(id) == o && !w.assignedApart(as, o) {
					found = true
				}
			}
		}
		return !found
	})
	return !found
}

// assignedApart reports whether the assignment as of o cannot change what o says of the
// acquisition: it sits in a branch the acquisition's does not run with, it comes before the
// acquisition with no loop around both, or it sits in the body of an if !o.
func (w *walker) assignedApart(as *ast.AssignStmt, o types.Object) bool {
	info := w.p.pass.TypesInfo
	path := pathTo(w.body, as)
	if exclusiveBranches(w.a.stmtStack, path) && !w.loopCarries(path, o) {
		// if read { ok = mu.TryRLock() } else { ok = mu.TryLock() }: never on the same path,
		// unless a loop around both runs the other branch in a later iteration.
		return true
	}
	before := as.End() <= w.a.call.Pos()
	for k := len(path) - 2; k >= 0; k-- {
		switch n := path[k].(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			if within(n, w.a.call) {
				before = false // a later iteration may assign it after the acquisition
			}
		case *ast.IfStmt:
			if u, ok := ast.Unparen(n.Cond).(*ast.UnaryExpr); ok && u.Op == token.NOT && path[k+1] == n.Body {
				if id, ok := ast.Unparen(u.X).(*ast.Ident); ok && info.Uses[id] == o {
					// Only the fallback itself, once, straight in the body: acquired =
					// sem.Acquire(ctx) == nil on the same resource. Anything after it may
					// make the bool say true where nothing is held.
					return k+2 == len(path)-1 && w.fallbackAcquisition(as) && assignsOnce(info, n.Body, o)
				}
			}
		}
	}
	return before
}

// loopCarries reports whether a loop of the function holds both the acquisition and the
// node at the end of path, and o from one iteration to the next: o is declared outside it.
func (w *walker) loopCarries(path []ast.Node, o types.Object) bool {
	for _, n := range path {
		switch n.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			if within(n, w.a.call) && (o.Pos() < n.Pos() || o.Pos() >= n.End()) {
				return true
			}
		}
	}
	return false
}

// deferred applies a defer statement to st and reports whether it releases on every path.
// A release in a deferred closure counts when it is unconditional or under a nil guard on
// the handle (deferUnconditional), or, on the paths where it runs, when it is under an ok
// flag or an error (deferConditional); under any other condition it does not count.
func (w *walker) deferred(d *ast.DeferStmt, st *state) bool {
	if w.rels[d.Call] || w.aliasRelease(d.Call, st) {
		return true // defer f.Close(), defer output.Close() after output = f
	}
	if maker, ok := ast.Unparen(d.Call.Fun).(*ast.CallExpr); ok && (w.rels[maker] || w.p.madeRelease(w.a, maker)) {
		return true // defer closeLater(f)(); defer closeNow(f)(), whose call runs at the defer
	}
	if w.onError(d, st) {
		return false
	}
	if id, ok := ast.Unparen(d.Call.Fun).(*ast.Ident); ok {
		if o := w.p.pass.TypesInfo.Uses[id]; o != nil && st.clos[o] {
			return true // defer cleanup()
		}
	}
	if v := w.deferredHolder(d); v != nil && (d.Pos() > w.a.call.Pos() || w.aroundAcquisition(d)) {
		st.conds = append(st.conds, condRelease{fnVar: v, viaAlias: true}) // releases what b holds at the return
		return false
	}
	lit, ok := ast.Unparen(d.Call.Fun).(*ast.FuncLit)
	args := len(d.Call.Args)
	if !ok {
		var released bool
		if lit, released = w.onceDone(d.Call, st); released {
			return true // defer once.Do(g.mu.Unlock)
		} else if lit != nil {
			ok, args = true, 0 // defer once.Do(func() { f.Close() }): the literal, deferred
		} else if lit = w.p.calledLiteral(d.Call, w.body); lit == nil {
			// defer reject(nil) for reject := func(…) { if held { … } }: as its literal deferred.
			return false
		}
	}
	if v, alias := w.deferredVarCall(lit); v != nil && ok && args == 0 && (d.Pos() > w.a.call.Pos() || w.aroundAcquisition(d)) {
		st.conds = append(st.conds, condRelease{fnVar: v, viaAlias: alias}) // releases what v holds at the return
	}
	if ok && args == 0 && (d.Pos() > w.a.call.Pos() || w.aroundAcquisition(d)) {
		w.deferredLoops(lit, st) // defer func() { for _, f := range files { f.Close() } }()
	}
	params := litParams(w.p.pass.TypesInfo, lit)
	for _, r := range w.litReleases(lit) {
		if len(releaseParams(w.p.pass.TypesInfo, r, params)) > 0 && !ok {
			continue // closeIt(f) releases what the call passes: closureCallReleases
		}
		switch c, g := w.guardOf(lit, r); g {
		case deferUnconditional:
			return true
		case deferConditional:
			st.conds = append(st.conds, c)
		}
	}
	return false
}

// onError applies a deferred call given the address of an error of the function and a
// closure (a literal, a closure variable bound to one, or the release as a method value), or
// the deferred call of what such a call returns: defer atexit.OnError(&err, func() {
// w.Abort(ctx) })(), defer onFailure(&err, func() { f.Close() }), defer onFailure(&err,
// f.Close). Given &err, the
// helper reads the error as the function returns, and the closure is what it runs when the
// error is non-nil, which is the least it can mean: its releases count as deferred under err
// != nil (rclone's multipart upload aborts its chunk writer so), unless the helper's name
// says success (onSuccess, IfOK). It reports whether d is such a call.
func (w *walker) onError(d *ast.DeferStmt, st *state) bool {
	call := d.Call
	if maker, ok := ast.Unparen(call.Fun).(*ast.CallExpr); ok && len(call.Args) == 0 {
		call = maker
	}
	info := w.p.pass.TypesInfo
	var errVar types.Object
	var lit *ast.FuncLit
	methodValue := false
	for _, arg := range call.Args {
		switch x := ast.Unparen(arg).(type) {
		case *ast.UnaryExpr:
			if id, ok := ast.Unparen(x.X).(*ast.Ident); ok && x.Op == token.AND {
				if o, ok := info.Uses[id].(*types.Var); ok && isError(o.Type()) && o.Pos() >= w.fnNode.Pos() && o.Pos() < w.fnNode.End() {
					errVar = o
				}
			}
		case *ast.FuncLit:
			if len(litParams(info, x)) == 0 {
				lit = x
			}
		case *ast.Ident: // abort := func() { u.Abort() }; defer whenFailed(&err, abort)
			if l := w.p.closureVars(w.body)[info.Uses[x]]; l != nil && len(litParams(info, l)) == 0 {
				lit = l
			}
		case *ast.SelectorExpr: // defer whenFailed(&err, u.Abort)
			methodValue = methodValue || w.releaseMethodValue(x, st)
		}
	}
	if errVar != nil && lit == nil && !methodValue && w.releasesOnError(call, st) {
		// defer closeOnErr(&err, f) for a closeOnErr that closes c where *errp != nil.
		st.conds = append(st.conds, w.markNamed(condRelease{errVar: errVar}))
		return true
	}
	if errVar == nil || lit == nil && !methodValue {
		return false
	}
	if fn, ok := typeInfoCallee(info, call); ok && slices.ContainsFunc(words(fn.Name()), func(w string) bool {
		return w == "Success" || w == "Succeeded" || w == "Ok" || w == "OK"
	}) {
		return false // defer onSuccess(&err, commit): the closure runs where err is nil
	}
	if lit == nil {
		st.conds = append(st.conds, w.markNamed(condRelease{errVar: errVar}))
		return true
	}
	for _, r := range w.litReleases(lit) {
		c, g := w.guardOf(lit, r)
		switch g {
		case deferUnconditional:
			st.conds = append(st.conds, w.markNamed(condRelease{errVar: errVar}))
		case deferConditional:
			st.conds = append(st.conds, w.markNamed(condRelease{errVar: errVar}).conjoin(c))
		}
	}
	return true
}

// releasesOnError reports whether call, to a function of the package, is given the address
// of an error and the value, and releases that parameter in a statement of its body's own
// that tests the error non-nil and nothing else (closeOnErr(errp *error, c io.Closer) { if
// *errp != nil { c.Close() } }), with nothing before that may leave.
func (w *walker) releasesOnError(call *ast.CallExpr, st *state) bool {
	info := w.p.pass.TypesInfo
	fn, ok := typeInfoCallee(info, call)
	if !ok || fn.Pkg() != w.p.pass.Pkg || w.p.decls[fn] == nil {
		return false
	}
	fd := w.p.decls[fn]
	sig := fn.Type().(*types.Signature)
	var errp, value *types.Var
	for i, arg := range call.Args {
		if i >= sig.Params().Len() || sig.Variadic() && i >= sig.Params().Len()-1 {
			break
		}
		param := sig.Params().At(i)
		if ptr, ok := param.Type().Underlying().(*types.Pointer); ok && isError(ptr.Elem()) {
			errp = param
		} else if w.holds(arg, st) {
			value = param
		}
	}
	if errp == nil || value == nil || reassigned(info, fd.Body, errp) || reassigned(info, fd.Body, value) {
		return false
	}
	isErr := func(e ast.Expr) bool { // *errp
		star, ok := ast.Unparen(e).(*ast.StarExpr)
		return ok && isIdentOf(info, star.X, errp)
	}
	for _, s := range fd.Body.List {
		ifs, ok := s.(*ast.IfStmt)
		if ok && ifs.Init == nil && ifs.Else == nil && comparedNotNil(info, ifs.Cond, isErr) {
			for _, b := range ifs.Body.List {
				if es, ok := b.(*ast.ExprStmt); ok && w.releasesParam(es.X, value) {
					return true
				}
				if mayLeave(info, b) {
					return false
				}
			}
		}
		if mayLeave(info, s) {
			return false
		}
	}
	return false
}

// releasesParam reports whether e calls the acquisition's release on the parameter v
// (c.Close(), _ = c.Close() as its expression).
func (w *walker) releasesParam(e ast.Expr, v types.Object) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	return ok && w.a.releaseNamed(sel.Sel.Name) && isIdentOf(w.p.pass.TypesInfo, sel.X, v)
}

// A deferGuard says under what a release in a deferred closure runs.
type deferGuard uint8

const (
	deferUnconditional deferGuard = iota // always, or whenever the handle is not nil
	deferConditional                     // while an ok flag has a value, or an error is (non-)nil
	deferUnrelated                       // under a condition that says nothing about the acquisition
)

// guardOf returns the condition under which the release r in the deferred closure lit runs.
func (w *walker) guardOf(lit *ast.FuncLit, r *ast.CallExpr) (condRelease, deferGuard) {
	info := w.p.pass.TypesInfo
	var found condRelease
	guard := deferUnconditional
	var stack []ast.Node
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if n == r {
			for i := len(stack) - 1; i >= 0 && guard != deferUnrelated; i-- {
				switch s := stack[i].(type) {
				case *ast.CaseClause, *ast.CommClause, *ast.ForStmt, *ast.RangeStmt:
					if s == w.releasedLoop {
						continue // a loop over what holds the value, which releases each (deferredLoops)
					}
					if cond := errCase(info, stack, i); cond != nil {
						// switch err { case nil: …; default: tx.Rollback() }: an if on err.
						switch c, g := w.releaseCond(info, cond, true); {
						case g == deferConditional && guard == deferUnconditional && !c.declaredIn(lit):
							found, guard = c, g
						default:
							guard = deferUnrelated
						}
						continue
					}
					// One case, or a loop that may run no time.
					guard = deferUnrelated
				case *ast.IfStmt:
					if !(within(s.Body, r) || (s.Else != nil && within(s.Else, r))) {
						continue // r is in its init or condition: r runs either way
					}
					if w.releasedLoop != nil && within(w.releasedLoop, s) {
						continue // if files[i] != nil: the loop's own nil guard (loopReleased)
					}
					inElse := s.Else != nil && within(s.Else, r)
					c, g := w.releaseCond(info, s.Cond, !inElse)
					if g == deferConditional && c.declaredIn(lit) {
						g = deferUnrelated // if err := f.Sync(); err != nil: the closure's own
					}
					switch {
					case g == deferConditional && guard == deferUnconditional:
						found, guard = c, g
					case g != deferUnconditional:
						guard = deferUnrelated // two conditions, or one that says nothing
					}
				}
			}
			return false
		}
		stack = append(stack, n)
		return true
	})
	if jumps(lit.Body) {
		guard = deferUnrelated // goto out, break outer: past r, maybe
	}
	// An early return of lit before r is a condition on r too: if skip { return }; f.Close()
	// releases where skip is false.
	for _, end := range bodyEnds(lit.Body) {
		ret, ok := end.(*ast.ReturnStmt)
		if !ok || ret.End() > r.Pos() || guard == deferUnrelated {
			continue // after r, or r's own: return l.Unlock()
		}
		is, exclusive := earlyReturn(lit.Body, ret, r)
		if exclusive || is == nil {
			continue // if f == nil { return } else { f.Close() }: the if above read it
		}
		// A condition the search follows (if err == nil { return }) puts r where it does
		// not hold. Any other is the author's exception, which the closure knows and the
		// search does not (cilium/ebpf keeps the cgroup file open where the link it returns
		// holds it: if _, ok := cg.(*progAttachCgroup); ok { return }): r still counts.
		switch c, g := w.releaseCond(info, is.Cond, false); {
		case g == deferConditional && c.declaredIn(lit):
			// err := f.Sync(); if err == nil { return }: the closure's own exception
		case g == deferConditional && guard == deferUnconditional:
			found, guard = c, g
		case g == deferConditional:
			found = found.conjoin(c) // if err == nil { return }; if !ok { f.Close() }: both hold
		}
	}
	if guard == deferConditional {
		found = w.markNamed(found)
	}
	return found, guard
}

// errCase returns the test a case of a switch on an error stands for, stack[i] being the
// case: err == nil for case nil, err != nil for the default of a switch whose only other
// case is nil (switch err { case nil: err = tx.Commit(); default: tx.Rollback() }), or nil.
func errCase(info *types.Info, stack []ast.Node, i int) ast.Expr {
	cc, ok := stack[i].(*ast.CaseClause)
	if !ok || i < 2 {
		return nil
	}
	sw, ok := stack[i-2].(*ast.SwitchStmt)
	if !ok || sw.Init != nil || sw.Tag == nil || !isError(info.TypeOf(sw.Tag)) {
		return nil
	}
	var nilCase *ast.CaseClause
	for _, st := range sw.Body.List {
		if c, ok := st.(*ast.CaseClause); ok && len(c.List) == 1 && isNilIdent(info, c.List[0]) {
			nilCase = c
		}
	}
	switch {
	case nilCase == nil:
		return nil
	case cc == nilCase:
		return &ast.BinaryExpr{X: sw.Tag, Op: token.EQL, OpPos: cc.Pos(), Y: cc.List[0]}
	case cc.List == nil && len(sw.Body.List) == 2:
		return &ast.BinaryExpr{X: sw.Tag, Op: token.NEQ, OpPos: cc.Pos(), Y: nilCase.List[0]}
	}
	return nil
}

// jumps reports whether body, outside its function literals, has a goto or a labeled break
// or continue.
func jumps(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.BranchStmt:
			found = found || n.Tok == token.GOTO || n.Label != nil
		}
		return !found
	})
	return found
}

// fallbackAcquisition reports whether as assigns the result of another acquisition of the
// acquired resource, as a bool: acquired = sem.Acquire(ctx) == nil, acquired =
// sem.TryAcquire(), on the same receiver.
func (w *walker) fallbackAcquisition(as *ast.AssignStmt) bool {
	if len(as.Rhs) != 1 || w.a.recvKey == "" {
		return false
	}
	e := ast.Unparen(as.Rhs[0])
	if b, ok := e.(*ast.BinaryExpr); ok && b.Op == token.EQL {
		e = ast.Unparen(b.X)
		if isNilIdent(w.p.pass.TypesInfo, e) {
			e = ast.Unparen(b.Y)
		}
	}
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	fn, ok := typeInfoCallee(w.p.pass.TypesInfo, call)
	if !ok {
		return false
	}
	k, ok := recvKeyOf(w.p.pass.TypesInfo, call)
	_, acq := matchVerb(fn.Name())
	return ok && acq && k == w.a.recvKey
}

// assignsOnce reports whether body assigns o in one statement only.
func assignsOnce(info *types.Info, body *ast.BlockStmt, o types.Object) bool {
	n := 0
	ast.Inspect(body, func(x ast.Node) bool {
		if as, ok := x.(*ast.AssignStmt); ok {
			for _, l := range as.Lhs {
				if id, ok := ast.Unparen(l).(*ast.Ident); ok && info.ObjectOf(id) == o {
					n++
				}
			}
		}
		return true
	})
	return n == 1
}

// earlyReturn returns the if, without an else, whose body ends with ret, a return of body
// before r, when it is a statement of a block around r: if err == nil { return } … r.
// exclusive says that ret and r sit in branches of which one runs, and the if is nil when
// ret is any other return before r.
func earlyReturn(body *ast.BlockStmt, ret *ast.ReturnStmt, r *ast.CallExpr) (is *ast.IfStmt, exclusive bool) {
	retPath, rPath := pathTo(body, ret), pathTo(body, r)
	if exclusiveBranches(retPath, rPath) {
		return nil, true
	}
	n := len(retPath)
	if n < 4 {
		return nil, false
	}
	blk, _ := retPath[n-2].(*ast.BlockStmt)
	is, _ = retPath[n-3].(*ast.IfStmt)
	outer, _ := retPath[n-4].(*ast.BlockStmt)
	if blk == nil || is == nil || is.Else != nil || blk.List[len(blk.List)-1] != ret || outer == nil || !within(outer, r) {
		return nil, false
	}
	return is, false
}

// releaseCond reads the condition of an if around a deferred release, taken when it is
// want: a nil guard on the handle (f != nil) is no condition; "!ok", "ok", "ok == false" on a
// flag the function sets to a constant, "err != nil" and "err == nil" are conditions the
// search follows; anything else is unrelated. A conjunction with a nil guard is its other
// operand.
func (w *walker) releaseCond(info *types.Info, cond ast.Expr, want bool) (condRelease, deferGuard) {
	cond = ast.Unparen(cond)
	switch c := cond.(type) {
	case *ast.UnaryExpr:
		if c.Op == token.NOT {
			return w.releaseCond(info, c.X, !want)
		}
	case *ast.SelectorExpr:
		if o := w.fieldFlag(c); o != nil {
			return condRelease{flag: o, when: want}, deferConditional // if !rv.open { rv.i.Close() }
		}
	case *ast.Ident:
		if o := info.ObjectOf(c); o != nil && want && isBool(o.Type()) && w.a.guards[o] && w.guardKept(o) {
			return condRelease{}, deferUnconditional // if acquired { release } for acquired := sem.TryAcquire()
		}
		if o := info.ObjectOf(c); o != nil && w.isFlag(o) {
			return condRelease{flag: o, when: want}, deferConditional
		}
	case *ast.BinaryExpr:
		if c.Op == token.LAND && want {
			x, gx := w.releaseCond(info, c.X, true)
			y, gy := w.releaseCond(info, c.Y, true)
			switch {
			case gx == deferUnconditional:
				return y, gy
			case gy == deferUnconditional:
				return x, gx
			case gx == deferConditional && gy == deferConditional:
				// if err != nil && created { release }: runs where both terms hold.
				return x.conjoin(y), deferConditional
			}
			return condRelease{}, deferUnrelated
		}
		if w.descriptorGuard(info, c, want) {
			return condRelease{}, deferUnconditional // if fd >= 0 { syscall.Close(fd) }
		}
		if c.Op != token.EQL && c.Op != token.NEQ {
			return condRelease{}, deferUnrelated
		}
		x, y := ast.Unparen(c.X), ast.Unparen(c.Y)
		if isNilIdent(info, x) {
			x, y = y, x
		}
		if k, ok := exprKey(info, x); ok && w.a.recvKey != "" && k == w.a.recvKey && isNilIdent(info, y) && (c.Op == token.NEQ) == want {
			return condRelease{}, deferUnconditional // if w.backend != nil { w.backend.stopReaper() }
		}
		id, ok := x.(*ast.Ident)
		if !ok {
			return condRelease{}, deferUnrelated
		}
		o := info.ObjectOf(id)
		if o == nil {
			return condRelease{}, deferUnrelated
		}
		if isNilIdent(info, y) {
			nonNil := (c.Op == token.NEQ) == want
			switch {
			case isError(o.Type()):
				return condRelease{errVar: o, errNil: !nonNil}, deferConditional
			case nonNil && (w.a.values[o] || w.a.guards[o]):
				return condRelease{}, deferUnconditional // if f != nil { f.Close() }
			}
			return condRelease{}, deferUnrelated
		}
		if w.isFlag(o) {
			if tv, ok := info.Types[y]; ok && tv.Value != nil {
				v := tv.Value.String() == "true"
				if c.Op == token.NEQ {
					v = !v
				}
				return condRelease{flag: o, when: v == want}, deferConditional
			}
		}
	}
	return condRelease{}, deferUnrelated
}

// isFlag reports whether o is a bool variable of the function that the function sets to a
// constant somewhere (ok := false … ok = true), and that the search follows (tracked: never
// address-taken or assigned in a function literal): the ok flag of a deferred release. A
// bool parameter or a field says nothing about the acquisition.
func (w *walker) isFlag(o types.Object) bool {
	if isBool(o.Type()) && (w.tracked(o) || w.vars.flagUntilTaken[o]) && slices.Contains(w.namedBools(), o) {
		return true // (ok bool): every return sets it (returnSetsFlags)
	}
	if !isBool(o.Type()) || !isLocal(o, w.body) || !w.tracked(o) && !w.vars.flagUntilTaken[o] {
		return false // a flag a closure may change says nothing the path knows
	}
	if v, ok := w.flagCache[o]; ok {
		return v
	}
	info := w.p.pass.TypesInfo
	found := false
	constant := func(e ast.Expr) bool {
		tv, ok := info.Types[e]
		return ok && tv.Value != nil
	}
	ast.Inspect(w.body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				if id, ok := ast.Unparen(l).(*ast.Ident); ok && info.ObjectOf(id) == o && len(n.Lhs) == len(n.Rhs) && constant(n.Rhs[i]) {
					found = true
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if info.Defs[id] == o && (len(n.Values) == 0 || (i < len(n.Values) && constant(n.Values[i]))) {
					found = true
				}
			}
		}
		return !found
	})
	if w.flagCache == nil {
		w.flagCache = map[types.Object]bool{}
	}
	w.flagCache[o] = found
	return found
}

// fieldFlag returns the bool field sel selects when it is the ok flag of a holder (bleve's
// openIndexUsing: defer func(rv *indexImpl) { if !rv.open { rv.i.Close() } }(rv), then
// rv.open = true before the one return that hands rv on), or nil. The field is such a flag
// when the function sets it to a constant, outside its function literals, through one local
// or named result that names one value throughout (boundOnce), and never takes its address
// nor sets it otherwise: then, like a local ok flag, it changes only where the path assigns
// it. sel reads it through that variable or through a parameter of a function literal, the
// deferred closure's own name for it.
func (w *walker) fieldFlag(sel *ast.SelectorExpr) types.Object {
	info := w.p.pass.TypesInfo
	s, ok := info.Selections[sel]
	if !ok || s.Kind() != types.FieldVal || !isBool(s.Obj().Type()) {
		return nil
	}
	base, ok := ast.Unparen(sel.X).(*ast.Ident)
	if !ok {
		return nil
	}
	field := s.Obj()
	byField := w.p.flagFields[w.body]
	holder, done := byField[field]
	if !done {
		holder = w.flagHolder(field)
		if byField == nil {
			if w.p.flagFields == nil {
				w.p.flagFields = map[*ast.BlockStmt]map[types.Object]types.Object{}
			}
			byField = map[types.Object]types.Object{}
			w.p.flagFields[w.body] = byField
		}
		byField[field] = holder
	}
	if holder == nil {
		return nil
	}
	if o := info.ObjectOf(base); o != holder && !w.isLitParam(o) {
		return nil
	}
	return field
}

// flagHolder returns the one local or named result through which the function sets field to
// a constant, or nil when it sets it otherwise, takes its address, or never sets it.
func (w *walker) flagHolder(field types.Object) types.Object {
	info := w.p.pass.TypesInfo
	var holder types.Object
	bad := false
	inspectInLiterals(w.body, func(n ast.Node, inLit bool) {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				sel, ok := ast.Unparen(l).(*ast.SelectorExpr)
				if !ok || info.Selections[sel] == nil || info.Selections[sel].Obj() != field {
					continue
				}
				id, ok := ast.Unparen(sel.X).(*ast.Ident)
				if !ok || inLit || len(n.Lhs) != len(n.Rhs) || info.Types[n.Rhs[i]].Value == nil {
					bad = true
					continue
				}
				o := info.ObjectOf(id)
				if holder != nil && o != holder || !w.boundOnce(o) {
					bad = true
				}
				holder = o
			}
		case *ast.UnaryExpr:
			if sel, ok := ast.Unparen(n.X).(*ast.SelectorExpr); ok && n.Op == token.AND && info.Selections[sel] != nil && info.Selections[sel].Obj() == field {
				bad = true // &rv.open: anything may set it
			}
		}
	})
	if bad {
		return nil
	}
	return holder
}

// boundOnce reports whether o names one value throughout the body: a local never assigned
// after its declaration, or a named result assigned once (rv = &indexImpl{…}).
func (w *walker) boundOnce(o types.Object) bool {
	info := w.p.pass.TypesInfo
	if isLocal(o, w.body) {
		return !reassigned(info, w.body, o)
	}
	if !w.isNamedResult(o) {
		return false
	}
	n := 0
	mutates(info, w.body, func(e ast.Expr, replaced bool) bool {
		if id, ok := ast.Unparen(e).(*ast.Ident); ok && replaced && info.Uses[id] == o {
			n++
		}
		return false // count them all
	})
	return n == 1
}

// isLitParam reports whether o is a parameter of a function literal of the body.
func (w *walker) isLitParam(o types.Object) bool {
	found := false
	ast.Inspect(w.body, func(n ast.Node) bool {
		if lit, ok := n.(*ast.FuncLit); ok && o != nil && o.Pos() >= lit.Type.Pos() && o.Pos() < lit.Type.End() {
			found = true
		}
		return !found
	})
	return found
}

// markNamed sets namedErr on each term of c whose error is a named result.
func (w *walker) markNamed(c condRelease) condRelease {
	if c.errVar != nil {
		c.namedErr = w.isNamedResult(c.errVar)
	}
	if c.and != nil {
		next := w.markNamed(*c.and)
		c.and = &next
	}
	return c
}

func (w *walker) isNamedResult(o types.Object) bool {
	res := w.sig.Results()
	for i := 0; i < res.Len(); i++ {
		if res.At(i) == o {
			return true
		}
	}
	return false
}

// deferGuardRuns reports whether one of the deferred conditional releases on this path runs
// at ret (nil: the end of the body), a return that carries an error when errRet.
func (w *walker) deferGuardRuns(ret *ast.ReturnStmt, st *state, errRet bool) bool {
	return slices.ContainsFunc(st.conds, func(c condRelease) bool { return w.condRuns(c, ret, st, errRet) })
}

// okGuardRuns reports whether a deferred release under an ok flag or through a function
// variable runs at ret: defer func() { if !succeeded { mu.Unlock() } }() before succeeded
// = true (holdsOnSuccess reads what those returns say).
func (w *walker) okGuardRuns(ret *ast.ReturnStmt, st *state, errRet bool) bool {
	return slices.ContainsFunc(st.conds, func(c condRelease) bool {
		return (c.flag != nil || c.fnVar != nil) && w.condRuns(c, ret, st, errRet)
	})
}

// namedBools returns the function's named results of type bool.
func (w *walker) namedBools() []types.Object {
	var out []types.Object
	res := w.sig.Results()
	for i := 0; i < res.Len(); i++ {
		if v := res.At(i); v.Name() != "" && v.Name() != "_" && isBool(v.Type()) {
			out = append(out, v)
		}
	}
	return out
}

// returnSetsFlags applies what ret assigns to named bool results (return false for (ok
// bool)) before the deferred releases run: a deferred if !ok { mu.Unlock() } reads it.
func (w *walker) returnSetsFlags(ret *ast.ReturnStmt, st *state) {
	res := w.sig.Results()
	if ret == nil || len(ret.Results) != res.Len() {
		return
	}
	named := w.namedBools()
	if len(named) == 0 {
		return
	}
	st.flags = maps.Clone(st.flags) // the path ends here; its siblings keep theirs
	st.escaped = maps.Clone(st.escaped)
	for i := 0; i < res.Len(); i++ {
		o := res.At(i)
		if !slices.Contains(named, types.Object(o)) {
			continue
		}
		if c, ok := w.p.pass.TypesInfo.Types[ret.Results[i]]; ok && c.Value != nil && c.Value.Kind() == constant.Bool {
			st.flags[o] = constant.BoolVal(c.Value)
			delete(st.escaped, o) // return false sets it last, whatever a pointer did before
		} else {
			delete(st.flags, o)
		}
	}
}

// condRuns reports whether the release under c runs at ret: every term of c holds there.
func (w *walker) condRuns(c condRelease, ret *ast.ReturnStmt, st *state, errRet bool) bool {
	if !w.termRuns(c, ret, st, errRet) {
		return false
	}
	return c.and == nil || w.condRuns(*c.and, ret, st, errRet)
}

// termRuns reports whether one term of a condition holds at ret.
func (w *walker) termRuns(c condRelease, ret *ast.ReturnStmt, st *state, errRet bool) bool {
	switch {
	case c.fnVar != nil && c.viaAlias:
		return st.aliases[c.fnVar]
	case c.fnVar != nil:
		return st.clos[c.fnVar]
	case c.flag != nil && st.escaped[c.flag]:
		return false // pc := &created: a pointer may have changed it since
	case c.flag != nil:
		v, known := st.flags[c.flag]
		return !known || v == c.when
	case c.errVar != nil && c.errNil:
		// defer func() { if err == nil { release } }(): runs on the returns where err is nil.
		if c.namedErr && ret != nil && len(ret.Results) > 0 {
			// The return sets the named err before the closure reads it: a return that may
			// carry an error (return tx.Put(k, v), return err) may skip the release.
			return !errRet
		}
		if c.namedErr && !errRet {
			return true
		}
		return slices.Contains(st.nilErr, c.errVar) || (c.errVar == w.a.errObj && st.errLive && !slices.Contains(st.errSet, c.errVar))
	case c.errVar != nil:
		if c.namedErr && errRet {
			return true // the return sets the named err, the deferred release sees it
		}
		if ret != nil && len(ret.Results) > 0 {
			if id, ok := ast.Unparen(ret.Results[len(ret.Results)-1]).(*ast.Ident); ok && w.p.pass.TypesInfo.ObjectOf(id) == c.errVar && errRet {
				return true
			}
		}
		return slices.Contains(st.errSet, c.errVar)
	}
	return false
}

// aroundAcquisition reports whether s is a statement of a block that holds the acquisition.
func (w *walker) aroundAcquisition(s ast.Stmt) bool {
	for _, n := range w.a.stmtStack {
		if list, _ := stmtList(n); slices.Contains(list, s) {
			return true
		}
	}
	return false
}

// reassignedAfter reports whether an acquired value is assigned after the acquisition's
// statement: a closure deferred before it reads what the variable holds when it runs (f =
// nil after the open leaves nothing to close).
func (w *walker) reassignedAfter() bool {
	info := w.p.pass.TypesInfo
	found := false
	ast.Inspect(w.body, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && as.Pos() > w.a.node.End() {
			for _, l := range as.Lhs {
				if id, ok := ast.Unparen(l).(*ast.Ident); ok && w.a.values[info.Uses[id]] {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// receiverReassignedAfter reports whether the body assigns, after the acquisition, the
// receiver it was made on or what that is reached through (r = nil, w.backend =
// newReaper() after w.backend.startReaper()).
func (w *walker) receiverReassignedAfter() bool {
	found := false
	ast.Inspect(w.body, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && as.Pos() > w.a.node.End() {
			found = found || slices.ContainsFunc(as.Lhs, w.isReceiverPath)
		}
		return !found
	})
	return found
}

// isReceiverPath reports whether l names the receiver the acquisition was made on, or a
// variable or field it is reached through: r, w.backend or w for w.backend.startReaper().
func (w *walker) isReceiverPath(l ast.Expr) bool {
	info := w.p.pass.TypesInfo
	recv := receiver(info, w.a.call)
	for recv != nil {
		if k1, ok1 := exprKey(info, l); ok1 {
			if k2, ok2 := exprKey(info, recv); ok2 && k1 == k2 {
				return true
			}
		}
		sel, ok := ast.Unparen(recv).(*ast.SelectorExpr)
		if !ok {
			return false
		}
		recv = sel.X
	}
	return false
}

// descriptorGuard reports whether c, taken when it is want, tests a basic handle of the
// acquisition against a constant in a way that holds wherever it holds a descriptor and
// skips only the values it has when it holds nothing (0 unset, -1 failed): fd != 0, fd !=
// -1, fd >= 0, fd > 0, fd >= 1, also written the other way round (0 <= fd) or negated
// (!(fd < 0)). It is a nil guard for a descriptor, as f != nil is for a file.
func (w *walker) descriptorGuard(info *types.Info, c *ast.BinaryExpr, want bool) bool {
	x, y, op := c.X, c.Y, c.Op
	if tv, ok := info.Types[x]; ok && tv.Value != nil {
		x, y = y, x
		op = map[token.Token]token.Token{token.LSS: token.GTR, token.GTR: token.LSS, token.LEQ: token.GEQ, token.GEQ: token.LEQ}[op]
		if op == 0 {
			op = c.Op // == and != read the same both ways
		}
	}
	if !want {
		op = map[token.Token]token.Token{token.EQL: token.NEQ, token.NEQ: token.EQL, token.LSS: token.GEQ, token.GEQ: token.LSS, token.GTR: token.LEQ, token.LEQ: token.GTR}[op]
	}
	id, ok := ast.Unparen(x).(*ast.Ident)
	if !ok || !w.a.basic[info.ObjectOf(id)] {
		return false
	}
	tv, ok := info.Types[y]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.Int {
		return false
	}
	k, exact := constant.Int64Val(tv.Value)
	if !exact {
		return false
	}
	switch op {
	case token.NEQ, token.GTR:
		return k <= 0
	case token.GEQ:
		return k <= 1
	}
	return false
}

// onceDone reports how call, deferred, releases when it is once.Do(fn) of a sync.Once and
// every Do of that once in the function is given a release: a literal (or a closure variable
// bound to one) that releases under no condition but a guard, or the release as a method
// value (once.Do(g.mu.Unlock)). Whichever Do runs first is a release, and the once runs no
// other (minio-go's snowball upload defers once.Do(func() { f.Close() }), and its reader
// closes f by the same once before it opens the file again). It returns the deferred Do's
// literal, or released for a method value; neither when call is no such Do.
func (w *walker) onceDone(call *ast.CallExpr, st *state) (lit *ast.FuncLit, released bool) {
	arg, key, ok := onceDo(w.p.pass.TypesInfo, call)
	if !ok || !w.onceReleases(key, st) {
		return nil, false
	}
	if w.releaseMethodValue(arg, st) {
		return nil, true
	}
	return w.onceLiteral(arg), false
}

// onceReleases reports whether every Do of the sync.Once of key in the function is given a
// release ([walker.onceDone]).
func (w *walker) onceReleases(key string, st *state) bool {
	info := w.p.pass.TypesInfo
	releases := func(arg ast.Expr) bool {
		if w.releaseMethodValue(arg, st) {
			return true
		}
		l := w.onceLiteral(arg)
		return l != nil && slices.ContainsFunc(w.litReleases(l), func(r *ast.CallExpr) bool {
			_, g := w.guardOf(l, r)
			return g == deferUnconditional
		})
	}
	all := true
	ast.Inspect(w.body, func(n ast.Node) bool {
		if c, isCall := n.(*ast.CallExpr); isCall && all {
			if a, k, ok := onceDo(info, c); ok && k == key && !releases(a) {
				all = false
			}
		}
		return all
	})
	return all
}

// onceLiteral returns the literal a function value given to once.Do is: the literal itself,
// or the one a closure variable of the function is bound to.
func (w *walker) onceLiteral(arg ast.Expr) *ast.FuncLit {
	switch a := ast.Unparen(arg).(type) {
	case *ast.FuncLit:
		return a
	case *ast.Ident:
		return w.p.closureVars(w.body)[w.p.pass.TypesInfo.Uses[a]]
	}
	return nil
}

// onceDo returns the function value a call of sync.Once's Do is given, with the key of its
// once, when call is one.
func onceDo(info *types.Info, call *ast.CallExpr) (ast.Expr, string, bool) {
	fn, ok := typeInfoCallee(info, call)
	if !ok || fn.Name() != "Do" || fn.Pkg() == nil || fn.Pkg().Path() != "sync" || len(call.Args) != 1 {
		return nil, "", false
	}
	key, ok := recvKeyOf(info, call)
	if !ok {
		return nil, "", false
	}
	return call.Args[0], key, true
}
