package releasepath

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"
)

// The strict summaries of a function body: what it releases of its parameters on every path
// (fieldReleases), and which parameters it keeps beyond the call (keptParams). They are what
// a fact carries to other packages.

// A fieldSite is a parameter (-1 the receiver) and a field path of it (".mu", "" for itself).
type fieldSite struct {
	idx  int
	path string
}

// A fieldRelease is a release of one name on one site.
type fieldRelease struct {
	site fieldSite
	name string
}

// A siteEvent is an acquire or a release on a site, with the call that makes it.
type siteEvent struct {
	acquire bool
	name    string
	c       callInfo
	dom     []bool // for a release: the ends of the body it comes before (dominated)
	defers  bool   // a deferred release: it runs after whatever the body does
}

// fieldScan is one body's scan for fieldReleases.
type fieldScan struct {
	p        *pkgChecker
	info     *types.Info
	decl     *ast.FuncDecl
	params   map[types.Object]int
	assigned map[types.Object]bool
	ends     []ast.Node // the body's returns, and the body when it can fall off its end
	// covered lists, for each release, the ends that one of its calls comes before on
	// every path: the release counts when it covers all.
	covered map[fieldRelease][]bool
	order   []fieldRelease
	events  map[fieldSite][]siteEvent
	// trueFlags are the bool parameters the summary assumes true (releaseflag): a test of
	// one is no condition, and passing one on passes true.
	trueFlags map[types.Object]bool
}

// fieldReleases computes wrapperInfo.fields for decl: the releases it makes on a parameter
// or a field path of one before every return, and does not take back. A path the body
// acquires before it first releases it (t.mu.Lock(); …; t.mu.Unlock()), or may leave
// acquired (t.mu.Unlock(); runtime.Gosched(); t.mu.Lock()), is the body's own to balance;
// a release under a condition (if t.verbose { t.mu.Unlock() }) may not run. A body entered
// holding it and left with it released releases it, whatever it takes and gives back in
// between.
func (p *pkgChecker) fieldReleases(decl *ast.FuncDecl, params map[types.Object]int) map[int][][2]string {
	return p.fieldReleasesIf(decl, params, nil)
}

// fieldReleasesIf is fieldReleases with the flags of trueFlags assumed true.
func (p *pkgChecker) fieldReleasesIf(decl *ast.FuncDecl, params map[types.Object]int, trueFlags map[types.Object]bool) map[int][][2]string {
	s := &fieldScan{p: p, info: p.pass.TypesInfo, decl: decl, params: params,
		covered: map[fieldRelease][]bool{}, events: map[fieldSite][]siteEvent{}, trueFlags: trueFlags}
	calls := collectCalls(s.info, decl.Body, false, func(call *ast.CallExpr, fn *types.Func) bool {
		_, lit := ast.Unparen(call.Fun).(*ast.FuncLit)
		return s.onParam(call, fn) || lit
	})
	if len(calls) == 0 || hasGoto(decl.Body) {
		return nil // a goto may jump past any release: no summary
	}
	s.ends = bodyEnds(decl.Body)
	s.assigned = p.assignedParams(decl, params)
	for i := 0; i < len(calls); i++ {
		calls = append(calls, s.scan(calls[i])...)
	}
	return s.result()
}

// commits reports whether call, of a method named name, is a Commit or a Rollback that
// passes a context and plain values only (w.Commit(ctx, size, dgst), tx.Commit(ctx)): it
// ends its receiver, the arguments say how. A release with arguments otherwise ends what
// they name (p.Release(id), c.replies.Delete(reply)), not its receiver.
func commits(info *types.Info, name string, call *ast.CallExpr) bool {
	if w := words(name); w[0] != "Commit" && w[0] != "Rollback" {
		return false
	}
	for _, arg := range call.Args {
		t := info.TypeOf(arg)
		if t == nil || !(isBasic(t) || isContext(t)) {
			return false
		}
	}
	return true
}

// onParam reports whether call is on or with a parameter. Only such calls matter; the filter
// spares the copy of every other call's ancestors, which is most of the cost of summarizing
// a package.
func (s *fieldScan) onParam(call *ast.CallExpr, fn *types.Func) bool {
	if fn == nil {
		return false
	}
	if r := receiver(s.info, call); r != nil {
		if _, ok := s.params[rootObj(s.info, r)]; ok {
			return true
		}
	}
	return slices.ContainsFunc(call.Args, func(arg ast.Expr) bool {
		_, ok := s.params[rootObj(s.info, arg)]
		return ok
	})
}

// at returns the parameter and field path e is rooted at, unless the body assigns the
// parameter (c = nopCloser{}; c.Close() closes another value) or the path names a copy of
// the caller's (a value receiver's own mutex).
func (s *fieldScan) at(e ast.Expr) (fieldSite, bool) {
	root, path, ok := fieldPath(s.info, e)
	idx, isParam := s.params[root]
	if !ok || !isParam || s.assigned[root] || copied(root.Type(), root.Pkg(), path) {
		return fieldSite{}, false
	}
	return fieldSite{idx, path}, true
}

// atRecv returns the site a method is called on, through the embedded fields of a promoted
// one (l.Unlock() on a struct embedding sync.Mutex is on l.Mutex).
func (s *fieldScan) atRecv(call *ast.CallExpr) (fieldSite, bool) {
	r := receiver(s.info, call)
	if r == nil {
		return fieldSite{}, false
	}
	site, ok := s.at(r)
	_, names := embeddedPath(s.info, ast.Unparen(call.Fun).(*ast.SelectorExpr))
	site.path += names
	return site, ok
}

// release records a release of name on site by the call c.
func (s *fieldScan) release(site fieldSite, name string, c callInfo, dom []bool, defers bool) {
	s.events[site] = append(s.events[site], siteEvent{name: name, c: c, dom: dom, defers: defers})
	r := fieldRelease{site, name}
	if s.covered[r] == nil {
		s.covered[r] = make([]bool, len(s.ends))
		s.order = append(s.order, r)
	}
	for i, d := range dom {
		s.covered[r][i] = s.covered[r][i] || d
	}
}

// scan records what the call c acquires and releases. A closure deferred with no arguments
// runs at every return after its defer (defer func() { c.Close() }()): scan returns its
// calls, read as made where it is deferred, for the caller to scan in turn.
func (s *fieldScan) scan(c callInfo) []callInfo {
	if lit, ok := ast.Unparen(c.call.Fun).(*ast.FuncLit); ok && c.inner == nil {
		var more []callInfo
		if len(c.call.Args) == 0 && len(c.stack) > 0 && isDefer(c.stack[len(c.stack)-1]) {
			for _, in := range collectCalls(s.info, lit.Body, false, s.onParam) {
				if unconditional(s.info, in.stack, lit.Body, in.call, s.trueFlags) {
					more = append(more, callInfo{call: c.call, fn: in.fn, stack: c.stack, inner: in.call})
				}
			}
		}
		return more
	}
	call := c.call
	if c.inner != nil {
		call = c.inner
	}
	var dom []bool // which ends the call runs before, computed for a release only
	domOf := func() []bool {
		if dom == nil {
			dom = dominated(s.info, c, s.decl.Body, s.ends, s.trueFlags)
		}
		return dom
	}
	defers := c.inner != nil || (len(c.stack) > 0 && isDefer(c.stack[len(c.stack)-1]))
	if site, ok := s.atRecv(call); ok {
		name := c.fn.Name()
		if _, acq := matchVerb(name); acq {
			s.events[site] = append(s.events[site], siteEvent{acquire: true, c: c})
			return nil
		}
		s.takes(c, call, site, -1)
		if (len(call.Args) == 0 || commits(s.info, name, call)) && s.p.isReleaseName(name, funcName(c.fn)) {
			s.release(site, name, c, domOf(), defers)
			if c.fn.Pkg() != s.p.pass.Pkg {
				// Another package's release is the whole of it: what t.mu.Unlock does inside
				// sync.Mutex is no release of t's. A helper of this package named like one
				// (t.parent.unlock()) is read for what it releases.
				return nil
			}
		}
	}
	if receiver(s.info, call) == nil {
		for j, arg := range call.Args {
			if site, ok := s.at(arg); ok {
				s.takes(c, call, site, j)
			}
		}
	}
	if receiver(s.info, call) == nil && s.p.isReleaseName(c.fn.Name(), funcName(c.fn)) {
		// rawlock.UnlockFile(l.fd) releases the field path it is passed, and nothing else
		// of l: the summary keeps which part.
		if args := nonContextArgs(s.info, call); len(args) == 1 {
			if site, ok := s.at(args[0]); ok && site.path != "" {
				s.release(site, c.fn.Name(), c, domOf(), defers)
			}
		}
	}
	inner := s.p.wrapper(c.fn)
	if inner == nil {
		return nil
	}
	through := func(site fieldSite, rels [][2]string) {
		for _, x := range rels {
			s.release(fieldSite{site.idx, site.path + x[0]}, x[1], c, domOf(), defers)
		}
	}
	fields := inner.fieldsAt(s.info, call, s.trueFlags)
	if site, ok := s.atRecv(call); ok {
		through(site, fields[-1])
	}
	for j, arg := range call.Args {
		if site, ok := s.at(arg); ok {
			through(site, fields[j])
		}
	}
	return nil
}

// takes records what the call c takes of site, what it passes as its receiver (at -1) or
// its argument at: q.relock(), q.tryLock(), lockQ(q). A helper of the package that locks a
// field of its own receiver or of a parameter takes that field of what it is passed,
// whatever its name says, unless its summary releases it (unlock, dial, lock, count,
// unlock).
func (s *fieldScan) takes(c callInfo, call *ast.CallExpr, site fieldSite, at int) {
	paths := s.p.lockedFields(c.fn)[at]
	var released [][2]string
	if wi := s.p.wrapper(c.fn); wi != nil && len(paths) > 0 {
		released = wi.fieldsAt(s.info, call, s.trueFlags)[at]
	}
	for _, path := range paths {
		if slices.ContainsFunc(released, func(x [2]string) bool { return x[0] == path }) {
			continue
		}
		f := fieldSite{site.idx, site.path + path}
		s.events[f] = append(s.events[f], siteEvent{acquire: true, c: c})
	}
}

// result lists the releases that cover every end, on sites the body does not balance itself.
func (s *fieldScan) result() map[int][][2]string {
	fields := map[int][][2]string{}
	for _, r := range s.order {
		if slices.Contains(s.covered[r], false) || s.holds(r.site, r.name) {
			continue
		}
		prefixTaken := false
		for t, evs := range s.events {
			// A field of a path the body takes itself (t.inner.lock(); t.inner.finish()).
			// A call that gives back what it takes (layout := t.acquireLayout(b), prometheus's
			// refcounted layouts) takes a value of its own, not the path.
			if t.idx == r.site.idx && strings.HasPrefix(r.site.path, t.path+".") && slices.ContainsFunc(evs, func(e siteEvent) bool { return e.acquire && !givesValue(e.c.fn) }) {
				prefixTaken = true
			}
		}
		if !prefixTaken {
			fields[r.site.idx] = append(fields[r.site.idx], [2]string{r.site.path, r.name})
		}
	}
	return fields
}

// lockedFields returns the field paths that fn, a function of the package, locks in its own
// body, outside its function literals: of its receiver at -1 (".mu" of func (q *queue)
// relock() { q.mu.Lock() }, return q.mu.TryLock()) and of each parameter at its index (".mu"
// of func lockQ(q *queue) { q.mu.Lock() }); computed once.
func (p *pkgChecker) lockedFields(fn *types.Func) map[int][]string {
	if paths, ok := p.lockTakers[fn]; ok {
		return paths
	}
	if p.lockTakers == nil {
		p.lockTakers = map[*types.Func]map[int][]string{}
	}
	var paths map[int][]string
	info := p.pass.TypesInfo
	if fd := p.decls[fn]; fd != nil {
		idx := declParams(info, fd) // q of func (q *queue) relock() at -1, q of lockQ(q *queue) at 0
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if _, ok := n.(*ast.FuncLit); ok {
				return false
			}
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if m, ok := matchVerb(sel.Sel.Name); ok && m.verb == "Lock" {
				root, path, ok := fieldPath(info, ast.Unparen(sel.X))
				if at, isParam := idx[root]; ok && isParam && path != "" && !slices.Contains(paths[at], path) {
					if paths == nil {
						paths = map[int][]string{}
					}
					paths[at] = append(paths[at], path)
				}
			}
			return true
		})
	}
	p.lockTakers[fn] = paths
	return paths
}

// givesValue reports whether fn returns what it acquires: its first result is a value other
// than a bool, an error or a function (a try-lock's ok, an unlock to call).
func givesValue(fn *types.Func) bool {
	res := fn.Type().(*types.Signature).Results()
	if res.Len() == 0 {
		return false
	}
	t := res.At(0).Type()
	_, isFunc := t.Underlying().(*types.Signature)
	return !isBool(t) && !isError(t) && !isFunc
}

// holds reports whether the body balances site itself, for name, the release it would
// summarize: it takes the site before it first releases it (t.bump()), or may leave it taken
// (unlock, Gosched, lock). A body entered holding it and left with it released on every path
// releases it, whatever it takes and releases in between (grpc's resetTransportAndUnlock).
func (s *fieldScan) holds(site fieldSite, name string) bool {
	var acqs, rels []siteEvent
	for _, e := range s.events[site] {
		switch {
		case e.acquire:
			acqs = append(acqs, e)
		case e.name == name:
			rels = append(rels, e)
		}
	}
	// Entered holding: every acquire comes after a release of this name on its every path
	// (not t.bump(), nor an RUnlock before a Lock, nor a release under a condition).
	for _, a := range acqs {
		if !slices.ContainsFunc(rels, func(r siteEvent) bool {
			return !r.defers && before(s.info, r.c, s.decl.Body, a.c.call.Pos(), s.trueFlags)
		}) {
			return true
		}
	}
	// Left released: at each end, a release of this name that comes before it comes after
	// the last acquire that can reach it (unlock, Gosched, lock leaves it held).
	for i, end := range s.ends {
		pos := end.Pos()
		if end == ast.Node(s.decl.Body) {
			pos = s.decl.Body.Rbrace // the fall off the body's end
		}
		last := token.NoPos
		for _, a := range acqs {
			if a.c.call.Pos() < pos && reaches(a.c.stack, pos) && !s.balancedInBlock(a, rels) {
				last = max(last, a.c.call.Pos())
			}
		}
		if last == token.NoPos {
			continue
		}
		if !slices.ContainsFunc(rels, func(r siteEvent) bool {
			return r.dom[i] && (r.defers || r.c.call.Pos() > last)
		}) {
			return true
		}
	}
	return false
}

// balancedInBlock reports whether one of rels follows the acquire a in a's own block (or
// case), on every path through it: for { mu.Lock(); …; mu.Unlock() } leaves nothing held.
func (s *fieldScan) balancedInBlock(a siteEvent, rels []siteEvent) bool {
	for j := len(a.c.stack) - 1; j >= 0; j-- {
		if b, ok := blockish(a.c.stack[j]); ok {
			return slices.ContainsFunc(rels, func(r siteEvent) bool {
				return !r.defers && r.c.call.Pos() > a.c.call.Pos() && before(s.info, r.c, s.decl.Body, lastPos(b), s.trueFlags)
			})
		}
	}
	return false
}

// keepScan is one body's scan for keptParams.
type keepScan struct {
	p        *pkgChecker
	info     *types.Info
	params   map[types.Object]int
	assigned map[types.Object]bool
	recv     types.Object
	// alias maps the locals that hold a parameter, g := f or the values of for _, f :=
	// range fs, to it.
	alias map[types.Object]int
	// wraps maps the locals that hold parameters as the result of a function of the package
	// that wraps them (n := newNIC(s, id, ep, opts)) to those parameters.
	wraps map[types.Object][]int
	keeps map[int]keep
}

// keptParams computes wrapperInfo.keeps for decl. Only a parameter itself counts (or a local
// copy of it), never a field of it (store(p.name) keeps a string), and never one the body
// assigns.
func (p *pkgChecker) keptParams(decl *ast.FuncDecl, params map[types.Object]int) map[int]keep {
	if len(params) == 0 {
		return nil
	}
	k := &keepScan{p: p, info: p.pass.TypesInfo, params: params,
		assigned: p.assignedParams(decl, params),
		alias:    map[types.Object]int{}, wraps: map[types.Object][]int{}, keeps: map[int]keep{}}
	for o, i := range params {
		if i == -1 {
			k.recv = o
		}
	}
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.GoStmt:
			k.goStmt(n)
			return false
		case *ast.SendStmt:
			k.stored(n.Value, keptAway)
		case *ast.RangeStmt:
			if _, idx, ok := k.param(n.X); ok && n.Value != nil {
				if id, ok := n.Value.(*ast.Ident); ok && k.info.Defs[id] != nil {
					k.alias[k.info.Defs[id]] = idx
				}
			}
		case *ast.AssignStmt:
			k.assign(n)
		case *ast.CallExpr:
			k.call(n)
		}
		return true
	})
	return k.keeps
}

// param returns the parameter e is (or the local copy of one), through &.
func (k *keepScan) param(e ast.Expr) (types.Object, int, bool) {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = ast.Unparen(u.X)
	}
	id, ok := e.(*ast.Ident)
	if !ok {
		return nil, 0, false
	}
	o := k.info.Uses[id]
	if idx, ok := k.alias[o]; ok {
		return o, idx, true
	}
	idx, ok := k.params[o]
	return o, idx, ok && !k.assigned[o]
}

func (k *keepScan) mark(e ast.Expr, how keep) {
	if _, idx, ok := k.param(e); ok {
		k.keeps[idx] = max(k.keeps[idx], how)
	}
	if id, ok := ast.Unparen(e).(*ast.Ident); ok {
		for _, idx := range k.wraps[k.info.Uses[id]] {
			k.keeps[idx] = max(k.keeps[idx], how)
		}
	}
}

// stored marks what e holds of a parameter: the parameter, or a composite literal or append
// that holds it.
func (k *keepScan) stored(e ast.Expr, how keep) {
	switch x := ast.Unparen(e).(type) {
	case *ast.CompositeLit:
		for _, el := range x.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				el = kv.Value
			}
			k.stored(el, how)
		}
	case *ast.UnaryExpr:
		if x.Op == token.AND {
			k.stored(x.X, how)
		}
	case *ast.CallExpr:
		if id, ok := ast.Unparen(x.Fun).(*ast.Ident); ok && id.Name == "append" {
			for _, a := range x.Args[1:] {
				k.stored(a, how)
			}
			return
		}
		for _, idx := range k.wrappedIn(x) { // s.nics[id] = newNIC(id, ep)
			k.keeps[idx] = max(k.keeps[idx], how)
		}
	default:
		k.mark(e, how)
	}
}

// goStmt marks what a goroutine is handed: its call's arguments and receiver, and what a
// literal it runs captures.
func (k *keepScan) goStmt(n *ast.GoStmt) {
	for _, a := range n.Call.Args {
		k.mark(a, keptAway)
	}
	if r := receiver(k.info, n.Call); r != nil {
		k.mark(r, keptAway)
	}
	if lit, ok := ast.Unparen(n.Call.Fun).(*ast.FuncLit); ok {
		ast.Inspect(lit.Body, func(m ast.Node) bool {
			if id, ok := m.(*ast.Ident); ok {
				k.mark(id, keptAway)
			}
			return true
		})
	}
}

// isParam reports whether o is a parameter of the function, its receiver aside.
func (k *keepScan) isParam(o types.Object) bool {
	_, ok := k.params[o]
	return ok && o != k.recv
}

// assign records a local copy (g := f), and marks what is stored in a package variable, a
// field of the receiver (not a value receiver's own copy) or a field of what another
// parameter points at.
func (k *keepScan) assign(n *ast.AssignStmt) {
	if len(n.Lhs) != len(n.Rhs) {
		// n, err := newNICErr(id, ep): the result that is neither an error nor of a basic
		// type wraps what the call's result holds.
		call, isCall := ast.Unparen(n.Rhs[0]).(*ast.CallExpr)
		for i, l := range n.Lhs {
			id, ok := ast.Unparen(l).(*ast.Ident)
			if t := k.info.TypeOf(l); ok && isCall && len(n.Rhs) == 1 && t != nil && !isError(t) && !isBasic(t) {
				o := k.info.ObjectOf(id)
				k.wraps[o] = append(k.wraps[o], k.wrappedInAt(call, i)...)
			}
		}
		return
	}
	for i, l := range n.Lhs {
		if id, ok := l.(*ast.Ident); ok && n.Tok == token.DEFINE {
			if o := k.info.Defs[id]; o != nil && k.wrapped(n.Rhs[i], o) {
				continue
			}
			if _, idx, ok := k.param(n.Rhs[i]); ok && k.info.Defs[id] != nil {
				k.alias[k.info.Defs[id]] = idx
				continue
			}
		}
		root := rootObj(k.info, l)
		if root == nil {
			continue
		}
		switch {
		case isGlobal(root):
			k.stored(n.Rhs[i], keptAway)
		case root == k.recv && !isIdent(l) && !copiedContainer(k.info, l):
			k.stored(n.Rhs[i], storedInRecv)
		case k.isParam(root) && !k.assigned[root] && !isIdent(l) && !copiedContainer(k.info, l):
			// j.out = f for a parameter j: what the caller passed as j keeps it, and the
			// caller's j is not known to die with it.
			k.stored(n.Rhs[i], keptAway)
		}
	}
}

// wrapped records in wraps the parameters that o, defined as e, holds as the result of a
// function of the package that wraps them (n := newNIC(s, id, ep, opts), whose result
// holds ep: resultholds), so that storing the wrapper (s.nics[id] = n) keeps them as
// storing them would.
func (k *keepScan) wrapped(e ast.Expr, o types.Object) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	k.wraps[o] = append(k.wraps[o], k.wrappedIn(call)...)
	return len(k.wraps[o]) > 0
}

// wrappedIn returns the parameters the result of call holds, when call is of a function of
// the package whose result holds what it is passed there: a parameter, a local that wraps
// one, or another such call (newNIC(id, wrapSniffer(ep))).
func (k *keepScan) wrappedIn(call *ast.CallExpr) []int {
	return k.wrappedInAt(call, -1)
}

// wrappedInAt is wrappedIn for the call's result i alone (n, err := newNICErr(id, ep)), or
// any of its results for i -1.
func (k *keepScan) wrappedInAt(call *ast.CallExpr, i int) []int {
	if !k.passes(call) {
		return nil // the common case, decided before any callee's summary is computed
	}
	var held []ast.Expr
	if i < 0 {
		held = k.p.heldArgsAt(call, -1, false)
	} else {
		held = k.p.heldArgsAt(call, i, false)
	}
	var out []int
	for _, e := range held {
		if _, idx, ok := k.param(e); ok {
			out = append(out, idx)
		}
		if id, ok := ast.Unparen(e).(*ast.Ident); ok {
			out = append(out, k.wraps[k.info.Uses[id]]...)
		}
		if c, ok := ast.Unparen(e).(*ast.CallExpr); ok {
			out = append(out, k.wrappedIn(c)...)
		}
	}
	return out
}

// passes reports whether call passes a parameter, or a local that wraps one, as its receiver
// or an argument, also inside a call among them (newNIC(id, wrapSniffer(ep))).
func (k *keepScan) passes(call *ast.CallExpr) bool {
	found := false
	ast.Inspect(call, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			o := k.info.Uses[id]
			_, isParam := k.params[o]
			_, isAlias := k.alias[o]
			found = found || isParam || isAlias || len(k.wraps[o]) > 0
		}
		_, lit := n.(*ast.FuncLit)
		return !found && !lit
	})
	return found
}

// call marks what the body passes to a function that keeps it, by that function's summary.
func (k *keepScan) call(n *ast.CallExpr) {
	passes := slices.ContainsFunc(n.Args, func(a ast.Expr) bool { _, _, ok := k.param(a); return ok })
	if r := receiver(k.info, n); r != nil {
		_, _, ok := k.param(r)
		passes = passes || ok
	}
	if !passes {
		return // the callee's summary is read only for what the body passes it
	}
	cfn, _ := typeInfoCallee(k.info, n)
	if cfn == nil {
		return
	}
	if serveLike(cfn) {
		// A Serve-like method owns what it is given (compositehandoff), and so does a
		// helper that hands it one: rclone's s.serve(listener, …) returning hs.Serve(listener).
		for _, a := range n.Args {
			k.mark(a, keptAway)
		}
		return
	}
	inner := k.p.wrapper(cfn)
	if inner == nil {
		return
	}
	// What the callee stores in its receiver, this body keeps as that receiver lives: in its
	// own receiver's field, or a package variable's; in a local, only as long as the local.
	inRecv := keep(0)
	if r := receiver(k.info, n); r != nil {
		switch root := rootObj(k.info, r); {
		case root == nil:
		case isGlobal(root):
			inRecv = keptAway
		case root == k.recv && !copied(root.Type(), root.Pkg(), ""):
			inRecv = storedInRecv
		}
		if inner.keeps[-1] == keptAway {
			k.mark(r, keptAway) // go r.run() inside the callee
		}
	}
	sig := cfn.Type().(*types.Signature)
	for j, a := range n.Args {
		switch inner.keeps[paramIndex(sig, j)] {
		case keptAway:
			k.mark(a, keptAway)
		case storedInRecv:
			if inRecv != 0 {
				k.mark(a, inRecv)
			}
		}
	}
}

func isGlobal(o types.Object) bool {
	return o.Parent() != nil && o.Pkg() != nil && o.Parent() == o.Pkg().Scope()
}

// nonContextArgs returns call's arguments but its contexts.
func nonContextArgs(info *types.Info, call *ast.CallExpr) []ast.Expr {
	var out []ast.Expr
	for _, a := range call.Args {
		if t := info.TypeOf(a); t == nil || !isContext(t) {
			out = append(out, a)
		}
	}
	return out
}
