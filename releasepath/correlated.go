package releasepath

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"maps"
	"slices"
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
	return nil, false, false
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
func (w *walker) knownAtAcquisition(st *state) {
	path := append(slices.Clone(w.a.stmtStack), ast.Node(w.a.call)) // outermost first
	for i, n := range path[:len(path)-1] {
		ifs, ok := n.(*ast.IfStmt)
		if !ok {
			continue
		}
		switch path[i+1] {
		case ifs.Body:
			w.terms(ifs.Cond, true, st)
		case ifs.Else:
			w.terms(ifs.Cond, false, st)
		}
	}
}

// terms records the values of the steady variables that cond being v settles.
func (w *walker) terms(cond ast.Expr, v bool, st *state) {
	switch c := ast.Unparen(cond).(type) {
	case *ast.UnaryExpr:
		if c.Op == token.NOT {
			w.terms(c.X, !v, st)
		}
	case *ast.BinaryExpr:
		if (c.Op == token.LAND && v) || (c.Op == token.LOR && !v) {
			w.terms(c.X, v, st)
			w.terms(c.Y, v, st)
		}
	}
	if o, val, ok := w.testOf(cond, v); ok && w.steady(o) {
		st.tested[o] = val
	}
}

// assignedOnPath updates what the path knows of the tracked variables node n declares or
// assigns: a constant sets the value, anything else forgets it (a path that goes around a
// loop through doLock := … meets another value).
func (w *walker) assignedOnPath(n ast.Node, st *state) {
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
}

// mergeBoolVars returns the bool variables of a function and of a literal in it called
// where it is written: the function's the literal reads, and the literal's own.
func mergeBoolVars(fn, lit *boolVars) *boolVars {
	v := &boolVars{tracked: map[types.Object]bool{}, reassigned: map[types.Object]bool{}, assigns: map[ast.Node][]types.Object{}}
	for _, from := range []*boolVars{fn, lit} {
		maps.Copy(v.tracked, from.tracked)
		maps.Copy(v.reassigned, from.reassigned)
		maps.Copy(v.assigns, from.assigns)
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
	return w.vars.tracked[o] && !w.vars.reassigned[o]
}

// boolVarsOf computes boolVars for the function fnNode with body, once.
func (p *pkgChecker) boolVarsOf(fnNode ast.Node, body *ast.BlockStmt) *boolVars {
	if v, ok := p.bools[fnNode]; ok {
		return v
	}
	info := p.pass.TypesInfo
	v := &boolVars{tracked: map[types.Object]bool{}, reassigned: map[types.Object]bool{}, assigns: map[ast.Node][]types.Object{}}
	// The bools, and what a nil test reads: pointers, maps, slices, channels, funcs and
	// interfaces other than errors, which the error rules follow.
	isBoolVar := func(o types.Object) bool {
		v, ok := o.(*types.Var)
		return ok && (isBool(v.Type()) || nilable(v.Type()))
	}
	var params *ast.FieldList
	switch fn := fnNode.(type) {
	case *ast.FuncDecl:
		params = fn.Type.Params
	case *ast.FuncLit:
		params = fn.Type.Params
	}
	if params != nil {
		for _, f := range params.List {
			for _, id := range f.Names {
				if o := info.Defs[id]; o != nil && isBoolVar(o) {
					v.tracked[o] = true
				}
			}
		}
	}
	untracked := map[types.Object]bool{}
	var lits int // depth of function literals
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			lits++
			ast.Inspect(n.Body, visit)
			lits--
			return false
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
				case lits > 0:
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
				if o := info.Defs[id]; o != nil && isBoolVar(o) && lits == 0 {
					v.tracked[o] = true
					v.assigns[n] = append(v.assigns[n], o)
				}
			}
		case *ast.UnaryExpr:
			if id, ok := ast.Unparen(n.X).(*ast.Ident); ok && n.Op == token.AND {
				untracked[info.ObjectOf(id)] = true
			}
		case *ast.SelectorExpr:
			// A method of a named bool type with a pointer receiver takes the address
			// implicitly: held.clear() is (&held).clear(). A pointer's or an interface's
			// method takes nothing of the variable.
			if id, ok := ast.Unparen(n.X).(*ast.Ident); ok {
				if sel, ok := info.Selections[n]; ok && sel.Kind() != types.FieldVal {
					if o := info.ObjectOf(id); o != nil && isBool(o.Type()) {
						untracked[o] = true
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
		return true
	}
	ast.Inspect(body, visit)
	for o := range untracked {
		delete(v.tracked, o)
	}
	if p.bools == nil {
		p.bools = map[ast.Node]*boolVars{}
	}
	p.bools[fnNode] = v
	return v
}
