package releasepath

import (
	"go/ast"
	"go/types"
)

// A holdSummary says that a function of the package returns holding a lock of its receiver
// or of a parameter where one of its results says success (holdsOnSuccess): a try-lock, a
// lookup that returns its entry with the table locked. Its callers carry the obligation.
type holdSummary struct {
	param int       // -1 the receiver, else the index of the parameter the lock is a field of
	path  string    // the names of the lock's fields from it (".mu"), as fieldPath writes them
	verb  verbMatch // the lock's verb and mode: Lock, RLock, TryLock
}

// holdOf returns the summaries of fn, a function of the package, when it returns holding
// locks of its receiver or of its parameters by contract and takes back nothing else (a
// startWriting that takes r.lockfile and r.inProcessLock for its stopWriting); nil
// otherwise. It is computed once, by checking fn's body without reporting, or read from the
// one call fn returns the result of (heldChain); a cycle of calls proves nothing.
func (p *pkgChecker) holdOf(fn *types.Func) []*holdSummary {
	if h, ok := p.holds[fn]; ok {
		return h
	}
	if p.holds == nil {
		p.holds = map[*types.Func][]*holdSummary{}
	}
	p.holds[fn] = nil // a cycle proves nothing
	fd := p.decls[fn]
	if fd == nil {
		return nil
	}
	if h := p.heldChain(fd); h != nil {
		p.holds[fn] = h
		return h
	}
	if !mayHold(p.pass.TypesInfo, fd) {
		return nil
	}
	g := p.cfgs.FuncDecl(fd)
	if g == nil {
		return nil
	}
	c := &holdCollector{fd: fd}
	outer := p.collecting
	p.collecting = c
	p.checkFunc(fd, fd.Body, fn.Type().(*types.Signature), g, fd.Doc, nil)
	p.collecting = outer
	if len(c.found) > 0 && !c.other {
		p.holds[fn] = c.found
	}
	return p.holds[fn]
}

// heldChain returns the summaries of fd when its body is one return of a call of a function
// that returns holding locks of what fd passes it of its own, its receiver or a parameter
// (func (r *layerStore) startWriting() error { return r.startWritingWithReload(true) }):
// fd returns holding the same locks, named from its own side.
func (p *pkgChecker) heldChain(fd *ast.FuncDecl) []*holdSummary {
	call := onlyReturnedCall(fd)
	if call == nil {
		return nil
	}
	info := p.pass.TypesInfo
	fn, ok := typeInfoCallee(info, call)
	if !ok {
		return nil
	}
	var inner []*holdSummary
	if fn = fn.Origin(); fn.Pkg() == p.pass.Pkg {
		inner = p.holdOf(fn)
	} else if wi := p.imported(fn); wi != nil {
		inner = wi.hold
	}
	params := declParams(info, fd)
	var out []*holdSummary
	for _, h := range inner {
		var e ast.Expr
		if h.param < 0 {
			e = receiver(info, call)
		} else if h.param < len(call.Args) {
			e = call.Args[h.param]
		}
		id, ok := ast.Unparen(e).(*ast.Ident) // e is nil when the argument is missing
		if !ok {
			return nil
		}
		idx, ok := params[info.Uses[id]]
		if !ok {
			return nil // a lock of something fd made itself: no caller has it
		}
		out = append(out, &holdSummary{param: idx, path: h.path, verb: h.verb})
	}
	return out
}

// mayHoldByChain reports, cheaply, whether fd could hold locks by heldChain: it is one return
// of a call of a function of the package that could hold one (mayHold), or of another
// package's whose fact says it does. Most one-line wrappers (return pkgHandle.LinkAdd(l))
// call neither, and no checker is made for them.
func (p *pkgChecker) mayHoldByChain(fd *ast.FuncDecl) bool {
	call := onlyReturnedCall(fd)
	if call == nil {
		return false
	}
	fn, ok := typeInfoCallee(p.pass.TypesInfo, call)
	if !ok {
		return false
	}
	if fn = fn.Origin(); fn.Pkg() == p.pass.Pkg {
		d := p.decls[fn]
		return d != nil && (mayHold(p.pass.TypesInfo, d) || onlyReturnedCall(d) != nil)
	}
	wi := p.imported(fn)
	return wi != nil && len(wi.hold) > 0
}

// onlyReturnedCall returns the call fd's body is the one return of (return f(x)), or nil.
func onlyReturnedCall(fd *ast.FuncDecl) *ast.CallExpr {
	if fd.Body == nil || len(fd.Body.List) != 1 {
		return nil
	}
	ret, ok := fd.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return nil
	}
	call, _ := ast.Unparen(ret.Results[0]).(*ast.CallExpr)
	return call
}

// A holdCollector gathers, while one function is checked for its summary, the locks it
// returns holding by contract; other is set when any acquisition leaks otherwise.
type holdCollector struct {
	fd    *ast.FuncDecl
	found []*holdSummary
	other bool
}

// mayHold reports, cheaply, whether fd could return holding a lock: it has a result that
// can say success (an error, a bool, something nilable) and calls a lock method on a field
// selected from its receiver or a parameter.
func mayHold(info *types.Info, fd *ast.FuncDecl) bool {
	if fd.Type.Results == nil {
		return false
	}
	says := false
	for _, f := range fd.Type.Results.List {
		if t := info.TypeOf(f.Type); t != nil && (isError(t) || isBool(t) || nilable(t)) {
			says = true
		}
	}
	if !says {
		return false
	}
	found := false
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if sel, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr); ok {
				if m, ok := matchVerb(sel.Sel.Name); ok && m.verb == "Lock" {
					_, isSel := ast.Unparen(sel.X).(*ast.SelectorExpr)
					found = found || isSel
				}
			}
		}
		return !found
	})
	return found
}

// collectHold records, in the function whose summary is being computed, what the walker
// found for one acquisition: a lock of the receiver or a parameter that every leak returns
// holding by contract (held: the leaks holdsOnSuccess dropped, none left), or a leak.
func (w *walker) collectHold(c *holdCollector, before, after int) {
	if after > 0 || isLock(w.a) && w.a.valueErrOnly {
		// A leak, or a lock the function never releases: no release of it anywhere says
		// what its callers must do.
		c.other = true
		return
	}
	if before == 0 || !isLock(w.a) || w.a.held != nil {
		return // released on every path: nothing held
	}
	info := w.p.pass.TypesInfo
	recv := receiver(info, w.a.call)
	if recv == nil {
		c.other = true
		return
	}
	root, path, ok := fieldPath(info, ast.Unparen(recv))
	if !ok {
		c.other = true
		return
	}
	param, found := declParamIndex(info, c.fd, root)
	if !found {
		c.other = true // a lock of a local or a package variable: no caller has it
		return
	}
	if _, isSel := ast.Unparen(recv).(*ast.SelectorExpr); !isSel {
		c.other = true // the receiver itself is the lock: t.Lock(), left to leadingverb
		return
	}
	h := &holdSummary{param: param, path: path, verb: w.a.verb}
	for _, f := range c.found {
		if f.param == h.param && f.path == h.path && f.verb.verb == h.verb.verb {
			return // the same lock, taken on two paths
		}
	}
	c.found = append(c.found, h)
}

// declParamIndex returns the index of o among fd's parameters, -1 for its receiver.
func declParamIndex(info *types.Info, fd *ast.FuncDecl, o types.Object) (int, bool) {
	i, ok := declParams(info, fd)[o]
	return i, ok
}

// heldCandidates returns the acquisitions a call of fn makes when fn returns holding locks of
// what the call passes it, one for each lock: c.lookup(k) holding c.mu, lockTable(t)
// holding t.mu, r.startWriting() holding r.lockfile and r.inProcessLock.
func (p *pkgChecker) heldCandidates(call *ast.CallExpr, fn *types.Func) []*acquisition {
	var hs []*holdSummary
	if fn = fn.Origin(); fn.Pkg() == nil {
		return nil // error.Error
	} else if fn.Pkg() == p.pass.Pkg {
		hs = p.holdOf(fn) // nil for the function being summarized: holdOf marks it first
	} else if wi := p.imported(fn); wi != nil {
		hs = wi.hold // from its package's fact
	}
	var out []*acquisition
	for _, h := range hs {
		out = append(out, &acquisition{call: call, fn: fn, name: fn.Name(), kind: scoped, source: "verb", verb: h.verb, held: h})
	}
	return out
}

// bindHeld sets the lock a held acquisition takes in its caller's terms: c.mu for
// c.lookup(k). It reports false when what the call passes has no stable identity.
func (a *acquisition) bindHeld(info *types.Info) bool {
	e := a.heldExpr(info)
	if e == nil {
		return false
	}
	k, ok := exprKey(info, e)
	if !ok {
		return false
	}
	// The field names are looked up in the callee's package, which may be another: a
	// caller of store.Lookup holds s.mu though it could not name it.
	suffix, ok := resolveFields(info.TypeOf(e), a.fn.Pkg(), a.held.path)
	if !ok {
		return false
	}
	a.recvKey = k + suffix
	a.recvIsResource = false
	return true
}

// heldExpr returns what the call passes the function the lock is a field of: its receiver
// or an argument, t for t.lookup(k), x for lockTable(x). Nil when there is none.
func (a *acquisition) heldExpr(info *types.Info) ast.Expr {
	if a.held.param < 0 {
		return receiver(info, a.call)
	}
	if a.held.param < len(a.call.Args) {
		return a.call.Args[a.held.param]
	}
	return nil
}
