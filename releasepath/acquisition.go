package releasepath

import (
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// An acquisition is one call that acquires a resource, with what the search needs to know
// about it.
type acquisition struct {
	call   *ast.CallExpr
	node   ast.Node // the statement holding the call
	fn     *types.Func
	name   string // the callee's name, "HoldAddress"
	kind   obligation
	source string // "verb", "default" or "config"

	verb     verbMatch // for source "verb"
	pair     *pair     // for the table sources
	recvKey  string    // identity of the receiver, "" for a function
	recvRoot types.Object
	// recvIsResource is set when the receiver is what the acquisition holds: a scoped,
	// non-lock acquisition that takes nothing and returns nothing but an error
	// (b.policy.acquireRef()). Storing or returning the receiver then hands the hold on.
	recvIsResource bool
	// recvAlias maps the parameter of a function literal called where it is written to the
	// receiver's root it is passed (fs in defer func(fs *T) { fs.mu.Unlock() }(fs)), by
	// objID, so that the literal's fs.mu is the acquisition's (paramRelease).
	recvAlias map[string]string
	// litArgs names what each such parameter was passed, for messages.
	litArgs  map[types.Object]string
	errObj   types.Object          // the variable the acquisition's error went into
	values   map[types.Object]bool // the acquired values (not basic-typed, unless a release takes them)
	basic    map[types.Object]bool // the basic-typed results (ip from HoldAddress), see stringHandOff
	guards   map[types.Object]bool // values whose nil or false edge means nothing was acquired
	argRoots map[types.Object]bool // root objects of the arguments, contexts left out
	holders  map[types.Object]bool // locals a composite literal made holding the value (compositeHolders)
	// closureHolders are the locals a composite literal made holding a's release in a
	// field, with those fields' names (closureHolders).
	closureHolders map[types.Object]map[string]bool
	releases       []*releaseCall          // matching releases seen in the function
	funcLit        *ast.FuncLit            // the function literal the acquisition is in, if any
	stmtStack      []ast.Node              // ancestors of the call
	byObj          map[types.Object]string // names for messages

	// valueErrOnly is set when the function never releases the acquisition but the release
	// exists (relText): only a return of the acquired value with a provably non-nil error is
	// then a leak, since by Go's convention the caller drops a value returned with an error.
	valueErrOnly bool
	// receiverState is set for a method's acquisition through a method of its own receiver
	// of the package that returns an error (r.Acquire(ctx, 1) inside a method of r): the
	// receiver's state, dropped only at a return whose error is known non-nil.
	receiverState bool
	relText       string
	// otherMode is the other mode's release that is the only evidence for a lock (c.mu.Unlock
	// after c.mu.RLock), named in the finding's related information.
	otherMode *ast.CallExpr
	// held is set when the call is of a function of the package that returns holding a
	// lock of what it is passed (holdcallers): the lock is the acquisition's, in the
	// caller's terms.
	held *holdSummary
}

// A releaseCall is a call that ends an acquisition.
type releaseCall struct {
	call  *ast.CallExpr
	stack []ast.Node // ancestors, outermost first
	text  string     // "addrMgr.ReleaseAddress"
	// viaHolder is set for a method of a local that holds the value (holderrelease): it
	// releases, but is no evidence that the acquisition needs a release.
	viaHolder bool
}

// callInfo is a call found in a function body, with its ancestors.
type callInfo struct {
	call  *ast.CallExpr
	fn    *types.Func
	stack []ast.Node
	// inner, when set, is the call fn is the callee of, made inside the closure that call
	// defers (defer func() { c.Close() }()): it runs where call is deferred.
	inner *ast.CallExpr
}

// collectCalls lists the calls in body with their ancestors. With nested, it also descends
// into function literals.
func collectCalls(info *types.Info, body *ast.BlockStmt, nested bool, keep func(*ast.CallExpr, *types.Func) bool) []callInfo {
	var out []callInfo
	var stack []ast.Node
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if _, ok := n.(*ast.FuncLit); ok && !nested {
			return false
		}
		if call, ok := n.(*ast.CallExpr); ok {
			fn, _ := typeutil.Callee(info, call).(*types.Func)
			if keep(call, fn) {
				out = append(out, callInfo{call: call, fn: fn, stack: append([]ast.Node(nil), stack...)})
			}
		}
		stack = append(stack, n)
		return true
	})
	return out
}

// candidates classifies a call as possible acquisitions, before any evidence: one, or one
// for each lock a function returns holding (heldCandidates).
func (p *pkgChecker) candidates(call *ast.CallExpr, fn *types.Func) []*acquisition {
	if fn == nil || (fn.Pkg() != nil && fn.Pkg().Path() == "runtime") {
		// runtime.LockOSThread is no pair: a goroutine may die with its thread locked on
		// purpose.
		return nil
	}
	if pr, ok := p.pairs[funcName(fn)]; ok {
		return []*acquisition{{call: call, fn: fn, name: fn.Name(), kind: pr.kind, source: pr.source, pair: pr}}
	}
	if as := p.heldCandidates(call, fn); len(as) > 0 {
		return as
	}
	if m, ok := matchVerb(fn.Name()); ok {
		m = ownModeRelease(m, fn)
		return []*acquisition{{call: call, fn: fn, name: fn.Name(), kind: m.kind, source: "verb", verb: m}}
	}
	return nil
}

// rootObj returns the object at the root of e: x for x, x.f.g, x[i], *x, &x and (x).
func rootObj(info *types.Info, e ast.Expr) types.Object {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			if o := info.Uses[x]; o != nil {
				return o
			}
			return info.Defs[x]
		case *ast.SelectorExpr:
			if sel, ok := info.Selections[x]; ok && sel.Kind() == types.FieldVal {
				e = x.X
				continue
			}
			if _, ok := info.Selections[x]; !ok {
				return info.Uses[x.Sel] // a package-qualified name
			}
			return nil
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.UnaryExpr:
			if x.Op != token.AND {
				return nil
			}
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return nil
		}
	}
}

// exprKey returns the identity of a receiver expression built from the types.Object of its
// root and of each field selected, so that g.lock and h.lock differ and two spellings of
// the same field chain agree. ok is false for expressions that have no stable identity (a
// call result, an index).
func exprKey(info *types.Info, e ast.Expr) (key string, ok bool) {
	var b strings.Builder
	var walk func(ast.Expr) bool
	walk = func(e ast.Expr) bool {
		switch x := e.(type) {
		case *ast.Ident:
			o := info.Uses[x]
			if o == nil {
				o = info.Defs[x]
			}
			if o == nil {
				return false
			}
			b.WriteString(objID(o))
			return true
		case *ast.SelectorExpr:
			if sel, ok := info.Selections[x]; ok {
				if sel.Kind() != types.FieldVal || !walk(x.X) {
					return false
				}
				// A promoted field goes through the embedded ones: w.Mu is w.Table.Mu.
				chain := fieldChain(sel)
				if len(chain) == 0 {
					return false
				}
				for _, f := range chain {
					b.WriteString("." + objID(f))
				}
				return true
			}
			o := info.Uses[x.Sel]
			if o == nil {
				return false
			}
			b.WriteString(objID(o))
			return true
		case *ast.StarExpr:
			return walk(x.X)
		case *ast.ParenExpr:
			return walk(x.X)
		case *ast.UnaryExpr:
			return x.Op == token.AND && walk(x.X)
		}
		return false
	}
	if !walk(e) {
		return "", false
	}
	return b.String(), true
}

// objID names an object uniquely within the run: its identity, never its name.
func objID(o types.Object) string {
	return "0x" + strconv.FormatUint(uint64(reflect.ValueOf(o).Pointer()), 16) // as %p prints it, without fmt's cost
}

// isContext reports whether t is context.Context.
func isContext(t types.Type) bool {
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "context" && n.Obj().Name() == "Context"
}

var errorType = types.Universe.Lookup("error").Type()

// isError reports whether t is the error interface.
func isError(t types.Type) bool { return t != nil && types.Identical(t, errorType) }

// isBasic reports whether values of t are copies of data, not handles on a resource.
func isBasic(t types.Type) bool {
	_, ok := t.Underlying().(*types.Basic)
	return ok
}

// receiver returns the receiver expression of a method call, or nil.
// recvKeyOf returns the identity of the receiver call's method is called on, with the
// embedded fields a promoted method goes through: l.Lock() and l.Mutex.Lock() on a struct
// embedding sync.Mutex have the same key.
func recvKeyOf(info *types.Info, call *ast.CallExpr) (string, bool) {
	r := receiver(info, call)
	if r == nil {
		return "", false
	}
	k, ok := exprKey(info, r)
	if !ok {
		return "", false
	}
	ids, _ := embeddedPath(info, ast.Unparen(call.Fun).(*ast.SelectorExpr))
	return k + ids, true
}

// fieldChain returns the fields a selection goes through, the selected one last: Table and
// Mu for w.Mu where w embeds Table. A method's chain holds its embedded fields only.
func fieldChain(s *types.Selection) []*types.Var {
	var out []*types.Var
	t := s.Recv()
	idx := s.Index()
	if s.Kind() != types.FieldVal {
		idx = idx[:len(idx)-1] // the method's own index
	}
	for _, i := range idx {
		if p, ok := t.Underlying().(*types.Pointer); ok {
			t = p.Elem()
		}
		st, ok := t.Underlying().(*types.Struct)
		if !ok || i >= st.NumFields() {
			return nil
		}
		f := st.Field(i)
		out = append(out, f)
		t = f.Type()
	}
	return out
}

// embeddedPath returns the embedded fields the method selection sel goes through, as
// exprKey writes them and as field names: ".<Mutex>" and ".Mutex" for l.Lock() on a struct
// embedding sync.Mutex, "" for a method of the receiver's own type.
func embeddedPath(info *types.Info, sel *ast.SelectorExpr) (ids, names string) {
	s, ok := info.Selections[sel]
	if !ok || s.Kind() != types.MethodVal || len(s.Index()) < 2 {
		return "", ""
	}
	for _, f := range fieldChain(s) {
		ids += "." + objID(f)
		names += "." + f.Name()
	}
	return ids, names
}

func receiver(info *types.Info, call *ast.CallExpr) ast.Expr {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	if s, ok := info.Selections[sel]; ok && (s.Kind() == types.MethodVal) {
		return sel.X
	}
	return nil
}

// bind fills in what the acquisition's syntax says: where its results went, its receiver and
// its arguments. It reports false when the acquisition is handed on where it happens (a
// result stored in a field, returned at once, deferred or started in a goroutine).
func (a *acquisition) bind(info *types.Info, stack []ast.Node, body *ast.BlockStmt) bool {
	a.values = map[types.Object]bool{}
	a.basic = map[types.Object]bool{}
	a.guards = map[types.Object]bool{}
	a.argRoots = map[types.Object]bool{}
	a.stmtStack = stack
	// The result passed straight to another call (acquire.Temporary(s, "address",
	// c.reserve("address"), c.release)) is that call's: handed on where it is made.
	for i := len(stack) - 1; i >= 0; i-- {
		if _, ok := stack[i].(*ast.ParenExpr); ok {
			continue
		}
		if outer, ok := stack[i].(*ast.CallExpr); ok && slices.ContainsFunc(outer.Args, func(e ast.Expr) bool { return ast.Unparen(e) == a.call }) {
			return false
		}
		break
	}
	// The innermost statement holding the call, and whether the call is its whole value.
	var stmt ast.Stmt
	direct := true
	for i := len(stack) - 1; i >= 0; i-- {
		switch n := stack[i].(type) {
		case *ast.ParenExpr:
			continue
		case *ast.CallExpr, *ast.CompositeLit, *ast.KeyValueExpr, *ast.UnaryExpr, *ast.BinaryExpr, *ast.SelectorExpr, *ast.IndexExpr, *ast.StarExpr, *ast.TypeAssertExpr, *ast.SliceExpr:
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.X != a.call {
				continue
			}
			direct = false
			continue
		case ast.Stmt:
			stmt = n
		case *ast.ValueSpec:
			a.node = n
			for _, id := range n.Names {
				a.addResult(info, id)
			}
			for j := i - 1; j >= 0; j-- {
				if s, ok := stack[j].(ast.Stmt); ok {
					stmt = s
					break
				}
			}
		}
		if stmt != nil {
			break
		}
	}
	if stmt == nil {
		return false
	}
	switch s := stmt.(type) {
	case *ast.ReturnStmt, *ast.DeferStmt, *ast.GoStmt, *ast.SendStmt:
		return false
	case *ast.AssignStmt:
		if a.node == nil {
			a.node = s
		}
		if direct && len(s.Rhs) == 1 {
			for _, l := range s.Lhs {
				if id, ok := ast.Unparen(l).(*ast.Ident); ok {
					a.addResult(info, id)
					continue
				}
				return false // stored in a field, map or slice: handed on
			}
		}
		if id := heldBool(info, s, a.call); id != nil {
			// acquired = sem.Acquire(ctx) == nil: true says it holds, as TryAcquire's.
			if o, ok := info.ObjectOf(id).(*types.Var); ok {
				a.guards[o] = true
				a.basic[o] = true
			}
		}
	case *ast.ExprStmt, *ast.IfStmt, *ast.SwitchStmt, *ast.DeclStmt:
		if a.node == nil {
			a.node = s
		}
	default:
		if a.node == nil {
			a.node = s
		}
	}
	a.bindOperands(info, body)
	return true
}

// bindOperands records what the call is made on and with: the receiver's key, a local
// handle it is called on, and the roots of its arguments.
func (a *acquisition) bindOperands(info *types.Info, body *ast.BlockStmt) {
	if r := receiver(info, a.call); r != nil {
		if k, ok := recvKeyOf(info, a.call); ok {
			a.recvKey = k
			sig := a.fn.Type().(*types.Signature)
			a.recvIsResource = a.kind == scoped && a.source == "verb" && a.verb.verb != "Lock" &&
				len(a.call.Args) == 0 && (sig.Results().Len() == 0 || onlyError(a.fn))
		}
		if id, ok := ast.Unparen(r).(*ast.Ident); ok {
			if o, ok := info.Uses[id].(*types.Var); ok && o.Pos() >= body.Pos() && o.Pos() < body.End() {
				// A local handle (addrMgr := newAddressManager(...)): its nil guard prunes,
				// and handing it on hands the resource on.
				a.recvRoot = o
				a.guards[o] = true
				a.values[o] = true
			}
		}
	}
	for _, arg := range a.call.Args {
		if t := info.TypeOf(arg); t != nil && isContext(t) {
			continue
		}
		if o := rootObj(info, arg); o != nil {
			if _, isPkg := o.(*types.PkgName); !isPkg {
				a.argRoots[o] = true
			}
		}
	}
}

// heldBool returns the variable s assigns whether call, which returns nothing but an error,
// succeeded: ok = call == nil (or nil == call), in an assignment of one to one.
func heldBool(info *types.Info, s *ast.AssignStmt, call *ast.CallExpr) *ast.Ident {
	if len(s.Lhs) != 1 || len(s.Rhs) != 1 {
		return nil
	}
	b, ok := ast.Unparen(s.Rhs[0]).(*ast.BinaryExpr)
	if !ok || b.Op != token.EQL {
		return nil
	}
	x, y := ast.Unparen(b.X), ast.Unparen(b.Y)
	if isNilIdent(info, x) {
		x, y = y, x
	}
	id, _ := ast.Unparen(s.Lhs[0]).(*ast.Ident)
	if x != ast.Expr(call) || !isNilIdent(info, y) || id == nil {
		return nil
	}
	if fn, ok := typeInfoCallee(info, call); !ok || !onlyError(fn) {
		return nil
	}
	return id
}

func (a *acquisition) addResult(info *types.Info, id *ast.Ident) {
	if id.Name == "_" {
		return
	}
	o := info.Defs[id]
	if o == nil {
		o = info.Uses[id]
	}
	v, ok := o.(*types.Var)
	if !ok {
		return
	}
	if isError(v.Type()) {
		a.errObj = v
		return
	}
	a.guards[v] = true
	if !isBasic(v.Type()) {
		a.values[v] = true
	} else {
		a.basic[v] = true
	}
}

// releaseMethod finds, for a scoped verb acquisition the function never releases, the
// release method that exists for it: the swapped name on the acquisition's receiver
// (m.HoldAddress → m.ReleaseAddress) or a release verb on an acquired value (a.Release). It
// returns the text for the message, and makes the basic-typed results the release method
// takes (ip for ReleaseAddress(name string)) acquired values.
func (a *acquisition) releaseMethod(info *types.Info) (string, bool) {
	if a.source != "verb" || a.kind != scoped {
		return "", false
	}
	lookup := func(t types.Type, names []string) *types.Func {
		for _, n := range names {
			obj, _, _ := types.LookupFieldOrMethod(t, true, a.fn.Pkg(), n)
			if f, ok := obj.(*types.Func); ok {
				return f
			}
		}
		return nil
	}
	if r := receiver(info, a.call); r != nil {
		if t := info.TypeOf(r); t != nil {
			if f := lookup(t, a.verb.releases); f != nil {
				params := f.Type().(*types.Signature).Params()
				for o := range a.basic {
					for i := 0; i < params.Len(); i++ {
						if types.Identical(params.At(i).Type(), o.Type()) {
							a.values[o] = true
						}
					}
				}
				return types.ExprString(r) + "." + f.Name(), true
			}
		}
	}
	for _, o := range sortedObjs(a.values) {
		if o == a.recvRoot {
			continue
		}
		if f := lookup(o.Type(), append(slices.Clone(a.verb.relVerbs), a.verb.releases...)); f != nil {
			return o.Name() + "." + f.Name(), true
		}
	}
	return "", false
}

// sortedObjs returns the objects of m in the order of their declarations, so that a message
// that names one of them names the same one on every run.
func sortedObjs(m map[types.Object]bool) []types.Object {
	os := make([]types.Object, 0, len(m))
	for o := range m {
		os = append(os, o)
	}
	slices.SortFunc(os, func(x, y types.Object) int { return int(x.Pos()) - int(y.Pos()) })
	return os
}
