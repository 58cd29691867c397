package releasepath

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
)

// An outcome is what a return says to its caller about one result: success or failure, or
// nothing the analyzer can read.
type outcome uint8

const (
	unknownOutcome outcome = iota
	successOutcome
	failureOutcome
)

// holdsOnSuccess drops the leaks that are the function's contract: a function whose every
// release of a leads to a return that says failure, by one result, returns holding a where
// that result says success, and its caller takes the obligation with the result. A try-lock
// that keeps the lock when it returns true, a lookup that returns its entry locked or nil, a
// beginUpdate that returns nil holding what its endUpdate releases. The results are read
// from the last to the first (outcomeReader), and the first whose every release return says
// failure decides. A return that holds a and says failure stays a leak: the contract is
// broken there. So does
// every return when a release needs a local of the function (m.ReleaseAddress(ip) for an ip
// the function does not return): its caller could not release it.
func (w *walker) holdsOnSuccess(leaks []leak) []leak {
	rels := w.releasesMade()
	if w.a.kind != scoped || len(rels) == 0 && len(w.guardRuns) == 0 {
		return leaks
	}
	locals, ok := w.releaseLocals()
	if !ok {
		return leaks
	}
	res := w.sig.Results()
	for i := res.Len() - 1; i >= 0; i-- {
		read := w.outcomeReader(res.At(i).Type(), i)
		if read == nil || !w.releasesSay(rels, i, read, failureOutcome) {
			continue
		}
		var kept []leak
		for _, l := range leaks {
			if w.resultSays(l.ret, i, read, nil) != successOutcome || !returnsAll(w.p.pass.TypesInfo, l.ret, locals) {
				kept = append(kept, l)
			}
		}
		return kept
	}
	return leaks
}

// outcomeReader returns how a result of type t at index i says success or failure, given the
// release (nil for a leak) the return follows; nil when a result of t says neither. A nil
// expression is the result's zero value: a named result returned bare before anything set it.
func (w *walker) outcomeReader(t types.Type, i int) func(e ast.Expr, rel *releaseCall) outcome {
	info := w.p.pass.TypesInfo
	res := w.sig.Results()
	switch {
	case isError(t) && i == res.Len()-1:
		return func(e ast.Expr, rel *releaseCall) outcome {
			switch {
			case e == nil || isNilIdent(info, e):
				return successOutcome
			case w.nonNilError(e, &state{}), rel != nil && underErrorTest(info, rel):
				return failureOutcome
			}
			return unknownOutcome
		}
	case isBool(t):
		// true says it holds, as TryLock's does: a function that returns false holding
		// the lock and true without it breaks every caller's reading.
		return func(e ast.Expr, _ *releaseCall) outcome {
			if e == nil {
				return failureOutcome
			}
			switch c := info.Types[e].Value; {
			case c == nil || c.Kind() != constant.Bool:
				return unknownOutcome
			case constant.BoolVal(c):
				return successOutcome
			}
			return failureOutcome
		}
	case nilable(t):
		return func(e ast.Expr, _ *releaseCall) outcome {
			if e == nil || isNilIdent(info, e) {
				return failureOutcome
			}
			return successOutcome
		}
	}
	return nil
}

// resultSays returns what result i of ret says, as read reads it, given the release (nil for
// a leak) ret follows; unknown when ret is the end of the body or resultExpr cannot tell.
func (w *walker) resultSays(ret *ast.ReturnStmt, i int, read func(ast.Expr, *releaseCall) outcome, rel *releaseCall) outcome {
	e, ok := w.resultExpr(ret, i)
	if !ok {
		return unknownOutcome
	}
	return read(e, rel)
}

// resultExpr returns the expression result i of ret returns. For a bare return of named
// results (ok = true; return) it is the one last assigned to the result on the statements
// that lead straight to ret, or nil, the zero value, when none of them did. It is false when
// the analyzer cannot tell: a branch or a loop around ret assigns the result, or a literal, a
// goto or a multi-valued assignment (ok, err = try()) may.
func (w *walker) resultExpr(ret *ast.ReturnStmt, i int) (ast.Expr, bool) {
	res := w.sig.Results()
	info := w.p.pass.TypesInfo
	switch {
	case ret == nil:
		return nil, false
	case len(ret.Results) == res.Len():
		// return e on the true edge of if e == nil returns nil.
		if id, ok := ast.Unparen(ret.Results[i]).(*ast.Ident); ok && nilable(res.At(i).Type()) && w.nilOnPath(ret, info.Uses[id]) {
			return nil, true
		}
		return ret.Results[i], true
	case len(ret.Results) != 0 || hasGoto(w.body):
		return nil, false
	}
	v := res.At(i)
	if nilable(v.Type()) && w.nilOnPath(ret, v) {
		return nil, true // e = s.m[k]; if e == nil { s.mu.Unlock(); return }
	}
	assigns := func(n ast.Node) bool { return assignedIn(info, n)[v] }
	inLit := false
	ast.Inspect(w.body, func(n ast.Node) bool {
		if lit, ok := n.(*ast.FuncLit); ok && assigns(lit.Body) {
			inLit = true // defer func() { ok = false }() changes what every return returns
		}
		return !inLit
	})
	if inLit {
		return nil, false
	}
	path := pathTo(w.body, ret)
	for k := len(path) - 2; k >= 0; k-- {
		switch n := path[k].(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			if assigns(n) {
				return nil, false // an earlier iteration may have assigned it after ret
			}
			continue
		}
		list, ok := stmtList(path[k])
		if !ok {
			if s, isStmt := path[k].(ast.Stmt); isStmt && initAssigns(s, assigns) {
				return nil, false // if ok = try(); ok { return }
			}
			continue
		}
		switch path[k+1].(type) {
		case *ast.CaseClause, *ast.CommClause:
			continue // the other clauses are alternatives, not what ran before
		}
		j := slices.Index(list, path[k+1].(ast.Stmt))
		for j--; j >= 0; j-- {
			if a, ok := list[j].(*ast.AssignStmt); ok && a.Tok == token.ASSIGN && len(a.Lhs) == len(a.Rhs) {
				for x, l := range a.Lhs {
					if id, ok := ast.Unparen(l).(*ast.Ident); ok && info.Uses[id] == v {
						return a.Rhs[x], true
					}
				}
			}
			if assigns(list[j]) && !returnsInside(list[j], assigns) {
				return nil, false
			}
		}
	}
	return nil, true
}

// returnsInside reports whether s is an if without an else whose body assigns only where
// it returns, its init aside: if e == nil { err = errNotFound; return } leaves err as it
// was on the path past it.
func returnsInside(s ast.Stmt, assigns func(ast.Node) bool) bool {
	is, ok := s.(*ast.IfStmt)
	if !ok || is.Else != nil || initAssigns(is, assigns) || len(is.Body.List) == 0 {
		return false
	}
	_, ret := is.Body.List[len(is.Body.List)-1].(*ast.ReturnStmt)
	return ret
}

// nilOnPath reports whether o is nil at ret: ret is in the body of if o == nil (or the else
// of if o != nil), and nothing between that test and ret assigns o.
func (w *walker) nilOnPath(ret *ast.ReturnStmt, o types.Object) bool {
	if o == nil {
		return false
	}
	info := w.p.pass.TypesInfo
	path := pathTo(w.body, ret)
	for k := len(path) - 2; k >= 0; k-- {
		if list, ok := stmtList(path[k]); ok {
			j := 0
			if s, isStmt := path[k+1].(ast.Stmt); isStmt {
				j = max(slices.Index(list, s), 0)
			}
			for _, s := range list[:j] {
				if assignedIn(info, s)[o] {
					return false
				}
			}
			continue
		}
		is, ok := path[k].(*ast.IfStmt)
		if !ok {
			continue
		}
		b, ok := ast.Unparen(is.Cond).(*ast.BinaryExpr)
		if !ok || (b.Op != token.EQL && b.Op != token.NEQ) {
			continue
		}
		x, y := ast.Unparen(b.X), ast.Unparen(b.Y)
		if isNilIdent(info, x) {
			x, y = y, x
		}
		id, ok := x.(*ast.Ident)
		if !ok || !isNilIdent(info, y) || info.Uses[id] != o {
			continue
		}
		return (b.Op == token.EQL && path[k+1] == is.Body) || (b.Op == token.NEQ && path[k+1] == is.Else)
	}
	return false
}

// initAssigns reports whether the init statement of an if or a switch assigns what assigns
// looks for.
func initAssigns(s ast.Stmt, assigns func(ast.Node) bool) bool {
	var init ast.Stmt
	switch s := s.(type) {
	case *ast.IfStmt:
		init = s.Init
	case *ast.SwitchStmt:
		init = s.Init
	case *ast.TypeSwitchStmt:
		init = s.Init
	}
	return init != nil && assigns(init)
}

// pathTo returns the nodes from root down to n, both included; nil when root does not hold n.
func pathTo(root, n ast.Node) []ast.Node {
	var stack, found []ast.Node
	ast.Inspect(root, func(x ast.Node) bool {
		switch {
		case found != nil:
			return false
		case x == nil:
			stack = stack[:len(stack)-1]
			return false
		case x.Pos() > n.Pos() || x.End() < n.End():
			return false
		}
		stack = append(stack, x)
		if x == n {
			found = slices.Clone(stack)
		}
		return true
	})
	return found
}

// releasesSay reports whether every release of a is followed by a return whose result i, as
// read reads it, says want: released, then returned. A release deferred under an err != nil
// test says failure; any other release inside a function literal says nothing.
func (w *walker) releasesSay(rels []*releaseCall, i int, read func(ast.Expr, *releaseCall) outcome, want outcome) bool {
	info := w.p.pass.TypesInfo
	for _, r := range rels {
		if w.takenBack(r) {
			continue // unlock, reload, lock: says nothing of the result
		}
		if inLiteral(r.stack) {
			if want == failureOutcome && deferredLiteral(r.stack) && (underErrorTest(info, r) || w.guardRunsSay(i, read)) {
				continue // defer func() { if err != nil { mu.Unlock() } }(), or if !succeeded
			}
			return false
		}
		if rets, ok := w.loopsBack(r); ok {
			for _, ret := range rets {
				if w.resultSays(ret, i, read, r) != want {
					return false
				}
			}
			continue
		}
		if w.resultSays(returnAfter(r), i, read, r) != want {
			return false
		}
	}
	// Where a deferred release under an ok flag or a function variable ran, the return
	// released too.
	return want != failureOutcome || len(w.guardRuns) == 0 || w.guardRunsSay(i, read)
}

// releasesMade returns the releases of the acquisition: its release calls, and the calls of
// a local that held a release when a path called it (unlocker() after unlocker =
// l.rw.RUnlock).
func (w *walker) releasesMade() []*releaseCall {
	rels := w.a.releases
	seen := map[*ast.CallExpr]bool{}
	for _, c := range w.varReleases {
		if seen[c] {
			continue
		}
		seen[c] = true
		if path := pathTo(w.body, c); len(path) > 0 {
			rels = append(slices.Clip(rels), &releaseCall{call: c, stack: path[:len(path)-1]})
		}
	}
	return rels
}

// guardRunsSay reports whether every return at which a deferred conditional release ran
// (defer func() { if !succeeded { mu.Unlock() } }()) says failure by result i, and there is
// one: for the error result, the error is known non-nil on the path there.
func (w *walker) guardRunsSay(i int, read func(ast.Expr, *releaseCall) outcome) bool {
	res := w.sig.Results()
	errResult := isError(res.At(i).Type()) && i == res.Len()-1
	for _, g := range w.guardRuns {
		if errResult && !g.failure || !errResult && w.resultSays(g.ret, i, read, nil) != failureOutcome {
			return false
		}
	}
	return len(w.guardRuns) > 0
}

// loopsBack returns the returns that follow the release r in the body of an endless loop
// that acquires first in each round (for { s.Lock(); if ok { return s, nil }; s.Unlock();
// …; if err != nil { return nil, err } }, prometheus's lockForAppend): from r the path
// reaches one of them or the next round's acquisition, so only they say what r leads to.
func (w *walker) loopsBack(r *releaseCall) ([]*ast.ReturnStmt, bool) {
	for k := len(r.stack) - 2; k >= 1; k-- {
		loop, ok := r.stack[k-1].(*ast.ForStmt)
		if !ok || r.stack[k] != loop.Body {
			continue
		}
		own := ""
		if k >= 2 {
			if l, ok := r.stack[k-2].(*ast.LabeledStmt); ok {
				own = l.Label.Name
			}
		}
		if _, plain := r.stack[k+1].(*ast.ExprStmt); !plain || k+2 != len(r.stack) || loop.Cond != nil || breaksOut(loop, own) || hasGoto(loop.Body) {
			return nil, false // s.Unlock() alone, straight in the loop's body
		}
		var rets []*ast.ReturnStmt
		acquiredFirst, after := false, false
		for _, st := range loop.Body.List {
			switch {
			case st == r.stack[k+1]:
				after = true
			case !after && st.Pos() <= w.a.call.Pos() && w.a.call.End() <= st.End():
				acquiredFirst = true
			case after:
				for ret := range ownReturns(&ast.BlockStmt{List: []ast.Stmt{st}}) {
					rets = append(rets, ret)
				}
			}
		}
		return rets, acquiredFirst
	}
	return nil, false
}

// returnAfter returns the return statement that ends the block of r's statement, after it:
// mu.Unlock(); return nil, err. Nil when the block ends otherwise.
func returnAfter(r *releaseCall) *ast.ReturnStmt {
	for k := len(r.stack) - 2; k >= 0; k-- {
		list, ok := stmtList(r.stack[k])
		if !ok {
			continue
		}
		if len(list) == 0 {
			return nil
		}
		ret, ok := list[len(list)-1].(*ast.ReturnStmt)
		if !ok || r.stack[k+1] == ret {
			return nil // the release is the return's own: return nil, unlockAnd(err)
		}
		return ret
	}
	return nil
}

// deferredLiteral reports whether the outermost function literal of stack is deferred.
func deferredLiteral(stack []ast.Node) bool {
	for k, n := range stack {
		if _, ok := n.(*ast.FuncLit); ok {
			if k >= 2 {
				if d, ok := stack[k-2].(*ast.DeferStmt); ok {
					return ast.Unparen(d.Call.Fun) == n
				}
			}
			return false
		}
	}
	return false
}

// underErrorTest reports whether r sits in the body of an if whose condition tests an error
// against nil: if err != nil { mu.Unlock(); return nil, err }.
func underErrorTest(info *types.Info, r *releaseCall) bool {
	for k := len(r.stack) - 1; k >= 0; k-- {
		if n, ok := r.stack[k].(*ast.IfStmt); ok && within(n.Body, r.call) && mentionsNonNilError(info, n.Cond) {
			return true
		}
	}
	return false
}

// nilable reports whether nil is a value of t, other than an error's.
func nilable(t types.Type) bool {
	switch t.Underlying().(type) {
	case *types.Pointer, *types.Map, *types.Slice, *types.Chan, *types.Signature:
		return true
	case *types.Interface:
		return !isError(t)
	}
	return false
}

// releaseLocals returns the locals of the function that the releases of a are made on or
// with (e for e.mu.Unlock()), and false when a release needs something else the caller has
// not: what is neither a local, the receiver, a parameter, a package variable nor a
// constant. The caller can make the release where a return gives it those locals
// (return e, a lookup that returns its entry locked), when the function never assigns the
// local after declaring it; its own receiver, parameters and package variables it has
// anyway.
func (w *walker) releaseLocals() ([]types.Object, bool) {
	info := w.p.pass.TypesInfo
	var locals []types.Object
	for _, r := range w.a.releases {
		for _, e := range append([]ast.Expr{receiver(info, r.call)}, r.call.Args...) {
			if e == nil {
				continue
			}
			if tv, ok := info.Types[e]; ok && tv.Value != nil {
				continue // a constant
			}
			switch o := boundArg(info, r.stack, rootObj(info, e)); {
			case o == nil:
				return nil, false
			case isLocal(o, w.body) && !slices.Contains(locals, o):
				if assignedAgain(info, o, w.body) {
					return nil, false // e = t.m[next]; return e: the local no longer names what was locked
				}
				locals = append(locals, o)
			}
		}
	}
	return locals, true
}

// boundArg returns what o names at the call: the root of the argument a literal called where
// it is written binds to its parameter o (defer func(x *impl) { x.i.Close() }(rv): rv), or o
// itself when o is no parameter of a literal of stack.
func boundArg(info *types.Info, stack []ast.Node, o types.Object) types.Object {
	for k := len(stack) - 1; k >= 1; k-- {
		lit, ok := stack[k].(*ast.FuncLit)
		if !ok {
			continue
		}
		call, ok := stack[k-1].(*ast.CallExpr)
		if !ok || ast.Unparen(call.Fun) != lit {
			return o
		}
		params := litParams(info, lit)
		i := slices.Index(params, o)
		switch {
		case i < 0 || o == nil:
			return o
		case i >= len(call.Args) || info.TypeOf(lit).(*types.Signature).Variadic() && i == len(params)-1:
			return nil // a variadic parameter: several arguments, or none
		}
		return rootObj(info, call.Args[i])
	}
	return o
}

// assignedAgain reports whether body assigns o after declaring it, increments it or ranges
// into it: gives it another value. A method called on it (e.unlock()) does not.
func assignedAgain(info *types.Info, o types.Object, body *ast.BlockStmt) bool {
	return mutates(info, body, func(e ast.Expr, replaced bool) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return replaced && ok && info.Uses[id] == o
	})
}

// returnsAll reports whether ret gives its caller every one of locals, each a result of its
// own.
func returnsAll(info *types.Info, ret *ast.ReturnStmt, locals []types.Object) bool {
	for _, o := range locals {
		if ret == nil || !slices.ContainsFunc(ret.Results, func(e ast.Expr) bool {
			id, ok := ast.Unparen(e).(*ast.Ident)
			return ok && info.Uses[id] == o
		}) {
			return false
		}
	}
	return true
}

// stmtList returns the statements of a block, case or select clause, and whether n is one.
func stmtList(n ast.Node) ([]ast.Stmt, bool) {
	switch b := n.(type) {
	case *ast.BlockStmt:
		return b.List, true
	case *ast.CaseClause:
		return b.Body, true
	case *ast.CommClause:
		return b.Body, true
	}
	return nil, false
}
