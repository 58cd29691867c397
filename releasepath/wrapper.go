package releasepath

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"
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
	ws := words(name)
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

// wrapperInfo records, for one function, the release calls it makes on or with each of its
// parameters (index -1 is the receiver).
type wrapperInfo struct {
	names map[int][][2]string // param index → {name, full name} of each release call on or with it
	// fields lists, per param index, the release calls made on the parameter or on a field
	// path of it (t.mu.Unlock() in a method of t), as {path, name}: path is the field names
	// after the parameter (".mu"), "" for the parameter itself.
	fields map[int][][2]string
	// keeps lists the parameters the function keeps beyond the call: hands to a goroutine
	// (go profileWriter(w)), sends, stores in a package variable or in a field of its
	// receiver, or passes to a function that keeps them. What a caller passes there is
	// handed on.
	keeps map[int]bool
}

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
	wi := p.wrapper(fn)
	if wi == nil {
		return false
	}
	info := p.pass.TypesInfo
	// Only the acquired value or a local handle: a method of the client that acquired
	// (g.AddInstances … g.RemoveInstances) releases nothing of this acquisition.
	byArgs := receiver(info, a.call) == nil
	holds := func(e ast.Expr) bool {
		o := rootObj(info, e)
		return o != nil && (a.values[o] || (byArgs && a.argRoots[o]))
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
	if p.factsOnly {
		// A fact carries the field releases and the kept parameters alone (factOf).
		wi.fields = p.fieldReleases(decl, params)
		wi.keeps = p.keptParams(decl, params)
		p.wrappers[fn] = wi
		return wi
	}
	add := func(idx int, nf [2]string) {
		if !slices.Contains(wi.names[idx], nf) {
			wi.names[idx] = append(wi.names[idx], nf)
		}
	}
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
	})
	wi.fields = p.fieldReleases(decl, params)
	wi.keeps = p.keptParams(decl, params)
	p.wrappers[fn] = wi
	return wi
}

// keptParams computes wrapperInfo.keeps for decl. Only a parameter itself counts, never a
// field of it (store(p.name) keeps a string), and never one the body assigns.
func (p *pkgChecker) keptParams(decl *ast.FuncDecl, params map[types.Object]int) map[int]bool {
	if len(params) == 0 {
		return nil
	}
	info := p.pass.TypesInfo
	assigned := assignedParams(info, decl.Body, params)
	var recv types.Object
	for o, i := range params {
		if i == -1 {
			recv = o
		}
	}
	keeps := map[int]bool{}
	// alias maps the locals that hold a parameter, g := f or the values of for _, f :=
	// range fs, to it.
	alias := map[types.Object]int{}
	param := func(e ast.Expr) (types.Object, int, bool) {
		e = ast.Unparen(e)
		if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
			e = ast.Unparen(u.X)
		}
		id, ok := e.(*ast.Ident)
		if !ok {
			return nil, 0, false
		}
		o := info.Uses[id]
		if idx, ok := alias[o]; ok {
			return o, idx, true
		}
		idx, ok := params[o]
		return o, idx, ok && !assigned[o]
	}
	mark := func(e ast.Expr) {
		if _, idx, ok := param(e); ok {
			keeps[idx] = true
		}
	}
	// stored reports whether e holds a parameter: the parameter, or a composite literal or
	// append that holds it.
	var stored func(e ast.Expr)
	stored = func(e ast.Expr) {
		switch x := ast.Unparen(e).(type) {
		case *ast.CompositeLit:
			for _, el := range x.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					el = kv.Value
				}
				stored(el)
			}
		case *ast.UnaryExpr:
			if x.Op == token.AND {
				stored(x.X)
			}
		case *ast.CallExpr:
			if id, ok := ast.Unparen(x.Fun).(*ast.Ident); ok && id.Name == "append" {
				for _, a := range x.Args[1:] {
					stored(a)
				}
			}
		default:
			mark(e)
		}
	}
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.GoStmt:
			for _, a := range n.Call.Args {
				mark(a)
			}
			if r := receiver(info, n.Call); r != nil {
				mark(r)
			}
			if lit, ok := ast.Unparen(n.Call.Fun).(*ast.FuncLit); ok {
				ast.Inspect(lit.Body, func(m ast.Node) bool {
					if id, ok := m.(*ast.Ident); ok {
						mark(id) // captured by the goroutine
					}
					return true
				})
			}
			return false
		case *ast.SendStmt:
			stored(n.Value)
		case *ast.RangeStmt:
			if _, idx, ok := param(n.X); ok && n.Value != nil {
				if id, ok := n.Value.(*ast.Ident); ok && info.Defs[id] != nil {
					alias[info.Defs[id]] = idx
				}
			}
		case *ast.AssignStmt:
			if len(n.Lhs) != len(n.Rhs) {
				return true
			}
			for i, l := range n.Lhs {
				if id, ok := l.(*ast.Ident); ok && n.Tok == token.DEFINE {
					if _, idx, ok := param(n.Rhs[i]); ok && info.Defs[id] != nil {
						alias[info.Defs[id]] = idx // g := f
						continue
					}
				}
				root := rootObj(info, l)
				if root == nil {
					continue
				}
				global := root.Parent() != nil && root.Pkg() != nil && root.Parent() == root.Pkg().Scope()
				if global || (root == recv && !isIdent(l) && !copiedContainer(info, l)) {
					stored(n.Rhs[i]) // a package variable, or a field of the receiver
				}
			}
		case *ast.CallExpr:
			passes := false
			for _, a := range n.Args {
				_, _, ok := param(a)
				passes = passes || ok
			}
			if r := receiver(info, n); r != nil {
				_, _, ok := param(r)
				passes = passes || ok
			}
			if !passes {
				return true // the callee's summary is read only for what the body passes it
			}
			cfn, _ := typeInfoCallee(info, n)
			if cfn == nil {
				return true
			}
			inner := p.wrapper(cfn)
			if inner == nil {
				return true
			}
			sig := cfn.Type().(*types.Signature)
			for j, a := range n.Args {
				if sig.Variadic() && j >= sig.Params().Len()-1 {
					j = sig.Params().Len() - 1
				}
				if inner.keeps[j] {
					mark(a)
				}
			}
			if r := receiver(info, n); r != nil && inner.keeps[-1] {
				mark(r)
			}
		}
		return true
	})
	return keeps
}

// fieldReleases computes wrapperInfo.fields for decl: the releases it makes, whenever it
// runs, on a parameter or a field path of one, and does not take back. A path the body
// acquires before it first releases it (t.mu.Lock(); …; t.mu.Unlock()), or after its last
// release (t.mu.Unlock(); runtime.Gosched(); t.mu.Lock()), is the body's own to balance; a
// release under a condition (if t.verbose { t.mu.Unlock() }) may not run. A body that
// releases first and last releases, whatever it takes and gives back in between.
func (p *pkgChecker) fieldReleases(decl *ast.FuncDecl, params map[types.Object]int) map[int][][2]string {
	info := p.pass.TypesInfo
	type site struct {
		idx  int
		path string
	}
	type release struct {
		site site
		name string
	}
	var ends []ast.Node // computed with the first call on a parameter
	// covered lists, for each release, the ends (returns, and the fall off the body) that
	// one of its calls comes before on every path: the release counts when it covers all.
	covered := map[release][]bool{}
	var order []release
	record := func(s site, name string, dom []bool) {
		r := release{s, name}
		if covered[r] == nil {
			covered[r] = make([]bool, len(ends))
			order = append(order, r)
		}
		for i, d := range dom {
			covered[r][i] = covered[r][i] || d
		}
	}
	// The acquires and releases on each site: whether the body is entered holding what it
	// releases (a release comes before every acquire), and leaves it released (after the
	// last acquire that reaches an end, a release comes before it).
	type event struct {
		acquire bool
		name    string
		c       callInfo
		dom     []bool
		defers  bool // a deferred release: it runs after whatever the body does
	}
	events := map[site][]event{}
	var assigned map[types.Object]bool
	// at returns the parameter and field path e is rooted at, unless the body assigns the
	// parameter (c = nopCloser{}; c.Close() closes another value) or the path names a copy
	// of the caller's (a value receiver's own mutex).
	at := func(e ast.Expr) (site, bool) {
		root, path, ok := fieldPath(info, e)
		idx, isParam := params[root]
		if !ok || !isParam || assigned[root] || copied(root.Type(), root.Pkg(), path) {
			return site{}, false
		}
		return site{idx, path}, true
	}
	// Only calls on or with a parameter matter; the filter spares the copy of every other
	// call's ancestors, which is most of the cost of summarizing a package.
	onParam := func(call *ast.CallExpr, fn *types.Func) bool {
		if fn == nil {
			return false
		}
		if r := receiver(info, call); r != nil {
			if _, ok := params[rootObj(info, r)]; ok {
				return true
			}
		}
		for _, arg := range call.Args {
			if _, ok := params[rootObj(info, arg)]; ok {
				return true
			}
		}
		return false
	}
	calls := collectCalls(info, decl.Body, false, func(call *ast.CallExpr, fn *types.Func) bool {
		_, lit := ast.Unparen(call.Fun).(*ast.FuncLit)
		return onParam(call, fn) || lit
	})
	if len(calls) == 0 || hasGoto(decl.Body) {
		return nil // a goto may jump past any release: no summary
	}
	ends = bodyEnds(decl.Body)
	assigned = assignedParams(info, decl.Body, params)
	for i := 0; i < len(calls); i++ {
		c := calls[i]
		if lit, ok := ast.Unparen(c.call.Fun).(*ast.FuncLit); ok && c.inner == nil {
			// A closure deferred with no arguments runs at every return after its defer:
			// defer func() { c.Close() }(). Its calls are read as made where it is deferred.
			if len(c.call.Args) == 0 && len(c.stack) > 0 && isDefer(c.stack[len(c.stack)-1]) {
				for _, in := range collectCalls(info, lit.Body, false, onParam) {
					if unconditional(info, in.stack, lit.Body, in.call) {
						calls = append(calls, callInfo{call: c.call, fn: in.fn, stack: c.stack, inner: in.call})
					}
				}
			}
			continue
		}
		call := c.call
		if c.inner != nil {
			call = c.inner
		}
		dom := dominated(info, c, decl.Body, ends)
		defers := c.inner != nil || (len(c.stack) > 0 && isDefer(c.stack[len(c.stack)-1]))
		// The site a method is called on, through the embedded fields of a promoted one
		// (l.Unlock() on a struct embedding sync.Mutex is on l.Mutex).
		atRecv := func(call *ast.CallExpr) (site, bool) {
			r := receiver(info, call)
			if r == nil {
				return site{}, false
			}
			s, ok := at(r)
			_, names := embeddedPath(info, ast.Unparen(call.Fun).(*ast.SelectorExpr))
			s.path += names
			return s, ok
		}
		if r := receiver(info, call); r != nil {
			if s, ok := atRecv(call); ok {
				name := c.fn.Name()
				if _, acq := matchVerb(name); acq {
					events[s] = append(events[s], event{acquire: true, c: c})
					continue
				}
				if len(call.Args) == 0 && p.isReleaseName(name, funcName(c.fn)) {
					events[s] = append(events[s], event{name: name, c: c, dom: dom, defers: defers})
					record(s, name, dom)
					if c.fn.Pkg() != p.pass.Pkg {
						// Another package's release is the whole of it: what t.mu.Unlock does
						// inside sync.Mutex is no release of t's. A helper of this package
						// named like one (t.parent.unlock()) is read for what it releases.
						continue
					}
				}
			}
		}
		inner := p.wrapper(c.fn)
		if inner == nil {
			continue
		}
		through := func(s site, rels [][2]string) {
			for _, x := range rels {
				sub := site{s.idx, s.path + x[0]}
				events[sub] = append(events[sub], event{name: x[1], c: c, dom: dom, defers: defers})
				record(sub, x[1], dom)
			}
		}
		if s, ok := atRecv(call); ok {
			through(s, inner.fields[-1])
		}
		for j, arg := range call.Args {
			if s, ok := at(arg); ok {
				through(s, inner.fields[j])
			}
		}
	}
	// holds reports whether the body balances s itself, for name, the release it would
	// summarize: it takes s before it first releases it (t.bump()), or may leave it taken
	// (unlock, Gosched, lock). A body entered holding s and left with it released on every
	// path releases it, whatever it takes and releases in between (grpc's
	// resetTransportAndUnlock).
	holds := func(s site, name string) bool {
		var acqs, rels []event
		for _, e := range events[s] {
			switch {
			case e.acquire:
				acqs = append(acqs, e)
			case e.name == name:
				rels = append(rels, e)
			}
		}
		// balancedInBlock reports whether a release follows a in a's own block, on every path
		// through it: for { mu.Lock(); …; mu.Unlock() } leaves nothing held.
		balancedInBlock := func(a event, rels []event) bool {
			for j := len(a.c.stack) - 1; j >= 0; j-- {
				if b, ok := blockish(a.c.stack[j]); ok {
					return slices.ContainsFunc(rels, func(r event) bool {
						return !r.defers && r.c.call.Pos() > a.c.call.Pos() && before(info, r.c, decl.Body, lastPos(b))
					})
				}
			}
			return false
		}
		// Entered holding: every acquire comes after a release of this name on its every
		// path (not t.bump(), nor an RUnlock before a Lock, nor a release under a condition).
		for _, a := range acqs {
			if !slices.ContainsFunc(rels, func(r event) bool {
				return !r.defers && before(info, r.c, decl.Body, a.c.call.Pos())
			}) {
				return true
			}
		}
		// Left released: at each end, a release of this name that comes before it comes after
		// the last acquire that can reach it (unlock, Gosched, lock leaves it held).
		for i, end := range ends {
			pos := end.Pos()
			if end == ast.Node(decl.Body) {
				pos = decl.Body.Rbrace // the fall off the body's end
			}
			last := token.NoPos
			for _, a := range acqs {
				if a.c.call.Pos() < pos && reaches(a.c.stack, pos) && !balancedInBlock(a, rels) {
					last = max(last, a.c.call.Pos())
				}
			}
			if last == token.NoPos {
				continue
			}
			if !slices.ContainsFunc(rels, func(r event) bool {
				return r.dom[i] && (r.defers || r.c.call.Pos() > last)
			}) {
				return true
			}
		}
		return false
	}
	fields := map[int][][2]string{}
	for _, r := range order {
		if slices.Contains(covered[r], false) || holds(r.site, r.name) {
			continue
		}
		prefixTaken := false
		for t, evs := range events {
			// A field of a path the body takes itself (t.inner.lock(); t.inner.finish()).
			if t.idx == r.site.idx && strings.HasPrefix(r.site.path, t.path+".") && slices.ContainsFunc(evs, func(e event) bool { return e.acquire }) {
				prefixTaken = true
			}
		}
		if !prefixTaken {
			fields[r.site.idx] = append(fields[r.site.idx], [2]string{r.site.path, r.name})
		}
	}
	return fields
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
	check := func(idx int, e ast.Expr) bool {
		k, ok := exprKey(info, e)
		if !ok {
			return false
		}
		for _, f := range wi.fields[idx] {
			if !isRel(f[1]) {
				continue
			}
			if rest, ok := resolveFields(info.TypeOf(e), fn.Pkg(), f[0]); ok && k+rest == a.recvKey {
				return true
			}
		}
		return false
	}
	if r := receiver(info, call); r != nil {
		// The receiver's key goes through the embedded fields of a promoted method.
		k, ok := recvKeyOf(info, call)
		for _, f := range wi.fields[-1] {
			if !ok || !isRel(f[1]) {
				continue
			}
			t := fn.Type().(*types.Signature).Recv().Type()
			if rest, ok := resolveFields(t, fn.Pkg(), f[0]); ok && k+rest == a.recvKey {
				return true
			}
		}
	}
	for i, arg := range call.Args {
		if check(i, arg) {
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
	ast.Inspect(body, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			out = append(out, n)
		}
		return true
	})
	if len(body.List) == 0 {
		return append(out, body)
	}
	if _, ok := body.List[len(body.List)-1].(*ast.ReturnStmt); !ok {
		out = append(out, body)
	}
	return out
}

// dominated reports, for each end of body (a return, or the fall off the body), whether
// the call c runs before it on every path that reaches it: c comes earlier (or in the
// return itself) in a block that contains it, with nothing but nil guards between that
// block and c. An end under the nil test of the parameter c is made on (if t == nil {
// return }) has nothing to release, and counts as covered.
func dominated(info *types.Info, c callInfo, body *ast.BlockStmt, ends []ast.Node) []bool {
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
		out[i] = before(info, c, body, pos)
	}
	return out
}

// before reports whether the call c runs before pos on every path that reaches pos: it comes
// earlier in a block that contains pos, with nothing but nil guards between that block and
// c.
func before(info *types.Info, c callInfo, body *ast.BlockStmt, pos token.Pos) bool {
	if c.call.Pos() >= pos {
		return false
	}
	for j := len(c.stack) - 1; j >= 0; j-- {
		if b, ok := blockish(c.stack[j]); ok && b.Pos() <= pos && pos < b.End() {
			return unconditional(info, c.stack, b, c.call)
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
func assignedParams(info *types.Info, body *ast.BlockStmt, params map[types.Object]int) map[types.Object]bool {
	out := map[types.Object]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
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
