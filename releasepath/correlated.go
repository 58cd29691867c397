package releasepath

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strings"
)

// correlated prunes the edge of cond that contradicts what the path knows of a tracked bool
// variable, and otherwise records the edge taken: a path that took the true edge of if
// doLock takes it again at the next if doLock, so that if doLock { mu.Lock() } … if doLock {
// mu.Unlock() } is one decision, and a path that set didOpen = true takes the true edge of if
// didOpen { f.Close() }. prune has taken off the negations and split the edges of && and ||
// that settle each term, so cond is one term.
func (w *walker) correlated(cond ast.Expr, edge bool, st *state) bool {
	o, v, ok := w.testOf(cond, edge)
	if !ok {
		return false
	}
	if known, ok := st.tested[o]; ok {
		return known != v
	}
	st.tested[o] = v
	return false
}

// testOf returns the tracked variable cond tests on its own and what the edge says of it:
// its value for a bool (if doLock), whether it is non-nil for anything else (if c != nil,
// if c == nil), which st.tested keeps as the variable's value.
func (w *walker) testOf(cond ast.Expr, edge bool) (types.Object, bool, bool) {
	info := w.p.pass.TypesInfo
	switch c := ast.Unparen(cond).(type) {
	case *ast.Ident:
		if o := info.Uses[c]; o != nil && w.tracked(o) && isBool(o.Type()) {
			return o, edge, true
		}
	case *ast.BinaryExpr:
		if c.Op != token.EQL && c.Op != token.NEQ {
			break
		}
		x, y := ast.Unparen(c.X), ast.Unparen(c.Y)
		if isNilIdent(info, x) {
			x, y = y, x
		}
		id, ok := x.(*ast.Ident)
		if !ok || !isNilIdent(info, y) {
			break
		}
		if o := info.Uses[id]; o != nil && w.tracked(o) && !isBool(o.Type()) {
			return o, (c.Op == token.NEQ) == edge, true
		}
	}
	if o, pos, ok := w.exprTest(cond); ok {
		return o, pos == edge, true
	}
	return nil, false, false
}

// exprTest returns the variable that stands for cond when cond compares, or reads as a
// bool, values the function changes only by declaring them: sub.client != nil, sub.client
// != c, s.enabled, or a bool a range declares (for _, read := range modes). Their roots are
// locals, parameters or the receiver, and the function changes neither them nor what holds
// them (changesOf); a declaration the path meets again (x := … in a loop, the next iteration of
// a range) forgets what the path knew (forgetDeclared). So if sub.client != nil &&
// sub.client != c { sub.client.mu.Lock() } … if sub.client != nil && sub.client != c {
// sub.client.mu.Unlock() } is one decision, as for a bool the function tracks. Calls in
// between are taken not to change the fields read, as a reader does. The variable stands for
// x != y (or the field itself), and pos says whether cond is it or its negation (x == y).
func (w *walker) exprTest(cond ast.Expr) (o types.Object, pos, ok bool) {
	var key string
	var roots []types.Object
	switch c := ast.Unparen(cond).(type) {
	case *ast.SelectorExpr, *ast.Ident: // s.locked, or a range's read
		k, r, ok := w.stableOperand(c)
		if !ok || !isBool(w.p.pass.TypesInfo.TypeOf(c)) {
			return nil, false, false
		}
		key, roots, pos = "bool "+k, r, true
	case *ast.BinaryExpr:
		kx, rx, okx := w.stableOperand(c.X)
		ky, ry, oky := w.stableOperand(c.Y)
		if !okx || !oky || len(rx)+len(ry) == 0 {
			return nil, false, false
		}
		// One variable per comparison and its negation: x != y for ==, x < y for >= and
		// y < x for > and <=, its operands in one order.
		op := c.Op
		if kx > ky {
			kx, ky = ky, kx
			op = map[token.Token]token.Token{token.LSS: token.GTR, token.GTR: token.LSS, token.LEQ: token.GEQ, token.GEQ: token.LEQ, token.EQL: token.EQL, token.NEQ: token.NEQ}[op]
		}
		switch op {
		case token.NEQ, token.EQL:
			key, pos = kx+" != "+ky, op == token.NEQ
		case token.LSS, token.GEQ:
			key, pos = kx+" < "+ky, op == token.LSS
		case token.GTR, token.LEQ:
			key, pos = ky+" < "+kx, op == token.GTR
		default:
			return nil, false, false
		}
		roots = append(rx, ry...)
	default:
		return nil, false, false
	}
	if v, ok := w.exprVars[key]; ok {
		return v, pos, true
	}
	if w.exprVars == nil {
		w.exprVars = map[string]*types.Var{}
		w.exprRoots = map[types.Object][]types.Object{}
	}
	v := types.NewVar(token.NoPos, nil, key, types.Typ[types.Bool])
	w.exprVars[key] = v
	w.exprRoots[v] = roots
	return v, pos, true
}

// stableOperand returns the identity of e, a constant, nil, or a field path of a variable
// declared in the function that it never changes but by declaring it, with that variable.
func (w *walker) stableOperand(e ast.Expr) (string, []types.Object, bool) {
	info := w.p.pass.TypesInfo
	if tv, ok := info.Types[e]; ok && tv.Value != nil {
		return "const " + tv.Value.ExactString(), nil, true // s.mode == modeLocked
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		if isNilIdent(info, x) {
			return "nil", nil, true
		}
		o, ok := info.Uses[x].(*types.Var)
		if !ok || o.Pos() < w.fnNode.Pos() || o.Pos() >= w.fnNode.End() || w.p.changesOf(w.fnNode).changed(valuePath(info, x)) {
			return "", nil, false
		}
		return objID(o), []types.Object{o}, true
	case *ast.SelectorExpr:
		sel, ok := info.Selections[x]
		if !ok || sel.Kind() != types.FieldVal {
			return "", nil, false
		}
		base := ast.Unparen(x.X)
		if star, ok := base.(*ast.StarExpr); ok {
			base = star.X // (*sb).locked is sb.locked
		}
		k, roots, ok := w.stableOperand(base)
		if !ok || len(roots) == 0 || w.p.changesOf(w.fnNode).changed(valuePath(info, x)) {
			return "", nil, false // sub.client = other
		}
		for _, f := range fieldChain(sel) { // s.locked is s.inner.locked when promoted
			k += "." + objID(f)
		}
		return k, roots, true
	case *ast.CallExpr:
		// len(tw.changes), cap(buf): the length of a stable operand is as stable (etcd's
		// if len(tw.changes) != 0 { tw.s.revMu.Lock() } … the same if { Unlock }).
		id, ok := ast.Unparen(x.Fun).(*ast.Ident)
		if b, isBuiltin := info.Uses[id].(*types.Builtin); !ok || !isBuiltin || (b.Name() != "len" && b.Name() != "cap") || len(x.Args) != 1 {
			return "", nil, false
		}
		k, roots, ok := w.stableOperand(x.Args[0])
		if !ok || len(roots) == 0 {
			return "", nil, false
		}
		return id.Name + "(" + k + ")", roots, true
	}
	return "", nil, false
}

// A varChanges says how a function changes its variables other than by declaring them.
type varChanges struct {
	// paths are the access paths (valuePath, joined) the function assigns, increments,
	// takes the address of or calls a pointer method on, and every one a literal assigns:
	// x for x = … and held.clear(), x.f for x.f = … and &x.f, x for x[i] = ….
	paths map[string]bool
	// escaped are the variables whose address is taken (&x, &x.f) or that a literal in the
	// function assigns: the path cannot follow what they hold.
	escaped map[types.Object]bool
}

// changed reports whether the function changes the value at path vp: a change at vp or at
// a path that holds it (x for x.f).
func (c *varChanges) changed(vp []string) bool {
	for i := 1; i <= len(vp); i++ {
		if c.paths[strings.Join(vp[:i], "\x00")] {
			return true
		}
	}
	return false
}

// changesOf returns how the function fnNode changes its variables, computed once.
func (p *pkgChecker) changesOf(fnNode ast.Node) *varChanges {
	if c, ok := p.changed[fnNode]; ok {
		return c
	}
	info := p.pass.TypesInfo
	c := &varChanges{paths: map[string]bool{}, escaped: map[types.Object]bool{}}
	mark := func(e ast.Expr, escapes bool) {
		vp := valuePath(info, e)
		if i := slices.Index(vp, ""); i >= 0 {
			vp = vp[:i] // x[i] = …: some part of x
		}
		if len(vp) > 0 {
			c.paths[strings.Join(vp, "\x00")] = true
		}
		if o := rootObj(info, e); o != nil && escapes {
			c.escaped[o] = true
		}
	}
	inspectInLiterals(fnNode, func(n ast.Node, inLit bool) {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if id, ok := ast.Unparen(l).(*ast.Ident); ok && n.Tok == token.DEFINE && info.Defs[id] != nil {
					continue // declared here (in a literal, the literal's own)
				}
				mark(l, inLit)
			}
		case *ast.RangeStmt:
			if n.Tok == token.ASSIGN {
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if e != nil {
						mark(e, inLit)
					}
				}
			}
		case *ast.IncDecStmt:
			mark(n.X, inLit)
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				mark(n.X, true)
			}
		case *ast.SelectorExpr:
			// held.clear() for a pointer method of a value is (&held).clear().
			if sel, ok := info.Selections[n]; ok && sel.Kind() == types.MethodVal && !sel.Indirect() {
				if sig, ok := sel.Obj().Type().(*types.Signature); ok && sig.Recv() != nil {
					if _, ptr := sig.Recv().Type().(*types.Pointer); ptr {
						if _, isPtr := info.TypeOf(n.X).Underlying().(*types.Pointer); !isPtr {
							mark(n.X, true)
						}
					}
				}
			}
		}
	})
	if p.changed == nil {
		p.changed = map[ast.Node]*varChanges{}
	}
	p.changed[fnNode] = c
	return c
}

// forgetDeclared drops what the path knows of the stable tests (exprTest) whose variables
// objs declares anew: x := … met again in a loop, the next iteration of a range.
func (w *walker) forgetDeclared(objs []types.Object, st *state) {
	if len(w.exprRoots) == 0 || len(objs) == 0 {
		return
	}
	for o := range st.tested {
		if slices.ContainsFunc(w.exprRoots[o], func(r types.Object) bool { return slices.Contains(objs, r) }) {
			delete(st.tested, o)
		}
	}
}

// declaredBy returns the variables n declares: the new names of x := …, of var x = …, and a
// range's key and value, declared again at every iteration.
func declaredBy(info *types.Info, n ast.Node) []types.Object {
	var out []types.Object
	add := func(e ast.Expr) {
		if id, ok := e.(*ast.Ident); ok {
			if o := info.Defs[id]; o != nil {
				out = append(out, o)
			}
		}
	}
	switch n := n.(type) {
	case *ast.AssignStmt:
		if n.Tok == token.DEFINE {
			for _, l := range n.Lhs {
				add(l)
			}
		}
	case *ast.ValueSpec:
		for _, id := range n.Names {
			add(id)
		}
	case *ast.RangeStmt:
		if n.Tok == token.DEFINE {
			add(n.Key)
			add(n.Value)
		}
	}
	return out
}

// settled evaluates cond from what the path knows of tracked variables, and reports whether
// it could: a && b is false once either term is, true once both are.
func (w *walker) settled(cond ast.Expr, st *state) (v, known bool) {
	switch c := ast.Unparen(cond).(type) {
	case *ast.UnaryExpr:
		if c.Op == token.NOT {
			v, known = w.settled(c.X, st)
			return !v, known
		}
	case *ast.BinaryExpr:
		if c.Op != token.LAND && c.Op != token.LOR {
			break // c != nil: a term testOf reads
		}
		x, xk := w.settled(c.X, st)
		y, yk := w.settled(c.Y, st)
		short := c.Op == token.LOR // the value that decides alone: true for ||, false for &&
		switch {
		case (xk && x == short) || (yk && y == short):
			return short, true
		case xk && yk:
			return !short, true
		}
	}
	if o, want, ok := w.testOf(cond, true); ok {
		if v, known := st.tested[o]; known {
			return v == want, true // want: what the variable is where cond is true
		}
	}
	return false, false
}

// knownAtAcquisition records what the tests around the acquisition say of steady
// variables: the acquisition in the body of if a && !b knows a true and b false, in the
// else of if a || b both false. The search starts at the acquisition and never meets them.
// So with an error the path follows (errorFollowed) that nothing assigns between the test
// and the acquisition: the acquisition in the body of if err == nil knows err nil.
func (w *walker) knownAtAcquisition(st *state) {
	path := append(slices.Clone(w.a.stmtStack), ast.Node(w.a.call)) // outermost first
	for i, n := range path[:len(path)-1] {
		ifs, ok := n.(*ast.IfStmt)
		if !ok {
			continue
		}
		switch path[i+1] {
		case ifs.Body:
			w.terms(ifs, ifs.Cond, true, st)
		case ifs.Else:
			w.terms(ifs, ifs.Cond, false, st)
		}
	}
}

// terms records the values of the steady variables, and of the errors, that cond of ifs
// being v settles.
func (w *walker) terms(ifs *ast.IfStmt, cond ast.Expr, v bool, st *state) {
	switch c := ast.Unparen(cond).(type) {
	case *ast.UnaryExpr:
		if c.Op == token.NOT {
			w.terms(ifs, c.X, !v, st)
		}
	case *ast.BinaryExpr:
		if (c.Op == token.LAND && v) || (c.Op == token.LOR && !v) {
			w.terms(ifs, c.X, v, st)
			w.terms(ifs, c.Y, v, st)
		}
	}
	if o, val, ok := w.testOf(cond, v); ok && w.steady(o) {
		st.tested[o] = val
	}
	if o, ok := w.errorTest(cond); ok && !w.assignedWithin(o, ifs.Cond.End(), w.a.call.End()) {
		w.trackErrors(cond, v, st)
	}
}

// errorTest returns the error cond compares with nil (err != nil, err == nil) when the
// search follows every change of it: a local, parameter or result of the function checked,
// whose address is never taken and that no function literal assigns, so that the
// assignments the path meets are all its changes (assignKnown).
func (w *walker) errorTest(cond ast.Expr) (types.Object, bool) {
	info := w.p.pass.TypesInfo
	c, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok || (c.Op != token.EQL && c.Op != token.NEQ) {
		return nil, false
	}
	x := c.X
	if isNilIdent(info, x) {
		x = c.Y
	} else if !isNilIdent(info, c.Y) {
		return nil, false
	}
	id, ok := ast.Unparen(x).(*ast.Ident)
	if !ok {
		return nil, false
	}
	o, ok := info.Uses[id].(*types.Var)
	if !ok || !isError(o.Type()) || o.Pos() < w.fnNode.Pos() || o.Pos() >= w.fnNode.End() || w.p.changesOf(w.fnNode).escaped[o] {
		return nil, false
	}
	return o, true
}

// knownError prunes the edge of an error test (errorTest) that contradicts what the path
// knows of that error: past the true edge of if err == nil, with err unchanged, the true
// edge of if err != nil is not taken. prometheus's convertAndEnqueueNHCB takes a layout in if
// err == nil { … }, gives it back or keeps it in the next if err == nil { … }, and returns at
// if err != nil { return true }: one decision.
func (w *walker) knownError(cond ast.Expr, edge bool, st *state) bool {
	o, ok := w.errorTest(cond)
	if !ok {
		return false
	}
	c := ast.Unparen(cond).(*ast.BinaryExpr)
	nonNil := (c.Op == token.NEQ) == edge // what the edge says of o
	return nonNil && slices.Contains(st.nilErr, o) || !nonNil && slices.Contains(st.errSet, o)
}

// assignedWithin reports whether an assignment to o starts between from and to: o = …, o,
// x := …, or a range over into it.
func (w *walker) assignedWithin(o types.Object, from, to token.Pos) bool {
	info := w.p.pass.TypesInfo
	found := false
	ast.Inspect(w.body, func(n ast.Node) bool {
		if found || n == nil || n.End() < from || n.Pos() > to {
			return false
		}
		var lhs []ast.Expr
		switch n := n.(type) {
		case *ast.AssignStmt:
			lhs = n.Lhs
		case *ast.RangeStmt:
			lhs = []ast.Expr{n.Key, n.Value}
		case *ast.ValueSpec:
			for _, id := range n.Names {
				lhs = append(lhs, id)
			}
		}
		if n.Pos() >= from {
			for _, l := range lhs {
				if id, ok := l.(*ast.Ident); ok && info.ObjectOf(id) == o {
					found = true
				}
			}
		}
		return true
	})
	return found
}

// assignedOnPath updates what the path knows of the tracked variables node n declares or
// assigns: a constant sets the value, anything else forgets it (a path that goes around a
// loop through doLock := … meets another value).
func (w *walker) assignedOnPath(n ast.Node, st *state) {
	w.forgetDeclared(declaredBy(w.p.pass.TypesInfo, n), st)
	w.takenOnPath(n, st)
	if len(w.vars.assigns[n]) == 0 {
		return
	}
	info := w.p.pass.TypesInfo
	set := func(o types.Object, rhs ast.Expr) {
		switch tv, ok := info.Types[rhs]; {
		case ok && tv.Value != nil && tv.Value.Kind() == constant.Bool:
			st.tested[o] = constant.BoolVal(tv.Value)
		case isNilIdent(info, rhs):
			st.tested[o] = false // c = nil: not non-nil
		default:
			delete(st.tested, o)
		}
	}
	switch n := n.(type) {
	case *ast.AssignStmt:
		for i, l := range n.Lhs {
			id, ok := ast.Unparen(l).(*ast.Ident)
			if !ok {
				continue
			}
			o := info.ObjectOf(id)
			if !w.vars.tracked[o] {
				continue
			}
			if len(n.Lhs) == len(n.Rhs) {
				set(o, n.Rhs[i])
			} else {
				delete(st.tested, o) // ok, err := f()
			}
		}
	case *ast.ValueSpec:
		for i, id := range n.Names {
			o := info.Defs[id]
			switch {
			case !w.vars.tracked[o]:
			case len(n.Values) == 0:
				st.tested[o] = false // var ok bool, var c *conn: false, nil
			case len(n.Values) == len(n.Names):
				set(o, n.Values[i])
			default:
				delete(st.tested, o)
			}
		}
	}
}

// boolVars is what correlated needs of one function's bool variables, computed once per
// function for the searches of all its acquisitions.
type boolVars struct {
	// tracked are the variables whose values a search follows, reassigned those assigned
	// after their declaration, and assigns the statements that declare or assign them.
	tracked    map[types.Object]bool
	reassigned map[types.Object]bool
	assigns    map[ast.Node][]types.Object
	// addressed are the expressions &x of the function's bools and nilables, with x: a
	// deferred release's flag is known on a path until the path takes its address.
	addressed map[ast.Node]types.Object
	// flagUntilTaken are the bools untracked only because their address is taken.
	flagUntilTaken map[types.Object]bool
}

// mergeBoolVars returns the bool variables of a function and of a literal in it called
// where it is written: the function's the literal reads, and the literal's own.
func mergeBoolVars(fn, lit *boolVars) *boolVars {
	v := &boolVars{tracked: map[types.Object]bool{}, reassigned: map[types.Object]bool{}, assigns: map[ast.Node][]types.Object{}, addressed: map[ast.Node]types.Object{}, flagUntilTaken: map[types.Object]bool{}}
	for _, from := range []*boolVars{fn, lit} {
		maps.Copy(v.tracked, from.tracked)
		maps.Copy(v.reassigned, from.reassigned)
		maps.Copy(v.assigns, from.assigns)
		maps.Copy(v.addressed, from.addressed)
		maps.Copy(v.flagUntilTaken, from.flagUntilTaken)
	}
	return v
}

// tracked reports whether the search follows the value of o along a path: a bool parameter
// or local of the function whose every change is an assignment or declaration the path
// meets (assignedOnPath), so never address-taken (also by a pointer method), assigned in a
// function literal or a range variable. A closure that assigns it changes it whenever it is
// called.
func (w *walker) tracked(o types.Object) bool { return w.vars.tracked[o] }

// steady reports whether o is tracked and keeps the value it was declared with: only then do
// the tests around the acquisition, which the search never meets, say what it holds there.
func (w *walker) steady(o types.Object) bool {
	if _, ok := w.exprRoots[o]; ok {
		return true // a stable test (exprTest): its variables change only where declared
	}
	return w.vars.tracked[o] && !w.vars.reassigned[o]
}

// boolVarsOf computes boolVars for the function fnNode with body, once.
func (p *pkgChecker) boolVarsOf(fnNode ast.Node, body *ast.BlockStmt) *boolVars {
	if v, ok := p.bools[fnNode]; ok {
		return v
	}
	info := p.pass.TypesInfo
	v := &boolVars{tracked: map[types.Object]bool{}, reassigned: map[types.Object]bool{}, assigns: map[ast.Node][]types.Object{}, addressed: map[ast.Node]types.Object{}, flagUntilTaken: map[types.Object]bool{}}
	// The bools, and what a nil test reads: pointers, maps, slices, channels, funcs and
	// interfaces other than errors, which the error rules follow.
	isBoolVar := func(o types.Object) bool {
		v, ok := o.(*types.Var)
		return ok && (isBool(v.Type()) || nilable(v.Type()))
	}
	for _, id := range signatureNames(fnNode) { // a named result is declared zero
		if o := info.Defs[id]; o != nil && isBoolVar(o) {
			v.tracked[o] = true
		}
	}
	untracked := map[types.Object]bool{}
	taken := map[types.Object]bool{} // address-taken: a flag until the path takes it
	inspectInLiterals(body, func(n ast.Node, inLit bool) {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				id, ok := ast.Unparen(l).(*ast.Ident)
				if !ok {
					continue
				}
				o := info.ObjectOf(id)
				if o == nil || !isBoolVar(o) {
					continue
				}
				switch {
				case inLit:
					untracked[o] = true
				case info.Defs[id] == o:
					v.tracked[o] = true
				default:
					v.reassigned[o] = true
				}
				v.assigns[n] = append(v.assigns[n], o)
			}
		case *ast.ValueSpec:
			for _, id := range n.Names {
				if o := info.Defs[id]; o != nil && isBoolVar(o) && !inLit {
					v.tracked[o] = true
					v.assigns[n] = append(v.assigns[n], o)
				}
			}
		case *ast.UnaryExpr:
			if id, ok := ast.Unparen(n.X).(*ast.Ident); ok && n.Op == token.AND {
				taken[info.ObjectOf(id)] = true
				if o := info.ObjectOf(id); o != nil && isBool(o.Type()) {
					v.addressed[n] = o // a flag's: the path forgets it there (takenOnPath)
				}
			}
		case *ast.SelectorExpr:
			// A method of a named bool type with a pointer receiver takes the address
			// implicitly: held.clear() is (&held).clear(). A pointer's or an interface's
			// method takes nothing of the variable.
			if id, ok := ast.Unparen(n.X).(*ast.Ident); ok {
				if sel, ok := info.Selections[n]; ok && sel.Kind() != types.FieldVal {
					if o := info.ObjectOf(id); o != nil && isBool(o.Type()) {
						taken[o] = true
						v.addressed[n] = o
					}
				}
			}
		case *ast.RangeStmt:
			for _, e := range []ast.Expr{n.Key, n.Value} {
				if id, ok := e.(*ast.Ident); ok {
					untracked[info.ObjectOf(id)] = true
				}
			}
		}
	})
	for o := range taken {
		if v.tracked[o] && !untracked[o] {
			v.flagUntilTaken[o] = true
		}
		delete(v.tracked, o)
	}
	for o := range untracked {
		delete(v.tracked, o)
	}
	if p.bools == nil {
		p.bools = map[ast.Node]*boolVars{}
	}
	p.bools[fnNode] = v
	return v
}

// signatureNames returns the names of the parameters and named results of fnNode, a
// function declaration or literal.
func signatureNames(fnNode ast.Node) []*ast.Ident {
	var ft *ast.FuncType
	switch fn := fnNode.(type) {
	case *ast.FuncDecl:
		ft = fn.Type
	case *ast.FuncLit:
		ft = fn.Type
	default:
		return nil
	}
	var out []*ast.Ident
	for _, fl := range []*ast.FieldList{ft.Params, ft.Results} {
		if fl != nil {
			for _, f := range fl.List {
				out = append(out, f.Names...)
			}
		}
	}
	return out
}

// takenOnPath forgets, for good on this path, the flags whose address n takes (&closed
// passed to a helper that may set it, closed.set() for a pointer method), also in a literal
// n makes, which may run at any time from there: until then the path knows them.
func (w *walker) takenOnPath(n ast.Node, st *state) {
	if len(w.vars.addressed) == 0 {
		return
	}
	ast.Inspect(n, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.UnaryExpr, *ast.SelectorExpr: // &closed, closed.set()
			if o, ok := w.vars.addressed[x]; ok {
				delete(st.flags, o)
				st.escaped = cloneMap(st.escaped)
				st.escaped[o] = true
			}
		}
		return true
	})
}

// inspectInLiterals calls visit for every node under root, with whether it sits in a
// function literal of root (root itself, a literal checked as a function, is not one):
// what a literal does happens whenever it runs.
func inspectInLiterals(root ast.Node, visit func(n ast.Node, inLit bool)) {
	depth := 0
	var walk func(n ast.Node) bool
	walk = func(n ast.Node) bool {
		if n == nil {
			return false
		}
		visit(n, depth > 0)
		if lit, ok := n.(*ast.FuncLit); ok && n != root { // a literal checked as a function is its own body
			depth++
			ast.Inspect(lit.Body, walk)
			depth--
			return false
		}
		return true
	}
	ast.Inspect(root, walk)
}

// nonEmptyHolder reports whether the edge of cond says that a local slice holding the value
// on this path is empty: a slice the path appended the value to (res = append(res, r)) has
// an element, so len(res) == 0 takes its false edge there. cond is one term, as
// [walker.correlated] takes it.
func (w *walker) nonEmptyHolder(cond ast.Expr, edge bool, st *state) bool {
	c, ok := cond.(*ast.BinaryExpr)
	if !ok {
		return false
	}
	info := w.p.pass.TypesInfo
	lenOf := func(e ast.Expr) types.Object {
		call, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			return nil
		}
		if b, ok := info.Uses[calleeIdent(call)].(*types.Builtin); !ok || b.Name() != "len" {
			return nil
		}
		id, ok := ast.Unparen(call.Args[0]).(*ast.Ident)
		if !ok {
			return nil
		}
		o := info.Uses[id]
		if o == nil || !st.aliases[o] || w.a.values[o] || w.p.changesOf(w.fnNode).escaped[o] {
			return nil // drop(&res), res.reset(), func() { res = nil }: emptied where the path cannot see
		}
		if _, ok := o.Type().Underlying().(*types.Slice); !ok {
			return nil
		}
		return o
	}
	op, k := c.Op, c.Y
	if lenOf(c.X) == nil {
		if lenOf(c.Y) == nil {
			return false
		}
		op, k = flipComparison(op), c.X // 0 == len(res) is len(res) == 0
	}
	tv, ok := info.Types[k]
	if !ok || tv.Value == nil {
		return false
	}
	n, exact := constant.Int64Val(constant.ToInt(tv.Value))
	if !exact {
		return false
	}
	// Prune the edge that no length of at least one satisfies (len(res) == 0, len(res) < 1).
	switch op {
	case token.EQL:
		return edge && n < 1
	case token.NEQ:
		return !edge && n < 1
	case token.LSS:
		return edge && n <= 1
	case token.LEQ:
		return edge && n < 1
	case token.GTR:
		return !edge && n < 1
	case token.GEQ:
		return !edge && n <= 1
	}
	return false
}

// flipComparison returns the operator of a comparison with its operands swapped: < for >.
func flipComparison(op token.Token) token.Token {
	switch op {
	case token.LSS:
		return token.GTR
	case token.GTR:
		return token.LSS
	case token.LEQ:
		return token.GEQ
	case token.GEQ:
		return token.LEQ
	}
	return op
}
