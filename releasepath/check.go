package releasepath

import (
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strings"

	"golang.org/x/tools/go/cfg"
)

// checkFunc checks one function (declared or literal). It costs a walk of the body's calls,
// and a CFG search only when one of them is a candidate acquisition.
//
// txParam is the transaction parameter when the function is a literal passed to a
// transaction (see [pkgChecker.transaction]): its creates are undone by any error return.
func (p *pkgChecker) checkFunc(fnNode ast.Node, body *ast.BlockStmt, sig *types.Signature, g *cfg.CFG, fdoc *ast.CommentGroup, txParam types.Object) {
	info := p.pass.TypesInfo
	cands := collectCalls(info, body, false, func(call *ast.CallExpr, fn *types.Func) bool {
		return len(p.candidates(call, fn)) > 0
	})
	if len(cands) == 0 || p.funcSuppressed(fnNode, fdoc) {
		return
	}
	all := collectCalls(info, body, true, func(*ast.CallExpr, *types.Func) bool { return true })
	// A method that acquires through a method of its own receiver declared in this package,
	// returning nothing or an error (l.acquire() inside a method of l), manages the
	// receiver's state, not a resource of this call (receiverstate). An embedded mutex's
	// Lock is still checked: it is declared in sync.
	var self types.Object
	var method *types.Func
	if fd, ok := fnNode.(*ast.FuncDecl); ok {
		if self = recvObject(info, fd); self != nil {
			method, _ = info.Defs[fd.Name].(*types.Func)
		}
	}
	for _, c := range cands {
		for _, a := range p.candidates(c.call, c.fn) {
			if p.ownReceiverCall(c.call, c.fn, self) {
				if c.fn.Type().(*types.Signature).Results().Len() == 0 || !p.changesReceiver(c.fn) {
					continue
				}
				// One that can fail is the method's to undo where it fails itself: only a
				// return whose error is known non-nil drops it (containerd's fetcher takes
				// r.Acquire(ctx, 1) and returns an unsupported encoding holding it); a
				// return that may say success keeps it for the receiver.
				a.receiverState = true
			}
			if txParam != nil && a.kind != scoped && mentionsObj(info, receiver(info, a.call), txParam) {
				continue // tx.CreateBucket(…) in db.Update(func(tx) error {…}): an error return rolls it back
			}
			if !a.bind(info, c.stack, body) || assignsOuter(a, fnNode) {
				continue
			}
			if a.held != nil && !a.bindHeld(info) {
				continue
			}
			if p.receiverOwned(a, method, self, body) {
				continue // veth named by n.hostName, deleted by the type's cleanup
			}
			p.paramRelease(a, body)
			a.holders = p.compositeHolders(body, a)
			a.closureHolders = p.closureHolders(body, a)
			a.releases = p.findReleases(a, all)
			p.closureCallReleases(a, all, body)
			if a.pair == nil && len(a.releases) > 0 && !slices.ContainsFunc(a.releases, func(r *releaseCall) bool { return !r.viaHolder }) {
				continue // a holder's method ends it, but is no evidence that the verb must be ended
			}
			if p.enteredHolding(a, all) || deferredBefore(info, a, body) {
				continue
			}
			a.stringHandOff(info)
			if len(a.releases) == 0 {
				// A method value of the release (unlock := c.mu.Unlock) is evidence as much as a
				// call of it; called or deferred later, it releases, and left uncalled it does not.
				if text, ok := p.releaseValueIn(a, body); ok {
					a.relText = text
				}
			}
			if len(a.releases) == 0 && a.relText == "" {
				// So is the other mode's release on the same mutex (c.mu.Unlock after
				// c.mu.RLock), which releases nothing: every return skips the lock's own.
				if call, ok := p.otherModeRelease(a, all); ok {
					a.relText, a.otherMode = types.ExprString(receiver(info, a.call))+"."+a.verb.releases[0], call
				}
			}
			if a.held != nil && len(a.releases) == 0 {
				continue // a lock needs its own evidence: the caller releases it somewhere
			}
			if len(a.releases) == 0 && a.pair == nil && a.relText == "" {
				text, ok := a.releaseMethod(info)
				if !ok {
					if c := p.collecting; c != nil && isLock(a) {
						c.other = true // a lock it never releases: no contract to summarize
					}
					continue // a verb without evidence: no release of it anywhere in the function
				}
				a.valueErrOnly, a.relText = true, text
			}
			if a.kind == rollback && !p.undoneOnErrorPath(a) {
				continue // a create the function keeps on purpose
			}
			if p.suppressedAt(a.call.Pos()) {
				continue
			}
			w := &walker{p: p, a: a, sig: sig, g: g, body: body, fnNode: fnNode, reported: map[token.Pos]bool{}}
			w.run()
		}
	}
}

// mentionsObj reports whether e (an expression or a statement) refers to o.
func mentionsObj(info *types.Info, e ast.Node, o types.Object) bool {
	if e == nil {
		return false
	}
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && info.Uses[id] == o {
			found = true
		}
		return !found
	})
	return found
}

// releaseValueIn returns the text of a method value of a's release in body (c.mu.Unlock in
// unlock := c.mu.Unlock), if there is one.
func (p *pkgChecker) releaseValueIn(a *acquisition, body *ast.BlockStmt) (string, bool) {
	info := p.pass.TypesInfo
	for _, n := range p.index(body).methodValues {
		if fn, ok := info.Selections[n].Obj().(*types.Func); ok && p.isReleaseValue(a, n, fn, nil) {
			return types.ExprString(n), true
		}
	}
	return "", false
}

// findReleases returns the calls in all that end a.
func (p *pkgChecker) findReleases(a *acquisition, all []callInfo) []*releaseCall {
	var out []*releaseCall
	for _, c := range all {
		if c.call == a.call || c.fn == nil {
			continue
		}
		if exclusiveBranches(a.stmtStack, c.stack) && !a.carriedAround(p.pass.TypesInfo, a.stmtStack, c.stack) {
			continue // the other case of a switch: a handler that reserves or releases, never both
		}
		if p.isReleaseOf(a, c.call, c.fn) {
			out = append(out, &releaseCall{call: c.call, stack: c.stack, text: types.ExprString(c.call.Fun)})
		} else if p.holderReleases(a, c.call, c.fn) || a.receiverState && closesReceiver(p.pass.TypesInfo, a, c.call) {
			// A holder's release, or pgConn.asyncClose() ending the receiver's state: each
			// ends the acquisition, and neither is evidence that it needs ending.
			out = append(out, &releaseCall{call: c.call, stack: c.stack, text: types.ExprString(c.call.Fun), viaHolder: true})
		}
	}
	return out
}

// exclusiveBranches reports whether two calls, with their ancestors x and y, sit in branches
// of which at most one runs: two cases of one switch or select, or the then and else of one
// if. A release there never follows the acquisition in the same pass through the code, so
// it is no evidence for it: switch op { case reserve: c.ReserveAddress(…) case release:
// c.ReleaseAddress(…) }; a loop that carries the value is another matter (carriedAround).
func exclusiveBranches(x, y []ast.Node) bool {
	i := 0
	for i < len(x) && i < len(y) && x[i] == y[i] {
		i++
	}
	if i == 0 || i >= len(x) || i >= len(y) {
		return false
	}
	switch parent := x[i-1].(type) {
	case *ast.BlockStmt:
		_, cx := x[i].(*ast.CaseClause)
		_, cy := y[i].(*ast.CaseClause)
		_, mx := x[i].(*ast.CommClause)
		_, my := y[i].(*ast.CommClause)
		return (cx && cy) || (mx && my)
	case *ast.IfStmt:
		return (x[i] == parent.Body && y[i] == parent.Else) || (x[i] == parent.Else && y[i] == parent.Body)
	}
	return false
}

// carriedAround reports whether a loop around both of two calls, with their ancestors x and
// y, carries a's value from one iteration to the next: a variable that holds it is declared
// outside the loop. The other branch of an if in it then runs after the acquisition, in a
// later iteration: gowarc's writer opens its next file when the batch is large and closes
// it when the channel is closed.
func (a *acquisition) carriedAround(info *types.Info, x, y []ast.Node) bool {
	held := slices.Collect(maps.Keys(a.values))
	if r := rootObj(info, receiver(info, a.call)); r != nil && isLock(a) {
		held = append(held, r) // c.mu.Lock() … c.mu.Unlock(): c holds the lock
	}
	for i := 0; i < len(x) && i < len(y) && x[i] == y[i]; i++ {
		switch x[i].(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			for _, o := range held {
				if o.Pos() < x[i].Pos() || o.Pos() >= x[i].End() {
					return true
				}
			}
		}
	}
	return false
}

// namesRelease reports whether name, of a call, is one of a's releases by its verb: a
// release name made by swapping the verb (ReleaseAddress), a release verb in any case
// (unlock), or a name that leads with one (releaseOwn).
func (a *acquisition) namesRelease(name string) bool {
	m := a.verb
	return slices.Contains(m.releases, name) || slices.ContainsFunc(m.relVerbs, func(v string) bool { return strings.EqualFold(v, name) }) ||
		isReleaseVerbName(name, m.relVerbs)
}

// isReleaseOf reports whether call (of fn) ends acquisition a: the evidence rules of the
// package documentation.
func (p *pkgChecker) isReleaseOf(a *acquisition, call *ast.CallExpr, fn *types.Func) bool {
	info := p.pass.TypesInfo
	if a.pair == nil && !a.namesRelease(mustless(fn.Name())) {
		// Every rule below for a verb reads a release's name first; most calls have none,
		// and a long function asks this of each of its calls for each acquisition in it.
		return p.releasesUnnamed(a, call, fn)
	}
	recv := receiver(info, call)
	var recvKey string
	var recvRoot types.Object
	if recv != nil {
		recvKey, _ = recvKeyOf(info, call)
		recvRoot = rootObj(info, recv)
		if recvRoot != nil && recvKey != "" {
			if r, ok := a.recvAlias[objID(recvRoot)]; ok {
				recvKey = r + strings.TrimPrefix(recvKey, objID(recvRoot))
			}
		}
	}
	onValue := recvRoot != nil && a.values[recvRoot]
	args := map[types.Object]bool{}
	argValue := false
	same := func() bool { return p.sameValue(a, call) } // read only where a rule needs it
	for _, arg := range call.Args {
		if t := info.TypeOf(arg); t != nil && isContext(t) {
			continue
		}
		if o := rootObj(info, arg); o != nil {
			if _, isPkg := o.(*types.PkgName); isPkg {
				continue
			}
			args[o] = true
			if a.values[o] || a.basic[o] {
				argValue = true
			}
		}
	}
	sameRecv := a.recvKey != "" && recvKey == a.recvKey
	if a.pair != nil {
		full := funcName(fn)
		if slices.Contains(a.pair.releases, full) {
			// The release is on the acquired value (l.Release, f.Close) or takes it, or is made
			// on the same receiver, or is a function, with the same arguments.
			return onValue || argValue || ((recv == nil || sameRecv) && same())
		}
		// The value may be released through an interface (c.Close() on the io.Closer
		// parameter of closeIt := func(c io.Closer) { c.Close() }, passed f), and a wrapper
		// may do so too.
		if onValue && isInterfaceMethod(fn) && a.releaseNamed(fn.Name()) {
			return true
		}
		return p.wrapperReleases(a, call, fn, a.isReleaseName)
	}

	name := mustless(fn.Name())
	m := a.verb
	strict := slices.Contains(m.releases, name)
	bare := slices.ContainsFunc(m.relVerbs, func(v string) bool { return strings.EqualFold(v, name) })
	verbName := isReleaseVerbName(name, m.relVerbs)
	acqRecv := receiver(info, a.call)
	samePkgFunc := recv == nil && acqRecv == nil && fn.Pkg() == a.fn.Pkg() && fn.Type().(*types.Signature).Recv() == nil
	shares := false
	for o := range args {
		if a.argRoots[o] {
			shares = true
			break
		}
	}
	switch {
	case sameRecv && (strict || bare) && same():
		// mu.Lock … mu.Unlock, addrMgr.HoldAddress … addrMgr.ReleaseAddress; never
		// m.ReleaseAddress(other) for m.HoldAddress(a).
		return true
	case onValue && (strict || verbName && a.namesAgree(name)):
		return true // f, _ := os.Open(…) … f.Close()
	case argValue && (strict || verbName && a.namesAgree(name)):
		return true // vol, _ := c.CreateVolume(…) … c.DeleteVolume(vol.ID)
	case strict && shares && samePkgFunc && same():
		return true // ipam.ExecAdd(t, data) … ipam.ExecDel(t, data)
	case strict && samePkgFunc && len(args) == 0 && len(a.argRoots) == 0:
		return true // lockAll() … unlockAll()
	case a.kind == scoped && verbName && (samePkgFunc || sameRecv) && len(args) > 0 && subset(args, a.argRoots, a.values) && same() &&
		(!argValue || sharesNoun(a.name, name)):
		// A hold released under another noun, with nothing but the hold's own arguments;
		// one that takes the acquired value must name it (c.CloseSocket(s) closes a thing
		// of the session s, not s). Only for scoped verbs: a create and a delete of
		// something else are two resources.
		return true // holdAddress(ctx, c, lb, ip) … releaseOwn(ctx, c, lb)
	}
	return p.releasesUnnamed(a, call, fn)
}

// releasesUnnamed reports whether call (of fn), whatever its name, ends a, found by a verb:
// a helper of the package that releases the field a took, or a wrapper whose summary makes
// a's release.
func (p *pkgChecker) releasesUnnamed(a *acquisition, call *ast.CallExpr, fn *types.Func) bool {
	if a.kind == scoped && p.releasesField(a, call, fn, func(n string) bool { return slices.Contains(a.verb.releases, n) }) {
		return true // t.unlockAndNotify() for t.mu.Lock()
	}
	if a.held != nil {
		return false // the lock is a.recvKey alone: x.other.Unlock() releases nothing of lockTable(x)
	}
	return p.wrapperReleases(a, call, fn, a.isReleaseName)
}

// madeRelease reports whether call, of a function of the package, returns a literal that
// releases the acquired value it is passed (closeLater(f), returning func() error { return
// f.Close() }): calling what it returns releases the value; the call alone does not.
func (p *pkgChecker) madeRelease(a *acquisition, call *ast.CallExpr) bool {
	fn, ok := typeInfoCallee(p.pass.TypesInfo, call)
	if !ok {
		return false
	}
	wi := p.wrapper(fn)
	if wi == nil || len(wi.makes) == 0 {
		return false
	}
	return p.releasesVia(a, call, fn, &wrapperInfo{names: wi.makes}, a.isReleaseName)
}

// isReleaseName reports whether a call of name (full name full) is a's release by name: one
// of its pair's releases, or of its verb's.
func (a *acquisition) isReleaseName(name, full string) bool {
	name = mustless(name)
	if a.pair != nil {
		return slices.ContainsFunc(a.pair.releases, func(r string) bool { return full == r || strings.HasSuffix(r, "."+name) })
	}
	return slices.Contains(a.verb.releases, name) || slices.Contains(a.verb.relVerbs, name)
}

func subset(xs, a, b map[types.Object]bool) bool {
	for o := range xs {
		if !a[o] && !b[o] {
			return false
		}
	}
	return true
}

// undoneOnErrorPath reports whether some release of a sits on an error path: inside an
// "if err != nil" (also in a deferred closure), or right before a return of an error. It
// is the intent rule for rollback verbs.
func (p *pkgChecker) undoneOnErrorPath(a *acquisition) bool {
	info := p.pass.TypesInfo
	for _, r := range a.releases {
		if replacesExisting(info, a, r) {
			continue
		}
		for i := len(r.stack) - 1; i >= 0; i-- {
			switch n := r.stack[i].(type) {
			case *ast.IfStmt:
				inBranch := within(n.Body, r.call) || (n.Else != nil && within(n.Else, r.call))
				if inBranch && mentionsNonNilError(info, n.Cond) {
					return true
				}
			case *ast.BlockStmt:
				// The statement after the release's, in the same block.
				if i+1 < len(r.stack) {
					for j, s := range n.List {
						if s == r.stack[i+1] && j+1 < len(n.List) {
							if ret, ok := n.List[j+1].(*ast.ReturnStmt); ok && len(ret.Results) > 0 {
								last := ret.Results[len(ret.Results)-1]
								if t := info.TypeOf(last); t != nil && isError(t) && !isNilIdent(info, last) {
									return true
								}
							}
						}
					}
				}
			}
		}
	}
	return false
}

// replacesExisting reports whether the release r replaces what a failed call of a's function
// found there: r sits in the branch of an if whose init, or the statement just before it,
// assigns an error from a call of that function, and whose condition reads that error; and a
// statement after r's, in r's own block, calls the function again (if _, err :=
// images.Create(ctx, img); err != nil { if errors.Is(err, ErrAlreadyExists) {
// images.Delete(…); images.Create(…) } }, nerdctl's build tagging an image again). The failed
// call made nothing; what the release removes was there before, so it undoes nothing and is
// no evidence that the function undoes what it creates. A release there that goes on to a
// return instead (if !force { c.DeleteLink(name); return err }), or any release after
// another create failed (if err := c.CreateTag(b); err != nil { c.DeleteTag(a); return err
// }), is an undo.
func replacesExisting(info *types.Info, a *acquisition, r *releaseCall) bool {
	for i := len(r.stack) - 1; i >= 1; i-- {
		is, ok := r.stack[i].(*ast.IfStmt)
		if !ok || !within(is.Body, r.call) {
			continue
		}
		init := is.Init
		if init == nil {
			if list, ok := stmtList(r.stack[i-1]); ok {
				if k := slices.Index(list, ast.Stmt(is)); k > 0 {
					init = list[k-1]
				}
			}
		}
		if errs := failedCallErrors(info, a, init); len(errs) > 0 && mentionsAny(info, is.Cond, errs) && createsAgain(info, r, a.fn) {
			return true
		}
	}
	return false
}

// createsAgain reports whether a statement after r's, in r's own block, calls fn: the path
// from the release goes on to create again (Delete(name); Create(name)), not to a return.
func createsAgain(info *types.Info, r *releaseCall, fn *types.Func) bool {
	for k := len(r.stack) - 2; k >= 0; k-- {
		list, ok := stmtList(r.stack[k])
		if !ok {
			continue
		}
		i := slices.IndexFunc(list, func(s ast.Stmt) bool { return ast.Node(s) == r.stack[k+1] })
		if i < 0 {
			return false
		}
		return slices.ContainsFunc(list[i+1:], func(st ast.Stmt) bool {
			found := false
			ast.Inspect(st, func(x ast.Node) bool {
				if c, ok := x.(*ast.CallExpr); ok && !found {
					f, ok := typeInfoCallee(info, c)
					found = ok && f.Origin() == fn.Origin()
				}
				return !found
			})
			return found
		})
	}
	return false
}

// failedCallErrors returns the error variables s assigns from a call of a's function.
func failedCallErrors(info *types.Info, a *acquisition, s ast.Stmt) map[types.Object]bool {
	as, ok := s.(*ast.AssignStmt)
	if !ok || len(as.Rhs) != 1 {
		return nil
	}
	call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
	if !ok {
		return nil
	}
	if fn, ok := typeInfoCallee(info, call); !ok || fn.Origin() != a.fn.Origin() {
		return nil
	}
	errs := map[types.Object]bool{}
	for _, l := range as.Lhs {
		if id, ok := ast.Unparen(l).(*ast.Ident); ok {
			if o := info.ObjectOf(id); o != nil && isError(o.Type()) {
				errs[o] = true
			}
		}
	}
	return errs
}

func within(outer ast.Node, inner ast.Node) bool {
	return outer.Pos() <= inner.Pos() && inner.End() <= outer.End()
}

// mentionsNonNilError reports whether cond contains "X != nil" for an error X.
func mentionsNonNilError(info *types.Info, cond ast.Expr) bool {
	found := false
	ast.Inspect(cond, func(n ast.Node) bool {
		if b, ok := n.(*ast.BinaryExpr); ok && b.Op == token.NEQ {
			for _, side := range [][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
				if isNilIdent(info, side[1]) {
					if t := info.TypeOf(side[0]); t != nil && isError(t) {
						found = true
					}
				}
			}
		}
		return !found
	})
	return found
}

func isNilIdent(info *types.Info, e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	_, isNil := info.Uses[id].(*types.Nil)
	return isNil
}

// onlyError reports whether fn returns nothing or only an error.
func onlyError(fn *types.Func) bool {
	res := fn.Type().(*types.Signature).Results()
	return res.Len() == 0 || (res.Len() == 1 && isError(res.At(0).Type()))
}

// isInterfaceMethod reports whether fn is a method of an interface type.
func isInterfaceMethod(fn *types.Func) bool {
	sig, ok := fn.Type().(*types.Signature)
	return ok && sig.Recv() != nil && types.IsInterface(sig.Recv().Type())
}
