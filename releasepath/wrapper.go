package releasepath

import (
	"go/ast"
	"go/token"
	"go/types"
	"iter"
	"slices"
	"strings"
	"unicode"
)

// releaseVerbs are the verbs that may end an acquisition: a wrapper's record keeps only the
// calls that lead with one of them, or that a pair names as a release.
var releaseVerbs = func() map[string]bool {
	m := map[string]bool{"Keep": true}
	for _, vs := range []map[string][]string{scopedVerbs, rollbackVerbs} {
		for _, rs := range vs {
			for _, r := range rs {
				m[r] = true
			}
		}
	}
	return m
}()

// isReleaseName reports whether a call of name (full name full) may be a release: it leads
// with a release verb, after a lock's mode (RUnlock).
func (p *pkgChecker) isReleaseName(name, full string) bool {
	ws := words(mustless(name))
	lead := 0
	for lead < len(ws)-1 && verbModifiers[ws[lead]] {
		lead++
	}
	if first := strings.ToUpper(ws[lead][:1]) + ws[lead][1:]; releaseVerbs[first] {
		return true
	}
	for _, pr := range p.pairs {
		if slices.Contains(pr.releases, full) {
			return true
		}
	}
	return false
}

// mustless returns name without a leading Must, Go's word for a function that panics
// where its namesake returns an error: kine's t.MustRollback() is a Rollback. Only a release
// loses it; an acquisition keeps it (prometheus.MustRegister registers for good).
func mustless(name string) string {
	if rest, ok := strings.CutPrefix(name, "Must"); ok && rest != "" && unicode.IsUpper(rune(rest[0])) {
		return rest
	}
	return name
}

// wrapperInfo records, for one function, the release calls it makes on or with each of its
// parameters (index -1 is the receiver).
type wrapperInfo struct {
	names map[int][][2]string // param index → {name, full name} of each release call on or with it
	// fields lists, per param index, the release calls made on the parameter or on a field
	// path of it (t.mu.Unlock() in a method of t), as {path, name}: path is the field names
	// after the parameter (".mu"), "" for the parameter itself.
	fields map[int][][2]string
	// keeps lists the parameters the function keeps beyond the call, and how: it hands them
	// to a goroutine (go profileWriter(w)), sends them or stores them in a package variable
	// (keptAway), or stores them in a field of its receiver (storedInRecv), itself or
	// through a function that does.
	keeps map[int]keep
	// whenTrue lists, per bool parameter, the field releases the function makes on every
	// path when that parameter is true and not otherwise, as fields does (releaseflag):
	// putConn(ctx, cn, freeTurn bool) releases the receiver's .semaphore when freeTurn is.
	whenTrue map[int]map[int][][2]string
	// makes lists, per param index, the release calls on or with it in a function literal
	// the function returns (closeLater(f) returning func() error { return f.Close() }):
	// the literal releases it when called, the function does not (madeRelease).
	makes map[int][][2]string
	// hold is the lock the function returns holding by contract, read from another
	// package's fact; a function of this package has its own ([pkgChecker.holdOf]).
	hold []*holdSummary
	// holdsAt lists, for each result of a function of several results, the parameters that
	// result holds (-1 the receiver), read from another package's fact; a function of this
	// package has its own ([pkgChecker.resultHoldsAt]).
	holdsAt map[int][]int
}

// keep says how a function keeps a parameter beyond the call.
type keep uint8

const (
	_ keep = iota
	// storedInRecv: in a field of the receiver, which keeps it as long as the receiver
	// lives: r.add(f) hands f on when r outlives the caller, not when r is the caller's
	// own fresh local (bufio.NewReaderSize's r.reset(buf, rd)).
	storedInRecv
	// keptAway: handed to a goroutine, sent, or stored in a package variable.
	keptAway
)

// fieldPath returns the object e is rooted at and the names of the fields e selects from it:
// ".mu" for t.mu and &t.mu, "" for t itself. A summary keeps names, not objects, so that it
// travels to other packages as a fact; [resolveFields] turns them back into a key.
func fieldPath(info *types.Info, e ast.Expr) (types.Object, string, bool) {
	switch x := e.(type) {
	case *ast.Ident:
		o := info.Uses[x]
		if o == nil {
			o = info.Defs[x]
		}
		return o, "", o != nil
	case *ast.SelectorExpr:
		sel, ok := info.Selections[x]
		if !ok || sel.Kind() != types.FieldVal {
			return nil, "", false
		}
		o, path, ok := fieldPath(info, x.X)
		return o, path + "." + sel.Obj().Name(), ok
	case *ast.StarExpr:
		return fieldPath(info, x.X)
	case *ast.ParenExpr:
		return fieldPath(info, x.X)
	case *ast.UnaryExpr:
		if x.Op == token.AND {
			return fieldPath(info, x.X)
		}
	}
	return nil, "", false
}

// resolveFields returns the suffix [exprKey] writes for the field names path (".mu.inner")
// selected from a value of type t, looking unexported names up in pkg, the package of the
// function whose summary names them.
func resolveFields(t types.Type, pkg *types.Package, path string) (string, bool) {
	if t == nil {
		return "", false
	}
	var b strings.Builder
	for _, name := range strings.Split(path, ".")[1:] {
		obj, _, _ := types.LookupFieldOrMethod(t, true, pkg, name)
		v, ok := obj.(*types.Var)
		if !ok || !v.IsField() {
			return "", false
		}
		b.WriteString("." + objID(v))
		t = v.Type()
	}
	return b.String(), true
}

// wrapperReleases reports whether call is a call of a function that releases the acquired
// value (or the acquisition's receiver) it is passed: a release wrapper such as
// closeQuietly(f), m.cleanup() or another package's util.CloseQuietly(f). For a function
// acquisition (ipam.ExecAdd(plugin, conf)), the wrapper may take the acquisition's arguments
// instead: ReleaseIPAllocation(conf, plugin).
func (p *pkgChecker) wrapperReleases(a *acquisition, call *ast.CallExpr, fn *types.Func, isRel func(name, full string) bool) bool {
	return p.releasesVia(a, call, fn, p.wrapper(fn), isRel)
}

// releasesVia is wrapperReleases by the summary wi of fn.
func (p *pkgChecker) releasesVia(a *acquisition, call *ast.CallExpr, fn *types.Func, wi *wrapperInfo, isRel func(name, full string) bool) bool {
	if wi == nil {
		return false
	}
	info := p.pass.TypesInfo
	// Only the acquired value or a local handle: a method of the client that acquired
	// (g.AddInstances … g.RemoveInstances) releases nothing of this acquisition.
	byArgs := receiver(info, a.call) == nil
	holds := func(e ast.Expr) bool {
		o := rootObj(info, e)
		// l.stateMutex is another part of l than the l.fd of raw.LockFile(l.fd, t).
		return o != nil && (a.values[o] || (byArgs && a.argRoots[o] && !p.otherPart(a, e, o)))
	}
	fields := wi.fieldsAt(info, call, nil) // with what it releases for the flags passed true
	check := func(i int, e ast.Expr) bool {
		// A helper called on what holds the acquisition's argument (l for
		// rawlock.LockFile(l.fd)) releases it only by a release of that part (fields):
		// l.unlockFD(), not l.unlockState().
		holder := byArgs && p.holderOfPart(a, e)
		for _, nf := range wi.names[i] {
			if isRel(nf[0], nf[1]) && !holder {
				return true
			}
		}
		for _, r := range fields[i] {
			// l.unlockState() releases l.state, another part of l than the l.fd of
			// rawlock.LockFile(l.fd).
			if isRel(r[1], "") && !(byArgs && p.otherPartVia(a, e, fn, r[0])) {
				return true
			}
		}
		return false
	}
	if r := receiver(info, call); r != nil && holds(r) && check(-1, r) {
		return true
	}
	for i, arg := range call.Args {
		if holds(arg) && check(i, arg) {
			return true
		}
	}
	return false
}

// wrapper returns what fn releases of its parameters: computed from the body for a function
// of this package, read from its package's fact for another (nil when it exported none).
func (p *pkgChecker) wrapper(fn *types.Func) *wrapperInfo {
	fn = fn.Origin()
	if fn.Pkg() == nil {
		return nil // error.Error
	}
	if fn.Pkg() != p.pass.Pkg {
		return p.imported(fn)
	}
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
	params := declParams(info, decl)
	wi := &wrapperInfo{names: map[int][][2]string{}}
	if !p.factsOnly { // a fact carries the field releases and the kept parameters alone (factOf)
		wi.names, wi.makes = p.nameReleases(decl, params)
	}
	wi.fields = p.fieldReleases(decl, params)
	wi.whenTrue = p.flagReleases(decl, params, wi.fields)
	wi.keeps = p.keptParams(decl, params)
	p.wrappers[fn] = wi
	return wi
}

// nameReleases computes wrapperInfo.names and wrapperInfo.makes for decl: the release calls
// it makes on or with each parameter, on any path and through the wrappers it calls, and
// those a literal it returns makes.
func (p *pkgChecker) nameReleases(decl *ast.FuncDecl, params map[types.Object]int) (names, makes map[int][][2]string) {
	info := p.pass.TypesInfo
	names = map[int][][2]string{}
	all := names
	add := func(idx int, nf [2]string) {
		if !slices.Contains(names[idx], nf) {
			names[idx] = append(names[idx], nf)
		}
	}
	returned := returnedLits(decl.Body)
	makes = p.returnedMethodReleases(decl, params)
	var inspect func(n ast.Node) bool
	inspect = func(n ast.Node) bool {
		if lit, ok := n.(*ast.FuncLit); ok && returned[lit] {
			// What a returned literal releases, its caller releases by calling it.
			if makes == nil {
				makes = map[int][][2]string{}
			}
			names = makes
			ast.Inspect(lit.Body, skipConditional(inspect))
			names = all
			return false
		}
		if ifs, ok := n.(*ast.IfStmt); ok && readsDecisionParam(info, ifs.Cond, params) {
			// if really { c.Close() }, if *errp != nil { c.Close() }: whether it releases is the
			// caller's argument's to say (releaseflag, deferguard), not the helper's.
			if ifs.Init != nil {
				ast.Inspect(ifs.Init, inspect)
			}
			return false
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		cfn, _ := typeInfoCallee(info, call)
		if cfn == nil {
			return true
		}
		nf := [2]string{cfn.Name(), funcName(cfn)}
		rel := p.isReleaseName(nf[0], nf[1])
		// A call of another wrapper passes on what it releases: closeAll(f) calls
		// closeQuietly(f), which calls f.Close.
		inner := p.wrapper(cfn)
		if r := receiver(info, call); r != nil {
			if idx, ok := params[rootObj(info, r)]; ok {
				if rel && (isIdent(r) || !argsLocal(info, call, decl.Body)) {
					add(idx, nf)
				}
				// What a call on a field of the parameter releases of its own receiver is the
				// parameter's only as a direct release is (c.replies.Store(key, v) for a local
				// key stores and deletes the function's own).
				if inner != nil && (isIdent(r) || !argsLocal(info, call, decl.Body)) {
					for _, x := range inner.names[-1] {
						add(idx, x)
					}
				}
			}
		}
		for j, arg := range call.Args {
			if idx, ok := params[rootObj(info, arg)]; ok {
				if rel {
					add(idx, nf)
				}
				if inner != nil {
					for _, x := range inner.names[j] {
						add(idx, x)
					}
				}
			}
		}
		return true
	}
	ast.Inspect(decl.Body, inspect)
	if !p.everyReturnMakes(decl.Body) {
		makes = nil // if quiet { return func() error { return nil } }: it may make none
	}
	return all, makes
}

// readsDecisionParam reports whether cond reads a parameter that carries a decision rather
// than a resource: of a basic type (a bool flag, a size, a name) or a pointer to an error
// (really, n > 1<<20, *errp != nil).
func readsDecisionParam(info *types.Info, cond ast.Expr, params map[types.Object]int) bool {
	found := false
	ast.Inspect(cond, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok || found {
			return !found
		}
		o := info.Uses[id]
		if _, isParam := params[o]; !isParam || o == nil {
			return true
		}
		t := o.Type()
		if ptr, ok := t.Underlying().(*types.Pointer); ok && isError(ptr.Elem()) {
			found = true
		}
		found = found || isBasic(t)
		return !found
	})
	return found
}

// skipConditional wraps an inspector so that it skips what runs under a condition, in a loop or
// in a literal of its own: a release there is no release the literal makes.
func skipConditional(inspect func(ast.Node) bool) func(ast.Node) bool {
	return func(n ast.Node) bool {
		switch n.(type) {
		case *ast.IfStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt, *ast.ForStmt, *ast.RangeStmt, *ast.FuncLit:
			return false
		}
		return inspect(n)
	}
}

// everyReturnMakes reports whether each return of body, not inside a literal, returns a
// method value or a function literal that calls a release under no condition: only then is
// a release made on every path (not by a closerIf that returns func() error { return nil }
// where quiet).
func (p *pkgChecker) everyReturnMakes(body *ast.BlockStmt) bool {
	info := p.pass.TypesInfo
	releases := func(lit *ast.FuncLit) bool {
		found := false
		ast.Inspect(lit.Body, skipConditional(func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if fn, ok := typeInfoCallee(info, call); ok && p.isReleaseName(fn.Name(), funcName(fn)) {
					found = true
				}
			}
			return !found
		}))
		return found
	}
	for ret := range ownReturns(body) {
		makes := slices.ContainsFunc(ret.Results, func(r ast.Expr) bool {
			switch r := ast.Unparen(r).(type) {
			case *ast.FuncLit:
				return releases(r)
			case *ast.SelectorExpr:
				return true
			}
			return false
		})
		if !makes {
			return false
		}
	}
	return true
}

// ownReturns yields the return statements of body, not those inside a function literal,
// which return from the literal.
func ownReturns(body *ast.BlockStmt) iter.Seq[*ast.ReturnStmt] {
	return func(yield func(*ast.ReturnStmt) bool) {
		more := true // false once the loop has stopped: Inspect still visits the siblings
		ast.Inspect(body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ReturnStmt:
				more = more && yield(n)
			}
			return more
		})
	}
}

// returnedLits returns the function literals body returns, not inside another literal.
func returnedLits(body *ast.BlockStmt) map[*ast.FuncLit]bool {
	out := map[*ast.FuncLit]bool{}
	for ret := range ownReturns(body) {
		for _, r := range ret.Results {
			if lit, ok := ast.Unparen(r).(*ast.FuncLit); ok {
				out[lit] = true
			}
		}
	}
	return out
}

// returnedMethodReleases returns, per parameter, the releases decl returns as method values
// of it (return f.Close), not inside a literal: each releases f when it is called. Nil when
// there are none.
func (p *pkgChecker) returnedMethodReleases(decl *ast.FuncDecl, params map[types.Object]int) map[int][][2]string {
	info := p.pass.TypesInfo
	var out map[int][][2]string
	for ret := range ownReturns(decl.Body) {
		for _, r := range ret.Results {
			sel, ok := ast.Unparen(r).(*ast.SelectorExpr)
			if !ok || !isIdent(sel.X) {
				continue
			}
			s := info.Selections[sel]
			idx, isParam := params[rootObj(info, sel.X)]
			if s == nil || s.Kind() != types.MethodVal || !isParam {
				continue
			}
			fn := s.Obj().(*types.Func)
			if nf := [2]string{fn.Name(), funcName(fn)}; p.isReleaseName(nf[0], nf[1]) {
				if out == nil {
					out = map[int][][2]string{}
				}
				out[idx] = append(out[idx], nf)
			}
		}
	}
	return out
}

// declParams maps the receiver (-1) and each parameter of decl to its index; an unnamed one
// takes its index and no entry.
func declParams(info *types.Info, decl *ast.FuncDecl) map[types.Object]int {
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
	switchedParams(info, decl.Body, params)
	return params
}

// switchedParams adds to params the variable each case of a type switch on a parameter
// binds (switch c := c.(type) { case *net.TCPConn: return &tcpConn{c} }, go-multiaddr's
// wrap): it is the parameter, as the type its case names. Not when the function assigns
// the parameter, which the switch may then read after, nor in a case that assigns its own
// variable.
func switchedParams(info *types.Info, body *ast.BlockStmt, params map[types.Object]int) {
	if body == nil || len(params) == 0 {
		return
	}
	ast.Inspect(body, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSwitchStmt)
		if !ok {
			return true
		}
		as, ok := ts.Assign.(*ast.AssignStmt)
		if !ok || len(as.Rhs) != 1 {
			return true
		}
		ta, ok := ast.Unparen(as.Rhs[0]).(*ast.TypeAssertExpr)
		if !ok {
			return true
		}
		id, ok := ast.Unparen(ta.X).(*ast.Ident)
		if !ok {
			return true
		}
		v, ok := info.Uses[id].(*types.Var)
		i, isParam := params[v]
		if !ok || !isParam || changedIn(info, v, body) {
			return true
		}
		for _, c := range ts.Body.List {
			// A case that assigns its variable (c = &net.TCPConn{}) binds another value.
			if o, ok := info.Implicits[c].(*types.Var); ok && !changedIn(info, o, body) {
				params[o] = i
			}
		}
		return true
	})
}

func isIdent(e ast.Expr) bool {
	_, ok := ast.Unparen(e).(*ast.Ident)
	return ok
}

// argsLocal reports whether an argument of call is rooted in a local of body. A release on a
// field of a parameter with such an argument releases something of the function's own, not
// the parameter: jsa.replies.Delete(reply) for a reply the function made. Called on the
// parameter itself (f.Close()) or with what the caller has (m.mu.Unlock(), m.pool.Release(m.ip)),
// it releases the parameter's.
func argsLocal(info *types.Info, call *ast.CallExpr, body *ast.BlockStmt) bool {
	for _, arg := range call.Args {
		if tv, ok := info.Types[arg]; ok && tv.Value != nil {
			continue
		}
		if o := rootObj(info, arg); o != nil && isLocal(o, body) {
			return true
		}
	}
	return false
}

// releasesField reports whether call, of a function of this package, releases the lock or
// other receiver-scoped acquisition a through a field path of its receiver or an argument:
// t.unlockAndNotify() for t.mu.Lock(), whose body calls t.mu.Unlock() ("the caller holds
// t.mu; it unlocks it"), or unlockAll(t) calling t.mu.Unlock(). isRel says which release
// names end a.
func (p *pkgChecker) releasesField(a *acquisition, call *ast.CallExpr, fn *types.Func, isRel func(string) bool) bool {
	if a.recvKey == "" {
		return false
	}
	wi := p.wrapper(fn)
	if wi == nil {
		return false
	}
	info := p.pass.TypesInfo
	// matches reports whether a release of wi.fields[idx], made on a value of type t whose
	// key is k, is a's.
	fields := wi.fieldsAt(info, call, nil)
	matches := func(idx int, k string, t types.Type) bool {
		for _, f := range fields[idx] {
			if !isRel(f[1]) {
				continue
			}
			if rest, ok := resolveFields(t, fn.Pkg(), f[0]); ok && k+rest == a.recvKey {
				return true
			}
		}
		return false
	}
	// The receiver's key goes through the embedded fields of a promoted method, to a value
	// of the method's own receiver type.
	if k, ok := recvKeyOf(info, call); ok && matches(-1, k, fn.Type().(*types.Signature).Recv().Type()) {
		return true
	}
	for i, arg := range call.Args {
		if k, ok := exprKey(info, arg); ok && matches(i, k, info.TypeOf(arg)) {
			return true
		}
	}
	return false
}

func isDefer(n ast.Node) bool {
	_, ok := n.(*ast.DeferStmt)
	return ok
}

// bodyEnds returns the returns of body, outside its function literals, and body itself
// when its end can be reached by falling off it (its last statement is no return).
func bodyEnds(body *ast.BlockStmt) []ast.Node {
	var out []ast.Node
	for ret := range ownReturns(body) {
		out = append(out, ret)
	}
	if len(body.List) == 0 {
		return append(out, body)
	}
	last := body.List[len(body.List)-1]
	own := ""
	if l, ok := last.(*ast.LabeledStmt); ok {
		last, own = l.Stmt, l.Label.Name // outer: for { … }
	}
	switch last := last.(type) {
	case *ast.ReturnStmt:
	case *ast.ForStmt:
		if last.Cond != nil || breaksOut(last, own) {
			out = append(out, body)
		} // for { … } with no break out of it never falls off the end (rclone's pump)
	default:
		out = append(out, body)
	}
	return out
}

// breaksOut reports whether a branch may leave loop, labeled own (or ""): an unlabeled break
// in its body outside any inner loop, switch or select, or a labeled break or a goto to a
// label declared outside its body, or a continue of a loop around it (a labeled continue
// goes round a loop in it or loop itself).
func breaksOut(loop *ast.ForStmt, own string) bool {
	inside := map[string]bool{}
	ast.Inspect(loop.Body, func(m ast.Node) bool {
		if l, ok := m.(*ast.LabeledStmt); ok {
			inside[l.Label.Name] = true
		}
		_, lit := m.(*ast.FuncLit)
		return !lit
	})
	found := false
	var visit func(n ast.Node, inner bool)
	visit = func(n ast.Node, inner bool) {
		ast.Inspect(n, func(m ast.Node) bool {
			if found {
				return false
			}
			switch m := m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
				if m != n {
					visit(m, true)
					return false
				}
			case *ast.BranchStmt:
				switch {
				case m.Tok == token.GOTO || m.Tok == token.BREAK && m.Label != nil:
					found = !inside[m.Label.Name]
				case m.Tok == token.CONTINUE && m.Label != nil:
					found = !inside[m.Label.Name] && m.Label.Name != own // continue outer
				case m.Tok == token.BREAK:
					found = !inner
				}
			}
			return true
		})
	}
	visit(loop.Body, false)
	return found
}

// dominated reports, for each end of body (a return, or the fall off the body), whether
// the call c runs before it on every path that reaches it: c comes earlier (or in the
// return itself) in a block that contains it, with nothing but nil guards between that
// block and c. An end under the nil test of the parameter c is made on (if t == nil {
// return }) has nothing to release, and counts as covered.
func dominated(info *types.Info, c callInfo, body *ast.BlockStmt, ends []ast.Node, trueFlags map[types.Object]bool) []bool {
	call := c.call
	target := call
	if c.inner != nil {
		target = c.inner
	}
	var root types.Object
	if r := receiver(info, target); r != nil {
		root = rootObj(info, r)
	}
	out := make([]bool, len(ends))
	for i, end := range ends {
		pos := end.Pos()
		if end == body {
			pos = body.Rbrace
		}
		if root != nil && underNilTest(info, body, pos, root) {
			out[i] = true
			continue
		}
		if end != body && within(end, call) {
			pos = end.End() // in the return itself: before it returns
		}
		out[i] = before(info, c, body, pos, trueFlags)
	}
	return out
}

// before reports whether the call c runs before pos on every path that reaches pos: it comes
// earlier in a block that contains pos, with nothing but nil guards between that block and
// c.
func before(info *types.Info, c callInfo, body *ast.BlockStmt, pos token.Pos, trueFlags map[types.Object]bool) bool {
	if c.call.Pos() >= pos {
		return false
	}
	for j := len(c.stack) - 1; j >= 0; j-- {
		if b, ok := blockish(c.stack[j]); ok && b.Pos() <= pos && pos < b.End() {
			return unconditional(info, c.stack, b, c.call, trueFlags)
		}
	}
	return false
}

// blockish returns n when it is a list of statements run in order: a block, or a case of a
// switch or select. Its last position inside is lastPos.
func blockish(n ast.Node) (ast.Node, bool) {
	switch n.(type) {
	case *ast.BlockStmt, *ast.CaseClause, *ast.CommClause:
		return n, true
	}
	return nil, false
}

// lastPos returns the last position inside b, a blockish node.
func lastPos(b ast.Node) token.Pos {
	if bs, ok := b.(*ast.BlockStmt); ok {
		return bs.Rbrace
	}
	return b.End() - 1
}

// reaches reports whether a call with ancestors stack may run before the end at pos: no block around
// it that leaves end out ends by leaving the function or the block (if err != nil {
// c.mu.Lock(); return } does not reach the function's last return).
func reaches(stack []ast.Node, end token.Pos) bool {
	in := func(n ast.Node) bool { return n.Pos() <= end && end < n.End() }
	for i, n := range stack {
		if in(n) {
			continue
		}
		var list []ast.Stmt
		switch b := n.(type) {
		case *ast.BlockStmt:
			list = b.List
			if i > 0 {
				// The other branch of an if: if x { c.mu.Lock() } else { return }.
				if ifs, ok := stack[i-1].(*ast.IfStmt); ok && in(ifs) && !in(ifs.Cond) {
					return false
				}
			}
		case *ast.CaseClause:
			list = b.Body
		case *ast.CommClause:
			list = b.Body
		default:
			continue
		}
		if _, block := n.(*ast.BlockStmt); !block && i > 0 && in(stack[i-1]) {
			return false // another case of the switch or select the end is in
		}
		if len(list) == 0 {
			continue
		}
		switch list[len(list)-1].(type) {
		case *ast.ReturnStmt, *ast.BranchStmt:
			return false
		}
	}
	return true
}

// underNilTest reports whether pos is in the body of an if, in body, that tests o == nil.
func underNilTest(info *types.Info, body *ast.BlockStmt, pos token.Pos, o types.Object) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if found || n == nil || pos < n.Pos() || pos >= n.End() {
			return false
		}
		if ifs, ok := n.(*ast.IfStmt); ok && ifs.Body.Pos() <= pos && pos < ifs.Body.End() {
			if b, ok := ast.Unparen(ifs.Cond).(*ast.BinaryExpr); ok && b.Op == token.EQL {
				x, y := b.X, b.Y
				if isNilIdent(info, x) {
					x, y = y, x
				}
				if id, ok := ast.Unparen(x).(*ast.Ident); ok && info.Uses[id] == o && isNilIdent(info, y) {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// assignedParams returns the parameters body assigns: a release on one releases what it
// was assigned, not what the caller passed (c = nopCloser{}; c.Close()).
func (p *pkgChecker) assignedParams(decl *ast.FuncDecl, params map[types.Object]int) map[types.Object]bool {
	if out, ok := p.assigned[decl]; ok {
		return out // the same for every summary of decl: params is declParams(decl)
	}
	if p.assigned == nil {
		p.assigned = map[*ast.FuncDecl]map[types.Object]bool{}
	}
	info := p.pass.TypesInfo
	out := map[types.Object]bool{}
	p.assigned[decl] = out
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		var lhs []ast.Expr
		switch n := n.(type) {
		case *ast.AssignStmt:
			lhs = n.Lhs
		case *ast.IncDecStmt:
			lhs = []ast.Expr{n.X}
		}
		for _, l := range lhs {
			if id, ok := ast.Unparen(l).(*ast.Ident); ok {
				if o := info.Uses[id]; o != nil {
					if _, isParam := params[o]; isParam {
						out[o] = true
					}
				}
			}
		}
		return true
	})
	return out
}

// copied reports whether the field path (".mu") of a parameter of type t names a copy of
// the caller's: t is a struct passed by value, and every field on the path is a struct
// too. A value receiver's t.mu.Unlock() unlocks its own copy; through a pointer anywhere
// on the path (t.mu of a *sync.Mutex field) it unlocks the caller's.
func copied(t types.Type, pkg *types.Package, path string) bool {
	if _, ok := t.Underlying().(*types.Struct); !ok {
		return false
	}
	if path == "" {
		return true
	}
	for _, name := range strings.Split(path, ".")[1:] {
		obj, _, _ := types.LookupFieldOrMethod(t, false, pkg, name)
		v, ok := obj.(*types.Var)
		if !ok {
			return false
		}
		t = v.Type()
		if _, ok := t.Underlying().(*types.Struct); !ok {
			return false
		}
	}
	return true
}

func hasGoto(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if b, ok := n.(*ast.BranchStmt); ok && b.Tok == token.GOTO {
			found = true
		}
		return !found
	})
	return found
}

// copiedContainer reports whether the store l (r.files) writes into a copy: the field path
// before its last field names a struct passed by value, a value receiver's own.
func copiedContainer(info *types.Info, l ast.Expr) bool {
	root, path, ok := fieldPath(info, l)
	if !ok || path == "" {
		return false
	}
	return copied(root.Type(), root.Pkg(), path[:strings.LastIndex(path, ".")])
}

// paramIndex returns the index of the parameter that argument i of a call of sig binds:
// the variadic parameter for every argument from its position on.
func paramIndex(sig *types.Signature, i int) int {
	if sig.Variadic() && i >= sig.Params().Len()-1 {
		return sig.Params().Len() - 1
	}
	return i
}
