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

// state is what the search knows on one path.
type state struct {
	errLive bool                  // a.errObj still holds the acquisition's error
	nilErr  []types.Object        // error variables known nil here
	errSet  []types.Object        // error variables known non-nil here
	stored  []types.Object        // error variables of calls whose result, stored, holds the value (see storedUnder)
	flags   map[types.Object]bool // bool flags assigned a constant on this path
	conds   []condRelease         // deferred conditional releases
	aliases map[types.Object]bool // locals that hold the acquired value, or a closure releasing it
	clos    map[types.Object]bool // locals that hold a closure that releases it
	tested  map[types.Object]bool // steady bool variables and the edge this path took at a test of each
	escaped map[types.Object]bool // flags whose address the path took: unknown from there on
}

// newState returns the state at the start of a search; errLive says whether the
// acquisition's error is live there.
func newState(errLive bool) state {
	return state{errLive: errLive, flags: map[types.Object]bool{}, aliases: map[types.Object]bool{}, clos: map[types.Object]bool{}, tested: map[types.Object]bool{}}
}

func (s state) clone() state {
	c := s
	c.nilErr = slices.Clone(s.nilErr)
	c.errSet = slices.Clone(s.errSet)
	c.stored = slices.Clone(s.stored)
	c.conds = slices.Clone(s.conds)
	c.flags = cloneMap(s.flags)
	c.aliases = cloneMap(s.aliases)
	c.clos = cloneMap(s.clos)
	c.tested = cloneMap(s.tested)
	c.escaped = cloneMap(s.escaped)
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
	for _, l := range [][]types.Object{s.nilErr, s.errSet, s.stored} {
		for _, o := range l {
			fmt.Fprintf(&b, "%p,", o)
		}
		b.WriteByte('|')
	}
	for _, m := range []map[types.Object]bool{s.flags, s.aliases, s.clos, s.tested, s.escaped} {
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
	p      *pkgChecker
	a      *acquisition
	sig    *types.Signature
	g      *cfg.CFG
	body   *ast.BlockStmt
	fnNode ast.Node
	rels   map[*ast.CallExpr]bool
	seen   map[*cfg.Block]map[string]bool
	// releasedLoop is the loop of a deferred closure guardOf is asked about, which releases
	// each element of what holds the value (deferredLoops), or nil.
	releasedLoop ast.Node
	// structGiven are the calls given a local struct that holds the value, with an error
	// that decides whether they took it (givesStructHolder).
	structGiven map[*ast.CallExpr]bool
	noReturn    map[ast.Stmt]bool
	reported    map[token.Pos]bool
	leaks       []leak
	caseTag     map[ast.Expr]ast.Expr // a case value of a switch with a tag → the tag
	sure        map[types.Object]bool // ok variables of assertions that cannot fail (sureAssertion)
	handed      bool                  // some path hands the resource on
	flagCache   map[types.Object]bool
	vars        *boolVars // the function's bool variables (correlated.go)
	// comms are the sends of select cases (commSends).
	comms map[*ast.SendStmt]bool
	// litResults are the results of each literal's own returns (litReturnsValue).
	litResults map[*ast.FuncLit][]ast.Expr
	// typeSwitches maps the guard of each type switch of the body to it (typeSwitchOf).
	typeSwitches map[*ast.AssignStmt]*ast.TypeSwitchStmt
	// holders are the lock's holder and its copies (lockHolders), once holdersDone.
	holders     map[types.Object]bool
	holdersDone bool
	// deferredBefore is set when a statement of the body before the acquisition deferred
	// its release (initialDefers): every return releases it.
	deferredBefore bool
	// guardRuns are the returns where a deferred release under a condition ran, each with
	// whether its error was known non-nil there (holdsOnSuccess).
	guardRuns []guardRun
	// exprVars stand for the stable tests the search met (exprTest), by their text, and
	// exprRoots are the variables each one reads.
	exprVars  map[string]*types.Var
	exprRoots map[types.Object][]types.Object
	// varReleases are the calls of a local that held a release when the path called it
	// (unlock := mu.Unlock; …; unlock()), for holdsOnSuccess.
	varReleases []*ast.CallExpr
}

// A guardRun is a return at which a deferred conditional release ran.
type guardRun struct {
	ret     *ast.ReturnStmt
	failure bool // the return's error is known non-nil on that path
}

// A leak is a return the acquisition can reach unreleased.
type leak struct {
	ret *ast.ReturnStmt // nil: the end of the function body
	pos token.Pos
}

// maxStatesPerBlock bounds the search: a block is searched again only with a state it has
// not seen, at most this many times.
const maxStatesPerBlock = 16

// prepare sets up what the search reads of the function: the releases, the bool variables,
// the switch tags and the calls that never return.
func (w *walker) prepare() {
	w.rels = map[*ast.CallExpr]bool{}
	for _, r := range w.a.releases {
		w.rels[r.call] = true
	}
	w.seen = map[*cfg.Block]map[string]bool{}
	w.vars = w.p.boolVarsOf(w.fnNode, w.body)
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
}

func (w *walker) run() {
	w.prepare()
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
	st := newState(w.a.errObj != nil)
	for _, o := range w.namedBools() {
		st.flags[o] = false // a named result starts as its zero value
	}
	w.initialDefers(&st)
	if w.receiverReassignedAfter() {
		// A closure deferred before the acquisition reads the receiver when it runs: given
		// another value later (r = nil), its release is another receiver's.
		st.conds = nil
	} else if w.deferredBefore && !w.reassignedAfter() {
		return
	}
	w.knownAtAcquisition(&st)
	// A handoff in the acquisition's own statement beyond the call: s.conn, err = Dial().
	w.block(start, idx+1, st)
	sort.Slice(w.leaks, func(i, j int) bool { return w.leaks[i].pos < w.leaks[j].pos })
	before := len(w.leaks)
	w.leaks = w.holdsOnSuccess(w.leaks)
	if c := w.p.collecting; c != nil && w.fnNode == c.fd {
		w.collectHold(c, before, len(w.leaks))
		return // computing a summary: nothing is reported
	}
	for i, l := range w.leaks {
		// The first leaking return carries the fix: the fix is one edit for them all. A
		// lock a callee took is the callee's to place: no fix at its callers.
		w.report(l, i == 0 && w.a.held == nil)
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
	// go/cfg evaluates every case's send of a select before it branches; the value goes
	// only on the path into its own case's body.
	if cc, ok := b.Stmt.(*ast.CommClause); ok && b.Kind == cfg.KindSelectCaseBody && from == 0 {
		if s, ok := cc.Comm.(*ast.SendStmt); ok {
			if v := w.send(s, &st); v != goOn {
				w.handed = w.handed || v == handedOn
				return
			}
		}
	}
	if l, ok := b.Stmt.(*ast.ForStmt); ok && b.Kind == cfg.KindForLoop && from == 0 {
		if o, _ := loopReleased(w.p.pass.TypesInfo, l, w.a.releaseNamed); o != nil && st.aliases[o] {
			return // for i := len(files) - 1; i >= 0; i-- { files[i].Close() } (rangerelease)
		}
	}
	if rs, ok := b.Stmt.(*ast.RangeStmt); ok && b.Kind == cfg.KindRangeLoop && from == 0 {
		if o := rangeReleased(w.p.pass.TypesInfo, rs, w.a.releaseNamed); o != nil && st.aliases[o] {
			return // for _, f := range files { f.Close() } over files that holds the value (rangerelease)
		}
		w.forgetDeclared(declaredBy(w.p.pass.TypesInfo, rs), &st) // the next iteration's
		for _, e := range []ast.Expr{rs.Key, rs.Value} {
			if id, ok := e.(*ast.Ident); ok { // for _, err = range errs: each round's err
				o := w.p.pass.TypesInfo.ObjectOf(id)
				st.nilErr, st.errSet = remove(st.nilErr, o), remove(st.errSet, o)
			}
		}
	}
	for i := from; i < len(b.Nodes); i++ {
		n := b.Nodes[i]
		w.assignedOnPath(n, &st)
		if ret, ok := n.(*ast.ReturnStmt); ok {
			if v := w.nodeStep(ret, &st); v != goOn {
				w.handed = w.handed || v == handedOn
				return
			}
			w.atReturn(ret, st)
			return
		}
		if v := w.nodeStep(n, &st); v != goOn {
			w.handed = w.handed || v == handedOn
			return
		}
	}
	switch len(b.Succs) {
	case 0:
		if w.selectEnd(b) {
			return
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
	if m[k] {
		return
	}
	if len(m) >= maxStatesPerBlock {
		// Over the bound, a path goes on without what it knows of tracked variables
		// rather than not at all: each test it recorded multiplies the states, and a
		// return only the last of them reaches must still be searched.
		if len(st.tested) == 0 || len(m) >= 2*maxStatesPerBlock {
			return
		}
		st = st.clone()
		st.tested = map[types.Object]bool{}
		if k = st.key(); m[k] {
			return
		}
	}
	m[k] = true
	w.block(b, 0, st)
}

// send applies ch <- v to st: sending the value, or a lock's holder, hands it on.
func (w *walker) send(s *ast.SendStmt, st *state) step {
	if w.holds(s.Value, st) || w.storesLockHolder(s.Value, false) {
		return handedOn
	}
	return goOn
}

// commSends returns the sends that are the communication of a select case. Computed once.
func (w *walker) commSends() map[*ast.SendStmt]bool {
	if w.comms == nil {
		w.comms = map[*ast.SendStmt]bool{}
		ast.Inspect(w.body, func(n ast.Node) bool {
			if cc, ok := n.(*ast.CommClause); ok {
				if s, ok := cc.Comm.(*ast.SendStmt); ok {
					w.comms[s] = true
				}
			}
			return true
		})
	}
	return w.comms
}

// nodeStep applies one CFG node to st.
func (w *walker) nodeStep(n ast.Node, st *state) step {
	if w.loopInstance(n) {
		return stopped
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
		if lit, ok := ast.Unparen(s.Call.Fun).(*ast.FuncLit); ok && w.releasesWhenRun(lit) {
			return handedOn // go func() { defer s.sem.Release(); … }(): the goroutine releases it
		}
		for _, arg := range s.Call.Args {
			if lit, ok := ast.Unparen(arg).(*ast.FuncLit); ok && w.releasesWhenRun(lit) {
				return handedOn // go withRecover(func() { defer b.lock.Unlock(); … }) (sarama's broker)
			}
		}
		return goOn
	case *ast.SendStmt:
		if w.commSends()[s] {
			return goOn // a select case's send: sent only on its case's path (block)
		}
		return w.send(s, st)
	case *ast.AssignStmt:
		if ts := w.typeSwitchOf(s); ts != nil {
			w.typeSwitchAliases(ts, st)
		} else if s == w.a.node {
			if w.reassignsStored(s.Lhs, s.Rhs, st) {
				return handedOn // the acquisition met again around a loop assigns the stored err anew
			}
			for _, l := range s.Lhs { // its err is the next round's, which the path knows nothing of
				if id, ok := l.(*ast.Ident); ok {
					o := w.p.pass.TypesInfo.ObjectOf(id)
					st.nilErr, st.errSet = remove(st.nilErr, o), remove(st.errSet, o)
				}
			}
		} else {
			if v := w.assign(s.Lhs, s.Rhs, st); v != goOn {
				return v
			}
		}
	case *ast.ValueSpec:
		// go/cfg puts each var spec of a declaration in the block on its own: var c
		// io.Closer = f makes c hold f as c = f does.
		if s != w.a.node {
			lhs := make([]ast.Expr, len(s.Names))
			for i, id := range s.Names {
				lhs[i] = id
			}
			if v := w.assign(lhs, s.Values, st); v != goOn {
				return v
			}
		}
	}
	// Calls in the node: a release, a closure that releases, a call that never returns, a
	// cleanup closure handed to someone (t.Cleanup(func() { f.Close() })).
	verdict := goOn
	// The literal of func() T { … }(), which the node calls itself, and one stored in a local
	// (get := func() net.Conn { return conn }), which holds the value for the path as an alias
	// would: neither hands it on where it is written.
	called := storedLit(w.p.pass.TypesInfo, n, w.body)
	ast.Inspect(n, func(x ast.Node) bool {
		if verdict != goOn {
			return false
		}
		switch x := x.(type) {
		case *ast.FuncLit:
			if x != called && w.litReturnsValue(x, st) {
				verdict = handedOn // DialContext: func(…) (net.Conn, error) { return conn, nil }
			}
			return false
		case *ast.CallExpr:
			verdict = w.callStep(x, st)
			called, _ = ast.Unparen(x.Fun).(*ast.FuncLit)
		}
		return verdict == goOn
	})
	if verdict == goOn && w.unsettledStructHolder(n, st) {
		return handedOn // tp.Run(), return tp.Run(): whether it took the value is not tested (structholder)
	}
	return verdict
}

// typeSwitchOf returns the type switch whose guard s is (switch c := conn.(type)), or nil.
func (w *walker) typeSwitchOf(s *ast.AssignStmt) *ast.TypeSwitchStmt {
	if w.typeSwitches == nil {
		w.typeSwitches = map[*ast.AssignStmt]*ast.TypeSwitchStmt{}
		ast.Inspect(w.body, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSwitchStmt); ok {
				if as, ok := ts.Assign.(*ast.AssignStmt); ok {
					w.typeSwitches[as] = ts
				}
			}
			return true
		})
	}
	return w.typeSwitches[s]
}

// typeSwitchAliases makes each clause's variable of ts an alias when the switch is on the
// value: in switch c := conn.(type) { case *tls.Conn: defer c.Close() }, c is conn.
func (w *walker) typeSwitchAliases(ts *ast.TypeSwitchStmt, st *state) {
	as := ts.Assign.(*ast.AssignStmt)
	if len(as.Rhs) != 1 || !w.holds(as.Rhs[0], st) {
		return
	}
	for _, c := range ts.Body.List {
		if o := w.p.pass.TypesInfo.Implicits[c]; o != nil {
			st.aliases[o] = true
		}
	}
}

// storedLit returns the function literal n, an assignment or a var spec, stores in a local
// of body, or nil.
func storedLit(info *types.Info, n ast.Node, body *ast.BlockStmt) *ast.FuncLit {
	var lhs []types.Object
	var rhs []ast.Expr
	switch n := n.(type) {
	case *ast.AssignStmt:
		for _, l := range n.Lhs {
			var o types.Object
			if id, ok := ast.Unparen(l).(*ast.Ident); ok {
				o = info.ObjectOf(id)
			} else {
				o = localStructField(info, l, body) // options.OpenFile = func…: options holds it
			}
			lhs = append(lhs, o)
		}
		rhs = n.Rhs
	case *ast.ValueSpec:
		for _, id := range n.Names {
			lhs = append(lhs, info.ObjectOf(id))
		}
		rhs = n.Values
	}
	if len(lhs) != len(rhs) {
		return nil
	}
	for i, o := range lhs {
		lit, ok := ast.Unparen(rhs[i]).(*ast.FuncLit)
		if ok && o != nil && isLocal(o, body) {
			return lit
		}
	}
	return nil
}

// callStep is the verdict of one call on the path (nodeStep).
func (w *walker) callStep(x *ast.CallExpr, st *state) step {
	info := w.p.pass.TypesInfo
	held := func(e ast.Expr) bool { // a local that holds a release: cleanup
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && info.Uses[id] != nil && st.clos[info.Uses[id]]
	}
	maker, _ := ast.Unparen(x.Fun).(*ast.CallExpr)
	switch lit, isLit := ast.Unparen(x.Fun).(*ast.FuncLit); {
	case w.rels[x], w.aliasRelease(x, st): // output.Close() after output = f
		return released
	case maker != nil && w.p.madeRelease(w.a, maker): // closeLater(f)()
		return released
	case isLit && w.calledLitReleases(lit, st):
		return released // func() { release }(), func() { if … { release } else { release } }()
	case held(x.Fun):
		w.varReleases = append(w.varReleases, x)
		return released // cleanup()
	case w.rangeReleases(x, st):
		return released // closeFiles(files) over files that holds the value (rangerelease)
	case w.flagSettledRelease(x, st):
		return released // reject(err) for reject := func(…) { if held { q.unhold(id) } }, held true
	}
	if w.structGiven[x] {
		return goOn // tmpdb, err := bolt.Open(p, 0o600, &options): taken where err may be nil (structholder)
	}
	if _, key, ok := onceDo(info, x); ok {
		// once.Do(func() { f.Close() }) runs the release now, or ran another Do's before;
		// a once also given something else may release nothing.
		if w.onceReleases(key, st) {
			return released
		}
		return goOn
	}
	for _, arg := range x.Args {
		if lit, ok := ast.Unparen(arg).(*ast.FuncLit); ok && w.litReleases(lit) != nil {
			return handedOn // t.Cleanup(func() { f.Close() })
		}
		if w.releaseMethodValue(arg, st) || held(arg) || w.compositeHandOff(x, arg, st) {
			return handedOn // s.Defer("address/x", l.Release), t.Cleanup(f.Close), t.Cleanup(cleanup)
		}
	}
	if w.keptByCallee(x, st) {
		return handedOn // pprof.StartCPUProfile(f), whose goroutine writes f
	}
	if neverReturns(info, x) {
		return stopped
	}
	return goOn
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

// storedUnder reports whether a result that holds the value was stored where it outlives
// the function (t.out, err = newSniffer(fd)) on this path, with an error that the path does
// not know to be non-nil: the store kept the value, handed on. Where the error is known
// non-nil (if err != nil { return err }) the result is the zero value a failing call
// returns, and the store kept nothing.
func (w *walker) storedUnder(st *state) bool {
	return slices.ContainsFunc(st.stored, func(o types.Object) bool { return !slices.Contains(st.errSet, o) })
}

// atReturn decides whether the path ending at ret (nil: the end of the body) leaks.
func (w *walker) atReturn(ret *ast.ReturnStmt, st state) {
	if w.a.valueErrOnly && !w.valueWithError(ret, &st) {
		return
	}
	if w.storedUnder(&st) {
		w.handed = true
		return
	}
	errRet := w.errorCarrying(ret, &st)
	// A value returned with an error that may be nil is handed on (the caller gets it when
	// the error is nil); with an error that is non-nil here, it is not.
	if ret != nil && (!errRet || !w.valueWithError(ret, &st)) {
		for _, r := range ret.Results {
			if w.holds(r, &st) || w.lockOnArgument() && w.storesLockHolder(r, false) {
				w.handed = true
				return // handed on to the caller, or the lock with its holder: return &dirLock{f: f}
			}
		}
	}
	if ret != nil && len(ret.Results) == 0 && !errRet {
		// A bare return hands on the named results that hold the value.
		res := w.sig.Results()
		for i := 0; i < res.Len(); i++ {
			if o := res.At(i); w.a.values[o] || st.aliases[o] || st.clos[o] {
				w.handed = true
				return
			}
		}
	}
	evident := errRet && w.errorEvident(ret, &st)
	w.returnSetsFlags(ret, &st)
	// The broader tier reports a rollback at every error return, evident or not.
	need := w.a.kind == scoped && !w.a.receiverState || evident || (errRet && w.broad())
	if !need {
		return
	}
	if !w.broad() && w.diesWithProcess() && (evident && w.callerExits() || w.commandEnds()) {
		return // the process ends at once, and what it holds with it
	}
	if w.deferGuardRuns(ret, &st, errRet) {
		if w.okGuardRuns(ret, &st, errRet) {
			w.guardRuns = append(w.guardRuns, guardRun{ret: ret, failure: evident})
		}
		return
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
		// The release itself, not a holder's method that also ends it (body.Close(),
		// pgConn.asyncClose()), when the function makes one.
		i := max(0, slices.IndexFunc(w.a.releases, func(r *releaseCall) bool { return !r.viaHolder }))
		r := w.a.releases[i]
		return w.a.outerText(w.p.pass.TypesInfo, r), r
	}
	r := w.a.pair.releases[0]
	short := r[strings.LastIndex(r, "/")+1:]
	if parts := strings.Split(short, "."); len(parts) == 3 {
		// A method: name it on the acquired value when there is one, "f.Close".
		// The first, in declaration order, whose type has the method: the same on every run.
		for _, o := range sortedObjs(w.a.values) {
			if m, _, _ := types.LookupFieldOrMethod(o.Type(), true, o.Pkg(), parts[2]); m != nil {
				return o.Name() + "." + parts[2], nil
			}
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
	}
	// Two locks a call returns holding (r.startWriting()) and one release that ends both
	// (r.stopWriting()) make one finding, not two.
	said := fmt.Sprint(d.Pos, d.Message)
	if w.p.said[said] {
		return
	}
	if w.p.said == nil {
		w.p.said = map[string]bool{}
	}
	w.p.said[said] = true
	if !w.p.cfg.golangci {
		d.Related = append(d.Related, analysis.RelatedInformation{
			Pos: w.a.call.Pos(), End: w.a.call.End(),
			Message: fmt.Sprintf("%s acquires it here", types.ExprString(w.a.call.Fun)),
		})
	}
	if rc != nil && !w.p.cfg.golangci {
		d.Related = append(d.Related, analysis.RelatedInformation{
			Pos: rc.call.Pos(), End: rc.call.End(),
			Message: fmt.Sprintf("%s releases it here, on another path", rc.text),
		})
	}
	if om := w.a.otherMode; om != nil && !w.p.cfg.golangci {
		d.Related = append(d.Related, analysis.RelatedInformation{
			Pos: om.Pos(), End: om.End(),
			Message: fmt.Sprintf("%s does not release %s", types.ExprString(om.Fun), w.a.name),
		})
	}
	if fix, ok := w.fix(); withFix && ok {
		d.SuggestedFixes = []analysis.SuggestedFix{fix}
	}
	w.p.pass.Report(d)
}

// broad reports whether the broader tier is on.
func (w *walker) broad() bool { return w.p.cfg != nil && w.p.cfg.broad }
