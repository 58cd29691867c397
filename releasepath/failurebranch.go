package releasepath

import (
	"go/ast"
	"go/token"
	"slices"
)

// prune applies the condition cond on its true (or false) edge to st and reports whether the
// edge leaves the search: the acquisition's own failure branch ([walker.failureBranch]), or
// the nil or false edge of a guard on its handle ([walker.nilGuard]). On the other edges it
// records which errors are nil or non-nil there.
func (w *walker) prune(cond ast.Expr, edge bool, st *state) bool {
	cond = ast.Unparen(cond)
	if c, ok := cond.(*ast.UnaryExpr); ok && c.Op == token.NOT {
		return w.prune(c.X, !edge, st)
	}
	// The CFG keeps a && b as one test. Its true edge is the true edge of both terms, and
	// what either settles holds there (err != nil && !retry: err is non-nil); so is the
	// false edge of a || b. The other edges settle no term alone, but one the path has
	// settled both terms of cannot be taken.
	if c, ok := cond.(*ast.BinaryExpr); ok && (c.Op == token.LAND || c.Op == token.LOR) {
		if edge == (c.Op == token.LAND) {
			return w.prune(c.X, edge, st) || w.prune(c.Y, edge, st)
		}
		// The true edge of a || b holds one term or the other: when each alone is the
		// acquisition's failure, so is the edge (errors.Is(err, fs.ErrNotExist) ||
		// errors.Is(err, syscall.ENOTDIR)).
		if w.holdsNothing(c.X, edge, st) && w.holdsNothing(c.Y, edge, st) {
			return true
		}
		v, known := w.settled(cond, st)
		return known && v != edge
	}
	if w.correlated(cond, edge, st) || w.nonEmptyHolder(cond, edge, st) || w.failureBranch(cond, edge, st) || w.nilGuard(cond, edge) ||
		w.sureAssertion(cond, edge) || w.knownError(cond, edge, st) {
		return true
	}
	w.trackErrors(cond, edge, st)
	return false
}

// holdsNothing reports, without changing st, whether the edge of cond is the acquisition's
// own failure or the nil edge of a guard on its handle, also through !, && and ||.
func (w *walker) holdsNothing(cond ast.Expr, edge bool, st *state) bool {
	cond = ast.Unparen(cond)
	if c, ok := cond.(*ast.UnaryExpr); ok && c.Op == token.NOT {
		return w.holdsNothing(c.X, !edge, st)
	}
	if c, ok := cond.(*ast.BinaryExpr); ok && (c.Op == token.LAND || c.Op == token.LOR) {
		if edge == (c.Op == token.LAND) {
			return w.holdsNothing(c.X, edge, st) || w.holdsNothing(c.Y, edge, st)
		}
		return w.holdsNothing(c.X, edge, st) && w.holdsNothing(c.Y, edge, st)
	}
	return w.failureBranch(cond, edge, st) || w.nilGuard(cond, edge)
}

// failureBranch reports whether the edge of cond is the acquisition's own failure, while
// err still holds the acquisition's error: the true edge of err != nil, of err ==
// errNotFound (or a case errNotFound of switch err), of errors.Is(err, x) and
// apierrors.IsNotFound(err), of ignoreNotFound(err) != nil.
func (w *walker) failureBranch(cond ast.Expr, edge bool, st *state) bool {
	info := w.p.pass.TypesInfo
	switch c := cond.(type) {
	case *ast.BinaryExpr:
		if c.Op != token.EQL && c.Op != token.NEQ {
			return false
		}
		x := c.X
		if isNilIdent(info, x) {
			x = c.Y
		} else if !isNilIdent(info, c.Y) {
			// err == errNotFound: on the true edge the acquisition's error equals a
			// sentinel, so it failed.
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
		if !isNonNil {
			return false
		}
		switch x := ast.Unparen(x).(type) {
		case *ast.Ident:
			o := info.ObjectOf(x)
			return o != nil && o == w.a.errObj && st.errLive
		case *ast.CallExpr:
			return w.callOfErr(x, st) // ignoreNotFound(err) != nil
		}
	case *ast.CallExpr:
		// errors.Is(err, ErrX), apierrors.IsNotFound(err): true only when err is non-nil.
		// Not errors.Is(err, nil), which is true when err is nil.
		if edge && w.callOfErr(c, st) && !slices.ContainsFunc(c.Args, func(a ast.Expr) bool { return isNilIdent(info, a) }) {
			if t := info.TypeOf(c); t != nil && isBool(t) {
				return true
			}
		}
	}
	return false
}

// nilGuard reports whether the edge of cond holds nothing: the false edge of the acquisition
// itself (if mu.TryLock() { … }) or of a bool it returned (if owned { … }), the nil edge of a
// guard on the handle (if addrMgr != nil { … }).
func (w *walker) nilGuard(cond ast.Expr, edge bool) bool {
	info := w.p.pass.TypesInfo
	if cond == w.a.call {
		return !edge
	}
	switch c := cond.(type) {
	case *ast.Ident:
		if o := info.ObjectOf(c); o != nil && w.a.guards[o] && isBool(o.Type()) && w.guardKept(o) {
			return !edge // a bool assigned again may say anything
		}
	case *ast.BinaryExpr:
		if c.Op != token.EQL && c.Op != token.NEQ {
			return false
		}
		x := c.X
		if isNilIdent(info, x) {
			x = c.Y
		} else if !isNilIdent(info, c.Y) {
			return false
		}
		if id, ok := ast.Unparen(x).(*ast.Ident); ok {
			o := info.ObjectOf(id)
			isNil := (c.Op == token.EQL) == edge
			return o != nil && w.a.guards[o] && isNil
		}
	}
	return false
}

// trackErrors records, on the edge of an "x == nil" or "x != nil" for an error x, whether x is
// nil there: errorCarrying and the deferred releases on err read it.
func (w *walker) trackErrors(cond ast.Expr, edge bool, st *state) {
	info := w.p.pass.TypesInfo
	c, ok := cond.(*ast.BinaryExpr)
	if !ok || (c.Op != token.EQL && c.Op != token.NEQ) {
		return
	}
	x := c.X
	if isNilIdent(info, x) {
		x = c.Y
	} else if !isNilIdent(info, c.Y) {
		return
	}
	id, ok := ast.Unparen(x).(*ast.Ident)
	if !ok {
		return
	}
	o := info.ObjectOf(id)
	if o == nil || !isError(o.Type()) {
		return
	}
	if (c.Op == token.NEQ) == edge {
		st.errSet = append(remove(st.errSet, o), o)
		st.nilErr = remove(st.nilErr, o)
	} else {
		st.nilErr = append(remove(st.nilErr, o), o)
		st.errSet = remove(st.errSet, o)
	}
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
