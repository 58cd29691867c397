package releasepath

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/cfg"
	"golang.org/x/tools/go/types/typeutil"
)

func typeInfoCallee(info *types.Info, call *ast.CallExpr) (*types.Func, bool) {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	return fn, ok
}

// A condRelease is a deferred release that runs only under a condition: while a flag has a
// value (defer func() { if !ok { release } }()) or while an error is non-nil.
type condRelease struct {
	flag     types.Object // the bool flag, or nil
	when     bool         // the flag's value for which the release runs
	errVar   types.Object // the error, or nil
	namedErr bool         // errVar is a named result: every error return sets it
}

// state is what the search knows on one path.
type state struct {
	errLive bool                  // a.errObj still holds the acquisition's error
	nilErr  []types.Object        // error variables known nil here
	errSet  []types.Object        // error variables known non-nil here
	flags   map[types.Object]bool // bool flags assigned a constant on this path
	conds   []condRelease         // deferred conditional releases
	aliases map[types.Object]bool // locals that hold the acquired value, or a closure releasing it
	clos    map[types.Object]bool // locals that hold a closure that releases it
}

func (s state) clone() state {
	c := s
	c.nilErr = slices.Clone(s.nilErr)
	c.errSet = slices.Clone(s.errSet)
	c.conds = slices.Clone(s.conds)
	c.flags = cloneMap(s.flags)
	c.aliases = cloneMap(s.aliases)
	c.clos = cloneMap(s.clos)
	return c
}

func cloneMap(m map[types.Object]bool) map[types.Object]bool {
	c := make(map[types.Object]bool, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func (s *state) key() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v|", s.errLive)
	for _, l := range [][]types.Object{s.nilErr, s.errSet} {
		for _, o := range l {
			fmt.Fprintf(&b, "%p,", o)
		}
		b.WriteByte('|')
	}
	for _, m := range []map[types.Object]bool{s.flags, s.aliases, s.clos} {
		ks := make([]string, 0, len(m))
		for o, v := range m {
			ks = append(ks, fmt.Sprintf("%p=%v", o, v))
		}
		sort.Strings(ks)
		b.WriteString(strings.Join(ks, ","))
		b.WriteByte('|')
	}
	fmt.Fprintf(&b, "%d", len(s.conds))
	return b.String()
}

func remove(l []types.Object, o types.Object) []types.Object {
	return slices.DeleteFunc(l, func(x types.Object) bool { return x == o })
}

// walker searches the CFG of one function for the returns one acquisition can reach
// unreleased.
type walker struct {
	p        *pkgChecker
	a        *acquisition
	sig      *types.Signature
	g        *cfg.CFG
	body     *ast.BlockStmt
	fnNode   ast.Node
	rels     map[*ast.CallExpr]bool
	seen     map[*cfg.Block]map[string]bool
	noReturn map[ast.Stmt]bool
	reported map[token.Pos]bool
	leaks    []leak
	caseTag  map[ast.Expr]ast.Expr // a case value of a switch with a tag → the tag
}

// A leak is a return the acquisition can reach unreleased.
type leak struct {
	ret *ast.ReturnStmt // nil: the end of the function body
	pos token.Pos
}

// maxStatesPerBlock bounds the search: a block is searched again only with a state it has
// not seen, at most this many times.
const maxStatesPerBlock = 16

func (w *walker) run() {
	w.rels = map[*ast.CallExpr]bool{}
	for _, r := range w.a.releases {
		w.rels[r.call] = true
	}
	w.seen = map[*cfg.Block]map[string]bool{}
	w.caseTag = map[ast.Expr]ast.Expr{}
	ast.Inspect(w.body, func(n ast.Node) bool {
		if sw, ok := n.(*ast.SwitchStmt); ok && sw.Tag != nil {
			for _, c := range sw.Body.List {
				for _, e := range c.(*ast.CaseClause).List {
					w.caseTag[e] = sw.Tag
				}
			}
		}
		return true
	})
	w.noReturn = map[ast.Stmt]bool{}
	for _, b := range w.g.Blocks {
		if b.Kind == cfg.KindUnreachable && b.Stmt != nil {
			if _, ok := b.Stmt.(*ast.ExprStmt); ok {
				w.noReturn[b.Stmt] = true // ctrlflow cut the block after a call that never returns
			}
		}
	}
	// Find the block and node that hold the acquisition.
	var start *cfg.Block
	idx := -1
	for _, b := range w.g.Blocks {
		if !b.Live {
			continue
		}
		for i, n := range b.Nodes {
			if within(n, w.a.call) {
				start, idx = b, i
				break
			}
		}
		if start != nil {
			break
		}
	}
	if start == nil {
		return // unreachable acquisition
	}
	st := state{errLive: w.a.errObj != nil, flags: map[types.Object]bool{}, aliases: map[types.Object]bool{}, clos: map[types.Object]bool{}}
	w.initialDefers(&st)
	// A handoff in the acquisition's own statement beyond the call: s.conn, err = Dial().
	w.block(start, idx+1, st)
	sort.Slice(w.leaks, func(i, j int) bool { return w.leaks[i].pos < w.leaks[j].pos })
	for i, l := range w.leaks {
		// The first leaking return carries the fix: the fix is one edit for them all.
		w.report(l, i == 0)
	}
}

// initialDefers records the deferred conditional releases placed before the acquisition
// (var ok bool; defer func() { if !ok { release } }(); acquire), and the constant values of
// flags declared before it.
func (w *walker) initialDefers(st *state) {
	info := w.p.pass.TypesInfo
	ast.Inspect(w.body, func(n ast.Node) bool {
		if n == nil || n.Pos() >= w.a.call.Pos() {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.DeferStmt:
			w.deferred(n, st)
			return false
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				if i < len(n.Rhs) && len(n.Lhs) == len(n.Rhs) {
					w.setFlag(info, l, n.Rhs[i], st)
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if o, ok := info.Defs[id].(*types.Var); ok && isBool(o.Type()) {
					if i < len(n.Values) {
						w.setFlag(info, id, n.Values[i], st)
					} else if len(n.Values) == 0 {
						st.flags[o] = false
					}
				}
			}
		}
		return true
	})
}

func isBool(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Kind() == types.Bool
}

func (w *walker) setFlag(info *types.Info, lhs, rhs ast.Expr, st *state) {
	id, ok := ast.Unparen(lhs).(*ast.Ident)
	if !ok {
		return
	}
	o := info.ObjectOf(id)
	if o == nil || !isBool(o.Type()) {
		return
	}
	if c, ok := info.Types[rhs]; ok && c.Value != nil {
		st.flags[o] = c.Value.String() == "true"
	} else {
		delete(st.flags, o)
	}
}

// step is the verdict of one node on the path.
type step uint8

const (
	goOn     step = iota
	released      // released, or a release deferred unconditionally
	handedOn      // ownership handed on
	stopped       // the path ends without returning (a call that never returns) or loops
)

func (w *walker) block(b *cfg.Block, from int, st state) {
	for i := from; i < len(b.Nodes); i++ {
		n := b.Nodes[i]
		if ret, ok := n.(*ast.ReturnStmt); ok {
			if w.nodeStep(ret, &st) != goOn {
				return
			}
			w.atReturn(ret, st)
			return
		}
		if w.nodeStep(n, &st) != goOn {
			return
		}
	}
	switch len(b.Succs) {
	case 0:
		if !b.Live {
			return // the end of a function that never gets there (for {} without a break)
		}
		if b.Kind == cfg.KindSelectAfterCase {
			// The dangling edge after the last case of a select without default: "no case
			// was chosen", which cannot happen (the select waits), so not a function end.
			return
		}
		if len(b.Nodes) > 0 {
			if s, ok := b.Nodes[len(b.Nodes)-1].(ast.Stmt); ok && w.noReturn[s] {
				return
			}
		}
		w.atReturn(nil, st)
	case 2:
		if cond, ok := lastExpr(b); ok {
			if tag, ok := w.caseTag[cond]; ok {
				// switch err { case nil: … case errNotFound: … }: the edge of tag == value.
				cond = &ast.BinaryExpr{X: tag, Op: token.EQL, Y: cond, OpPos: cond.Pos()}
			}
			for j, succ := range b.Succs {
				s2 := st.clone()
				if w.prune(cond, j == 0, &s2) {
					continue
				}
				w.visit(succ, s2)
			}
			return
		}
		fallthrough
	default:
		for _, succ := range b.Succs {
			w.visit(succ, st.clone())
		}
	}
}

func lastExpr(b *cfg.Block) (ast.Expr, bool) {
	if len(b.Nodes) == 0 {
		return nil, false
	}
	e, ok := b.Nodes[len(b.Nodes)-1].(ast.Expr)
	return e, ok
}

func (w *walker) visit(b *cfg.Block, st state) {
	k := st.key()
	m := w.seen[b]
	if m == nil {
		m = map[string]bool{}
		w.seen[b] = m
	}
	if m[k] || len(m) >= maxStatesPerBlock {
		return
	}
	m[k] = true
	w.block(b, 0, st)
}

// prune applies the condition cond on its true (or false) edge to st and reports whether the
// edge leaves the search: the acquisition's own failure branch, or the nil or false edge of
// a guard on its handle.
func (w *walker) prune(cond ast.Expr, edge bool, st *state) bool {
	info := w.p.pass.TypesInfo
	cond = ast.Unparen(cond)
	if cond == w.a.call {
		return !edge // if mu.TryLock() { … }: the false edge acquired nothing
	}
	switch c := cond.(type) {
	case *ast.UnaryExpr:
		if c.Op == token.NOT {
			return w.prune(c.X, !edge, st)
		}
	case *ast.Ident:
		if o := info.ObjectOf(c); o != nil && w.a.guards[o] && isBool(o.Type()) {
			return !edge // if owned { … }: the false edge acquired nothing
		}
	case *ast.BinaryExpr:
		if c.Op != token.EQL && c.Op != token.NEQ {
			return false
		}
		x := c.X
		if isNilIdent(info, x) {
			x = c.Y
		} else if !isNilIdent(info, c.Y) {
			// err == errNotFound (or a case errNotFound of switch err): on the true edge
			// the acquisition's error equals a sentinel, so it failed.
			if id, ok := ast.Unparen(c.X).(*ast.Ident); ok && (c.Op == token.EQL) == edge {
				if o := info.ObjectOf(id); o != nil && o == w.a.errObj && st.errLive {
					if t := info.TypeOf(c.Y); t != nil && isError(t) {
						return true
					}
				}
			}
			return false
		}
		isNonNil := (c.Op == token.NEQ) == edge // on this edge, x != nil
		x = ast.Unparen(x)
		if id, ok := x.(*ast.Ident); ok {
			o := info.ObjectOf(id)
			if o == nil {
				return false
			}
			if o == w.a.errObj && st.errLive {
				if isNonNil {
					return true // the acquisition failed: nothing to release
				}
				st.nilErr = append(remove(st.nilErr, o), o)
				return false
			}
			if w.a.guards[o] && !isNonNil {
				return true // if addrMgr != nil { … }: the nil edge holds nothing
			}
			if t := o.Type(); isError(t) {
				if isNonNil {
					st.errSet = append(remove(st.errSet, o), o)
					st.nilErr = remove(st.nilErr, o)
				} else {
					st.nilErr = append(remove(st.nilErr, o), o)
					st.errSet = remove(st.errSet, o)
				}
			}
			return false
		}
		// ignoreNotFound(err) != nil: a function of the acquisition's error.
		if call, ok := x.(*ast.CallExpr); ok && w.callOfErr(call, st) && isNonNil {
			return true
		}
	case *ast.CallExpr:
		// errors.Is(err, ErrX), apierrors.IsNotFound(err): true only when err is non-nil.
		if edge && w.callOfErr(c, st) {
			if t := info.TypeOf(c); t != nil && isBool(t) {
				return true
			}
		}
	}
	return false
}

// callOfErr reports whether call takes the acquisition's error, still live, as an argument.
func (w *walker) callOfErr(call *ast.CallExpr, st *state) bool {
	if !st.errLive || w.a.errObj == nil {
		return false
	}
	info := w.p.pass.TypesInfo
	for _, arg := range call.Args {
		if id, ok := ast.Unparen(arg).(*ast.Ident); ok && info.ObjectOf(id) == w.a.errObj {
			return true
		}
	}
	return false
}

// holds reports whether e is (or is built from) the acquired value on this path.
func (w *walker) holds(e ast.Expr, st *state) bool {
	info := w.p.pass.TypesInfo
	found := false
	var visit func(e ast.Expr)
	visit = func(e ast.Expr) {
		if found || e == nil {
			return
		}
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			if o := info.ObjectOf(x); o != nil && (w.a.values[o] || st.aliases[o] || st.clos[o]) {
				found = true
			}
		case *ast.UnaryExpr:
			if x.Op == token.AND {
				visit(x.X)
			}
		case *ast.StarExpr:
			visit(x.X)
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
		case *ast.CallExpr:
			// A constructor or conversion that wraps the value (newConn(c), append(s, v)),
			// but not a method of the value itself (f.Name()), nor a call whose result
			// cannot hold it (err = fsync(f) returns an error, not f).
			if t := info.TypeOf(x); t == nil || isError(t) || isBasic(t) {
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

// releaseMethodValue reports whether e is a method value of the release on the acquired
// value (l.Release, f.Close), a closure that releases it when called.
func (w *walker) releaseMethodValue(e ast.Expr, st *state) bool {
	info := w.p.pass.TypesInfo
	sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	s, ok := info.Selections[sel]
	if !ok || s.Kind() != types.MethodVal {
		return false
	}
	fn, ok := s.Obj().(*types.Func)
	if !ok {
		return false
	}
	o := rootObj(info, sel.X)
	if o == nil || !(w.a.values[o] || st.aliases[o]) {
		return false
	}
	if w.a.pair != nil {
		return slices.Contains(w.a.pair.releases, funcName(fn))
	}
	return slices.Contains(w.a.verb.releases, fn.Name()) || isReleaseVerbName(fn.Name(), w.a.verb.relVerbs)
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

// deferred applies a defer statement to st and reports whether it releases on every path.
func (w *walker) deferred(d *ast.DeferStmt, st *state) bool {
	if w.rels[d.Call] {
		return true
	}
	if id, ok := ast.Unparen(d.Call.Fun).(*ast.Ident); ok {
		if o := w.p.pass.TypesInfo.Uses[id]; o != nil && st.clos[o] {
			return true // defer cleanup()
		}
	}
	lit, ok := ast.Unparen(d.Call.Fun).(*ast.FuncLit)
	if !ok {
		return false
	}
	rels := w.litReleases(lit)
	if len(rels) == 0 {
		return false
	}
	info := w.p.pass.TypesInfo
	for _, r := range rels {
		c, ok := w.guardOf(lit, r)
		if !ok {
			return true // an unconditional release, or one under a nil guard
		}
		st.conds = append(st.conds, c)
		_ = info
	}
	return false
}

// guardOf returns the condition under which the release r in the deferred closure lit
// runs, when it is an ok flag or an error; ok is false when r is unconditional (or guarded
// by something else, such as a nil check on the handle).
func (w *walker) guardOf(lit *ast.FuncLit, r *ast.CallExpr) (condRelease, bool) {
	info := w.p.pass.TypesInfo
	var found condRelease
	ok := false
	var stack []ast.Node
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if n == r {
			for i := len(stack) - 1; i >= 0; i-- {
				ifs, isIf := stack[i].(*ast.IfStmt)
				if !isIf || !(within(ifs.Body, r) || (ifs.Else != nil && within(ifs.Else, r))) {
					continue // not an if, or r is in its init or condition: r runs either way
				}
				inElse := ifs.Else != nil && within(ifs.Else, r)
				if c, good := flagCond(info, ifs.Cond, !inElse); good {
					found, ok = c, true
					return false
				}
			}
			return false
		}
		stack = append(stack, n)
		return true
	})
	if ok && found.errVar != nil {
		found.namedErr = w.isNamedResult(found.errVar)
	}
	return found, ok
}

// flagCond reads "!ok", "ok", "ok == false", "err != nil" as the condition of a release
// (taken when the condition is want).
func flagCond(info *types.Info, cond ast.Expr, want bool) (condRelease, bool) {
	cond = ast.Unparen(cond)
	switch c := cond.(type) {
	case *ast.UnaryExpr:
		if c.Op == token.NOT {
			return flagCond(info, c.X, !want)
		}
	case *ast.Ident:
		if o := info.ObjectOf(c); o != nil && isBool(o.Type()) {
			return condRelease{flag: o, when: want}, true
		}
	case *ast.BinaryExpr:
		if c.Op == token.LAND || c.Op == token.LOR {
			return condRelease{}, false
		}
		x, y := ast.Unparen(c.X), ast.Unparen(c.Y)
		if isNilIdent(info, x) {
			x, y = y, x
		}
		id, ok := x.(*ast.Ident)
		if !ok {
			return condRelease{}, false
		}
		o := info.ObjectOf(id)
		if o == nil {
			return condRelease{}, false
		}
		if isNilIdent(info, y) && isError(o.Type()) && (c.Op == token.NEQ) == want {
			return condRelease{errVar: o}, true
		}
		if isBool(o.Type()) {
			if tv, ok := info.Types[y]; ok && tv.Value != nil {
				v := tv.Value.String() == "true"
				if c.Op == token.NEQ {
					v = !v
				}
				return condRelease{flag: o, when: v == want}, true
			}
		}
	}
	return condRelease{}, false
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

// nodeStep applies one CFG node to st.
func (w *walker) nodeStep(n ast.Node, st *state) step {
	info := w.p.pass.TypesInfo
	if n != w.a.node && within(n, w.a.call) {
		return stopped // around a loop to the acquisition again: a new instance
	}
	switch s := n.(type) {
	case *ast.DeferStmt:
		if w.deferred(s, st) {
			return released
		}
		return goOn
	case *ast.GoStmt:
		if w.rels[s.Call] || w.mentions(s.Call, st) {
			return handedOn // the goroutine owns it now
		}
		return goOn
	case *ast.SendStmt:
		if w.holds(s.Value, st) {
			return handedOn
		}
	case *ast.AssignStmt:
		if s != w.a.node {
			if v := w.assign(s.Lhs, s.Rhs, st); v != goOn {
				return v
			}
		}
	case *ast.DeclStmt:
		if gd, ok := s.Decl.(*ast.GenDecl); ok {
			for _, spec := range gd.Specs {
				if vs, ok := spec.(*ast.ValueSpec); ok && vs != w.a.node {
					lhs := make([]ast.Expr, len(vs.Names))
					for i, id := range vs.Names {
						lhs[i] = id
					}
					if v := w.assign(lhs, vs.Values, st); v != goOn {
						return v
					}
				}
			}
		}
	}
	// Calls in the node: a release, a closure that releases, a call that never returns, a
	// cleanup closure handed to someone (t.Cleanup(func() { f.Close() })).
	verdict := goOn
	ast.Inspect(n, func(x ast.Node) bool {
		if verdict != goOn {
			return false
		}
		switch x := x.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if w.rels[x] {
				verdict = released
				return false
			}
			if lit, ok := ast.Unparen(x.Fun).(*ast.FuncLit); ok {
				if w.litReleases(lit) != nil {
					verdict = released // func() { release }()
					return false
				}
			}
			if id, ok := ast.Unparen(x.Fun).(*ast.Ident); ok {
				if o := info.Uses[id]; o != nil && st.clos[o] {
					verdict = released // cleanup()
					return false
				}
			}
			for _, arg := range x.Args {
				if lit, ok := ast.Unparen(arg).(*ast.FuncLit); ok && w.litReleases(lit) != nil {
					verdict = handedOn // t.Cleanup(func() { f.Close() })
					return false
				}
				if w.releaseMethodValue(arg, st) {
					verdict = handedOn // s.Defer("address/x", l.Release), t.Cleanup(f.Close)
					return false
				}
				if id, ok := ast.Unparen(arg).(*ast.Ident); ok {
					if o := info.Uses[id]; o != nil && st.clos[o] {
						verdict = handedOn // t.Cleanup(cleanup)
						return false
					}
				}
			}
			if neverReturns(info, x) {
				verdict = stopped
				return false
			}
		}
		return true
	})
	return verdict
}

// assign applies lhs = rhs: aliases, handoffs into fields, maps and slices, flag values, and
// the end of the acquisition's error once err is reassigned.
func (w *walker) assign(lhs, rhs []ast.Expr, st *state) step {
	info := w.p.pass.TypesInfo
	for i, l := range lhs {
		var r ast.Expr
		if len(lhs) == len(rhs) {
			r = rhs[i]
		}
		l = ast.Unparen(l)
		id, isIdent := l.(*ast.Ident)
		var o types.Object
		if isIdent {
			o = info.ObjectOf(id)
		}
		if o != nil {
			if o == w.a.errObj {
				st.errLive = false
			}
			st.nilErr = remove(st.nilErr, o)
			st.errSet = remove(st.errSet, o)
			if r != nil {
				w.setFlag(info, l, r, st)
			}
		}
		if r == nil {
			continue
		}
		if lit, ok := ast.Unparen(r).(*ast.FuncLit); ok && w.litReleases(lit) != nil {
			if o != nil && isLocal(o, w.body) {
				st.clos[o] = true
				continue
			}
			return handedOn // a cleanup stored for later
		}
		if w.releaseMethodValue(r, st) {
			if o != nil && isLocal(o, w.body) {
				st.clos[o] = true // cleanup := l.Release
				continue
			}
			return handedOn // h.cleanup = l.Release
		}
		if w.holds(r, st) {
			if o != nil && isLocal(o, w.body) {
				st.aliases[o] = true // v2 := v, s := &server{ln: ln}, list = append(list, v)
				continue
			}
			if isIdent && id.Name == "_" {
				continue
			}
			return handedOn // s.conn = c, m[k] = v, *p = v, a package variable
		}
	}
	return goOn
}

func isLocal(o types.Object, body *ast.BlockStmt) bool {
	return o.Pos() >= body.Pos() && o.Pos() < body.End()
}

// neverReturns reports whether call is one of the calls that end the goroutine or the
// process which ctrlflow cannot prove (klog.Fatal, t.Fatal), or a panic.
func neverReturns(info *types.Info, call *ast.CallExpr) bool {
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
		if b, ok := info.Uses[id].(*types.Builtin); ok && b.Name() == "panic" {
			return true
		}
	}
	fn, _ := typeInfoCallee(info, call)
	if fn == nil || fn.Pkg() == nil {
		return false
	}
	name := fn.Name()
	switch fn.Pkg().Path() {
	case "os", "syscall":
		return name == "Exit"
	case "runtime":
		return name == "Goexit"
	case "log":
		return strings.HasPrefix(name, "Fatal") || strings.HasPrefix(name, "Panic")
	case "k8s.io/klog", "k8s.io/klog/v2":
		return strings.HasPrefix(name, "Fatal") || strings.HasPrefix(name, "Exit")
	case "testing":
		return strings.HasPrefix(name, "Fatal") || name == "FailNow" || strings.HasPrefix(name, "Skip")
	}
	return false
}

// errorCarrying reports whether ret returns a non-nil error on this path, as far as the
// search knows; unknown errors count as non-nil.
func (w *walker) errorCarrying(ret *ast.ReturnStmt, st *state) bool {
	res := w.sig.Results()
	if res.Len() == 0 || !isError(res.At(res.Len()-1).Type()) {
		return false
	}
	info := w.p.pass.TypesInfo
	if ret == nil {
		return false
	}
	if len(ret.Results) == 0 {
		o := res.At(res.Len() - 1)
		return slices.Contains(st.errSet, types.Object(o))
	}
	last := ast.Unparen(ret.Results[len(ret.Results)-1])
	if len(ret.Results) < res.Len() {
		return true // return f(): whatever f returns
	}
	if isNilIdent(info, last) {
		return false
	}
	if id, ok := last.(*ast.Ident); ok {
		o := info.ObjectOf(id)
		if slices.Contains(st.nilErr, o) {
			return false
		}
		if o == w.a.errObj && st.errLive && !slices.Contains(st.errSet, o) {
			return false // the acquisition succeeded on this path, so its err is nil
		}
	}
	return true
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

// atReturn decides whether the path ending at ret (nil: the end of the body) leaks.
func (w *walker) atReturn(ret *ast.ReturnStmt, st state) {
	if w.a.valueErrOnly && !w.valueWithError(ret, &st) {
		return
	}
	errRet := w.errorCarrying(ret, &st)
	// A value returned with an error that may be nil is handed on (the caller gets it when
	// the error is nil); with an error that is non-nil here, it is not.
	if ret != nil && (!errRet || !w.valueWithError(ret, &st)) {
		for _, r := range ret.Results {
			if w.holds(r, &st) {
				return // handed on to the caller
			}
		}
	}
	if ret != nil && len(ret.Results) == 0 && !errRet {
		// A bare return hands on the named results that hold the value.
		res := w.sig.Results()
		for i := 0; i < res.Len(); i++ {
			if o := res.At(i); w.a.values[o] || st.aliases[o] || st.clos[o] {
				return
			}
		}
	}
	need := w.a.kind == scoped || errRet
	if !need {
		return
	}
	for _, c := range st.conds {
		switch {
		case c.flag != nil:
			v, known := st.flags[c.flag]
			if !known || v == c.when {
				return // the deferred release runs
			}
		case c.errVar != nil:
			if c.namedErr && errRet {
				return // the return sets the named err, the deferred release sees it
			}
			if ret != nil && len(ret.Results) > 0 {
				if id, ok := ast.Unparen(ret.Results[len(ret.Results)-1]).(*ast.Ident); ok && w.p.pass.TypesInfo.ObjectOf(id) == c.errVar && errRet {
					return
				}
			}
			if slices.Contains(st.errSet, c.errVar) {
				return
			}
		}
	}
	pos := w.body.Rbrace
	if ret != nil {
		pos = ret.Pos()
	}
	if w.reported[pos] {
		return
	}
	w.reported[pos] = true
	w.leaks = append(w.leaks, leak{ret: ret, pos: pos})
}

// releaseText names the release a leak skips, for the message.
func (w *walker) releaseText() (string, *releaseCall) {
	if w.a.relText != "" {
		return w.a.relText, nil
	}
	if len(w.a.releases) > 0 {
		return w.a.releases[0].text, w.a.releases[0]
	}
	r := w.a.pair.releases[0]
	short := r[strings.LastIndex(r, "/")+1:]
	if parts := strings.Split(short, "."); len(parts) == 3 {
		// A method: name it on the acquired value when there is one, "f.Close".
		for o := range w.a.values {
			return o.Name() + "." + parts[2], nil
		}
		return parts[1] + "." + parts[2], nil
	}
	return short, nil
}

func (w *walker) report(l leak, withFix bool) {
	if w.p.suppressedAt(l.pos) {
		return
	}
	fset := w.p.pass.Fset
	rel, rc := w.releaseText()
	what := "return"
	end := l.pos
	if l.ret != nil {
		end = l.ret.End()
		if fset.File(l.pos) != fset.File(end) {
			end = l.pos
		}
	} else {
		what = "end of function"
		end = l.pos + 1
	}
	d := analysis.Diagnostic{
		Pos:      l.pos,
		End:      end,
		Category: w.a.source,
		Message:  fmt.Sprintf("%s may skip %s (%s at line %d)", what, rel, w.a.name, fset.Position(w.a.call.Pos()).Line),
		Related: []analysis.RelatedInformation{{
			Pos: w.a.call.Pos(), End: w.a.call.End(),
			Message: fmt.Sprintf("%s acquires it here", types.ExprString(w.a.call.Fun)),
		}},
	}
	if rc != nil {
		d.Related = append(d.Related, analysis.RelatedInformation{
			Pos: rc.call.Pos(), End: rc.call.End(),
			Message: fmt.Sprintf("%s releases it here, on another path", rc.text),
		})
	}
	if fix, ok := w.fix(); withFix && ok {
		d.SuggestedFixes = []analysis.SuggestedFix{fix}
	}
	w.p.pass.Report(d)
}
