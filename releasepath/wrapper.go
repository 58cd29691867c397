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
		// A fact carries the field releases alone (factOf).
		wi.fields = p.fieldReleases(decl, params)
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
	p.wrappers[fn] = wi
	return wi
}

// fieldReleases computes wrapperInfo.fields for decl: the releases it makes, whenever it
// runs, on a parameter or a field path of one, and does not take back. A path the body
// acquires before it releases (t.mu.Lock(); …; t.mu.Unlock()) or after (t.mu.Unlock();
// runtime.Gosched(); t.mu.Lock()) is the body's own to balance; a release under a condition
// (if t.verbose { t.mu.Unlock() }) may not run.
func (p *pkgChecker) fieldReleases(decl *ast.FuncDecl, params map[types.Object]int) map[int][][2]string {
	info := p.pass.TypesInfo
	type site struct {
		idx  int
		path string
	}
	out := map[site][]string{}
	taken := map[site]bool{}
	var order []site
	record := func(s site, name string) {
		for t := range taken {
			// A path the body took, or a field of it (sync.Mutex's own t.mu.mu).
			if t.idx == s.idx && (s.path == t.path || strings.HasPrefix(s.path, t.path+".")) {
				return
			}
		}
		if slices.Contains(out[s], name) {
			return
		}
		if out[s] == nil {
			order = append(order, s)
		}
		out[s] = append(out[s], name)
	}
	// at returns the parameter and field path e is rooted at.
	at := func(e ast.Expr) (site, bool) {
		root, path, ok := fieldPath(info, e)
		idx, isParam := params[root]
		if !ok || !isParam {
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
	for _, c := range collectCalls(info, decl.Body, false, onParam) {
		always := unconditional(info, c.stack, decl.Body, c.call)
		if r := receiver(info, c.call); r != nil {
			if s, ok := at(r); ok {
				name := c.fn.Name()
				if _, acq := matchVerb(name); acq {
					taken[s] = true
					delete(out, s)
					continue
				}
				if always && len(c.call.Args) == 0 && p.isReleaseName(name, funcName(c.fn)) {
					record(s, name)
					if c.fn.Pkg() != p.pass.Pkg {
						// Another package's release is the whole of it: what t.mu.Unlock does
						// inside sync.Mutex is no release of t's. A helper of this package
						// named like one (t.parent.unlock()) is read for what it releases.
						continue
					}
				}
			}
		}
		if !always {
			continue
		}
		inner := p.wrapper(c.fn)
		if inner == nil {
			continue
		}
		if r := receiver(info, c.call); r != nil {
			if s, ok := at(r); ok {
				for _, x := range inner.fields[-1] {
					record(site{s.idx, s.path + x[0]}, x[1])
				}
			}
		}
		for j, arg := range c.call.Args {
			if s, ok := at(arg); ok {
				for _, x := range inner.fields[j] {
					record(site{s.idx, s.path + x[0]}, x[1])
				}
			}
		}
	}
	fields := map[int][][2]string{}
	for _, s := range order {
		for _, name := range out[s] {
			fields[s.idx] = append(fields[s.idx], [2]string{s.path, name})
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
	if r := receiver(info, call); r != nil && check(-1, r) {
		return true
	}
	for i, arg := range call.Args {
		if check(i, arg) {
			return true
		}
	}
	return false
}
