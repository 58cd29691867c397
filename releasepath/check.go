package releasepath

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/cfg"
)

// checkFunc checks one function (declared or literal). It costs a walk of the body's calls,
// and a CFG search only when one of them is a candidate acquisition.
func (p *pkgChecker) checkFunc(fnNode ast.Node, body *ast.BlockStmt, sig *types.Signature, g *cfg.CFG, fdoc *ast.CommentGroup) {
	info := p.pass.TypesInfo
	cands := collectCalls(info, body, false, func(call *ast.CallExpr, fn *types.Func) bool {
		_, ok := p.candidate(call, fn)
		return ok
	})
	if len(cands) == 0 || p.funcSuppressed(fnNode, fdoc) {
		return
	}
	all := collectCalls(info, body, true, func(*ast.CallExpr, *types.Func) bool { return true })
	// A method that acquires through a method of its own receiver declared in this package,
	// returning nothing but an error (l.acquire() inside a method of l), manages the
	// receiver's state, not a resource of this call. An embedded mutex's Lock is still
	// checked: it is declared in sync.
	var self types.Object
	if fd, ok := fnNode.(*ast.FuncDecl); ok && fd.Recv != nil && len(fd.Recv.List) == 1 && len(fd.Recv.List[0].Names) == 1 {
		self = info.Defs[fd.Recv.List[0].Names[0]]
	}
	for _, c := range cands {
		a, _ := p.candidate(c.call, c.fn)
		if self != nil && c.fn.Pkg() == p.pass.Pkg && onlyError(c.fn) {
			if r, ok := ast.Unparen(c.call.Fun).(*ast.SelectorExpr); ok {
				if id, ok := ast.Unparen(r.X).(*ast.Ident); ok && info.Uses[id] == self {
					continue
				}
			}
		}
		if !a.bind(info, c.stack, body) {
			continue
		}
		a.releases = p.findReleases(a, all)
		a.takeBasicValues(info)
		if len(a.releases) == 0 && a.pair == nil {
			text, ok := a.releaseMethod(info)
			if !ok {
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

// findReleases returns the calls in all that end a.
func (p *pkgChecker) findReleases(a *acquisition, all []callInfo) []*releaseCall {
	var out []*releaseCall
	for _, c := range all {
		if c.call == a.call || c.fn == nil {
			continue
		}
		if p.isReleaseOf(a, c.call, c.fn) {
			out = append(out, &releaseCall{call: c.call, stack: c.stack, text: types.ExprString(c.call.Fun)})
		}
	}
	return out
}

// isReleaseOf reports whether call (of fn) ends acquisition a: the evidence rules of the
// package documentation.
func (p *pkgChecker) isReleaseOf(a *acquisition, call *ast.CallExpr, fn *types.Func) bool {
	info := p.pass.TypesInfo
	recv := receiver(info, call)
	var recvKey string
	var recvRoot types.Object
	if recv != nil {
		recvKey, _ = exprKey(info, recv)
		recvRoot = rootObj(info, recv)
	}
	onValue := recvRoot != nil && a.values[recvRoot]
	args := map[types.Object]bool{}
	argValue := false
	for _, arg := range call.Args {
		if t := info.TypeOf(arg); t != nil && isContext(t) {
			continue
		}
		if o := rootObj(info, arg); o != nil {
			if _, isPkg := o.(*types.PkgName); isPkg {
				continue
			}
			args[o] = true
			if a.values[o] {
				argValue = true
			}
		}
	}
	sameRecv := a.recvKey != "" && recvKey == a.recvKey
	if a.pair != nil {
		full := funcName(fn)
		if slices.Contains(a.pair.releases, full) {
			// With an acquired value, the release must be on it (l.Release, f.Close) or take it.
			return len(a.values) == 0 || recv == nil || onValue || argValue || sameRecv
		}
		// A wrapper may release through an interface (io.Closer.Close for os.File.Close).
		return p.wrapperReleases(a, call, fn, func(name, full string) bool {
			return slices.ContainsFunc(a.pair.releases, func(r string) bool { return full == r || strings.HasSuffix(r, "."+name) })
		})
	}

	name := fn.Name()
	m := a.verb
	strict := slices.Contains(m.releases, name)
	bare := slices.ContainsFunc(m.relVerbs, func(v string) bool { return strings.EqualFold(v, name) })
	verbName := isReleaseVerbName(name, m.relVerbs)
	acqRecv := receiver(info, a.call)
	samePkgFunc := recv == nil && acqRecv == nil && fn.Pkg() == a.fn.Pkg() && fn.Type().(*types.Signature).Recv() == nil
	sameRecvType := false
	if recv != nil && acqRecv != nil {
		rt, at := info.TypeOf(recv), info.TypeOf(acqRecv)
		sameRecvType = rt != nil && at != nil && types.Identical(rt, at)
	}
	shares := false
	for o := range args {
		if a.argRoots[o] {
			shares = true
			break
		}
	}
	switch {
	case sameRecv && (strict || bare):
		return true // mu.Lock … mu.Unlock, addrMgr.HoldAddress … addrMgr.ReleaseAddress
	case onValue && (strict || verbName):
		return true // f, _ := os.Open(…) … f.Close()
	case argValue && (strict || verbName):
		return true // vol, _ := c.CreateVolume(…) … c.DeleteVolume(vol.ID)
	case strict && shares && (samePkgFunc || sameRecvType):
		return true // ipam.ExecAdd(t, data) … ipam.ExecDel(t, data)
	case strict && samePkgFunc && len(args) == 0 && len(a.argRoots) == 0:
		return true // lockAll() … unlockAll()
	case a.kind == scoped && verbName && (samePkgFunc || sameRecv) && len(args) > 0 && subset(args, a.argRoots, a.values):
		// A hold released under another noun, with nothing but the hold's own arguments.
		// Only for scoped verbs: a create and a delete of something else are two resources.
		return true // holdAddress(ctx, c, lb, ip) … releaseOwn(ctx, c, lb)
	}
	return p.wrapperReleases(a, call, fn, func(n, _ string) bool {
		return slices.Contains(m.releases, n) || slices.Contains(m.relVerbs, n)
	})
}

func subset(xs, a, b map[types.Object]bool) bool {
	for o := range xs {
		if !a[o] && !b[o] {
			return false
		}
	}
	return true
}

// wrapperInfo records, for one function of the package, the calls it makes on or with each
// of its parameters (index -1 is the receiver).
type wrapperInfo struct {
	names map[int][][2]string // param index → {name, full name} of each call on or with it
}

// wrapperReleases reports whether call is a call of a function of this package that
// releases the acquired value (or the acquisition's receiver) it is passed: a release
// wrapper such as closeQuietly(f) or m.cleanup().
func (p *pkgChecker) wrapperReleases(a *acquisition, call *ast.CallExpr, fn *types.Func, isRel func(name, full string) bool) bool {
	wi := p.wrapper(fn)
	if wi == nil {
		return false
	}
	info := p.pass.TypesInfo
	// Only the acquired value or a local handle: a method of the client that acquired
	// (g.AddInstances … g.RemoveInstances) releases nothing of this acquisition.
	holds := func(e ast.Expr) bool {
		o := rootObj(info, e)
		return o != nil && a.values[o]
	}
	check := func(i int) bool {
		for _, nf := range wi.names[i] {
			if isRel(nf[0], nf[1]) {
				return true
			}
		}
		return false
	}
	if r := receiver(info, call); r != nil && holds(r) && check(-1) {
		return true
	}
	for i, arg := range call.Args {
		if holds(arg) && check(i) {
			return true
		}
	}
	return false
}

func (p *pkgChecker) wrapper(fn *types.Func) *wrapperInfo {
	if wi, ok := p.wrappers[fn]; ok {
		return wi
	}
	if p.wrappers == nil {
		p.wrappers = map[*types.Func]*wrapperInfo{}
	}
	p.wrappers[fn] = nil // no recursion through a cycle
	decl := p.decls[fn]
	if decl == nil {
		return nil
	}
	info := p.pass.TypesInfo
	params := map[types.Object]int{}
	if decl.Recv != nil {
		for _, f := range decl.Recv.List {
			for _, id := range f.Names {
				params[info.Defs[id]] = -1
			}
		}
	}
	i := 0
	for _, f := range decl.Type.Params.List {
		if len(f.Names) == 0 {
			i++
		}
		for _, id := range f.Names {
			params[info.Defs[id]] = i
			i++
		}
	}
	wi := &wrapperInfo{names: map[int][][2]string{}}
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		cfn, _ := typeInfoCallee(info, call)
		if cfn == nil {
			return true
		}
		nf := [2]string{cfn.Name(), funcName(cfn)}
		if r := receiver(info, call); r != nil {
			if idx, ok := params[rootObj(info, r)]; ok {
				wi.names[idx] = append(wi.names[idx], nf)
			}
		}
		for _, arg := range call.Args {
			if idx, ok := params[rootObj(info, arg)]; ok {
				wi.names[idx] = append(wi.names[idx], nf)
			}
		}
		return true
	})
	p.wrappers[fn] = wi
	return wi
}

// undoneOnErrorPath reports whether some release of a sits on an error path: inside an
// "if err != nil" (also in a deferred closure), or right before a return of an error. It
// is the intent rule for rollback verbs.
func (p *pkgChecker) undoneOnErrorPath(a *acquisition) bool {
	info := p.pass.TypesInfo
	for _, r := range a.releases {
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
