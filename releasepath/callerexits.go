package releasepath

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"
)

// A use is one reference to a function of the package, with its nearest ancestors (the
// parent last) and the function it is in.
type use struct {
	id      *ast.Ident
	parents []ast.Node
	in      scope
}

// A scope is a function a use can return from: a declared function, or a function literal
// (lit set). The zero scope is outside any function.
type scope struct {
	fn  *types.Func
	lit *ast.FuncLit
}

// scopeExits reports whether the process ends on every error the scope returns: a declared
// function whose callers exit (callerExits), or a literal that is a command-line action
// (actionSlots).
func (p *pkgChecker) scopeExits(s scope) bool {
	if s.lit != nil {
		return p.actionSlots()[s.lit]
	}
	return s.fn != nil && p.callerExits(s.fn)
}

// maxUseParents is how many ancestors a use keeps: enough for if err := run(); err != nil,
// whose call sits in an assignment in an if.
const maxUseParents = 4

// funcUses returns the references to each function of the package, found in one walk.
func (p *pkgChecker) funcUses() map[*types.Func][]use {
	if p.uses != nil {
		return p.uses
	}
	p.uses = map[*types.Func][]use{}
	info := p.pass.TypesInfo
	ofPkg := func(id *ast.Ident) bool {
		fn, ok := info.Uses[id].(*types.Func)
		return ok && fn.Pkg() == p.pass.Pkg
	}
	for _, f := range p.pass.Files {
		eachUse(info, f, nil, ofPkg, func(u use) {
			fn := info.Uses[u.id].(*types.Func)
			p.uses[fn] = append(p.uses[fn], u)
		})
	}
	return p.uses
}

// eachUse walks root and calls add for each identifier keep accepts, as a use: with its
// nearest ancestors and the innermost function around it, in holding the scopes around root
// (innermost last).
func eachUse(info *types.Info, root ast.Node, in []scope, keep func(*ast.Ident) bool, add func(use)) {
	var stack []ast.Node
	ast.Inspect(root, func(n ast.Node) bool {
		if n == nil {
			switch stack[len(stack)-1].(type) {
			case *ast.FuncDecl, *ast.FuncLit:
				in = in[:len(in)-1]
			}
			stack = stack[:len(stack)-1]
			return true
		}
		switch n := n.(type) {
		case *ast.FuncDecl:
			fn, _ := info.Defs[n.Name].(*types.Func)
			in = append(in, scope{fn: fn})
		case *ast.FuncLit:
			in = append(in, scope{lit: n})
		case *ast.Ident:
			if keep(n) {
				u := use{id: n, parents: append([]ast.Node(nil), stack[max(0, len(stack)-maxUseParents):]...)}
				if len(in) > 0 {
					u.in = in[len(in)-1]
				}
				add(u)
			}
		}
		stack = append(stack, n)
		return true
	})
}

// callerExits reports whether every caller of fn ends the process, or returns the error to
// a caller that does, as soon as fn returns an error: the error returns of a command's
// run() error under main's if err := run(); err != nil { log.Fatal(err) } leave nothing
// behind that outlives the process. Only a function no other package can call qualifies
// (unexported, or in package main), used at least once, used as a value only as a
// command-line action (actionUse), and not a method an interface of the package could
// call. A cycle of calls proves nothing: the function's own recursive call is a caller that
// does not exit.
func (p *pkgChecker) callerExits(fn *types.Func) bool {
	return memoized(&p.exits, fn, p.computeCallerExits)
}

// memoized returns compute(fn), computed once per fn into *m. While it is computed, fn's
// entry is false: a recursion (a cycle of callers, a method calling itself) proves nothing
// and adds nothing.
func memoized(m *map[*types.Func]bool, fn *types.Func, compute func(*types.Func) bool) bool {
	if v, ok := (*m)[fn]; ok {
		return v
	}
	if *m == nil {
		*m = map[*types.Func]bool{}
	}
	(*m)[fn] = false
	v := compute(fn)
	(*m)[fn] = v
	return v
}

func (p *pkgChecker) computeCallerExits(fn *types.Func) bool {
	sig := fn.Type().(*types.Signature)
	if !returnsError(sig) {
		return false
	}
	if fn.Exported() && p.pass.Pkg.Name() != "main" {
		return false
	}
	if sig.Recv() != nil && p.interfaceHasMethod(fn.Name()) {
		return false
	}
	uses := p.funcUses()[fn]
	if len(uses) == 0 {
		return false
	}
	for _, u := range uses {
		if !p.useExits(u) {
			return false
		}
	}
	return true
}

// interfaceHasMethod reports whether an interface type declared in the package has a method
// of this name: a call through it reaches the method unseen.
func (p *pkgChecker) interfaceHasMethod(name string) bool {
	for _, tv := range p.pass.TypesInfo.Types {
		if it, ok := tv.Type.(*types.Interface); ok {
			for i := 0; i < it.NumMethods(); i++ {
				if it.Method(i).Name() == name {
					return true
				}
			}
		}
	}
	return false
}

// useExits reports whether u is a call whose error ends the process: log.Fatal(run()),
// return run() in a function whose callers exit, or the error assigned and tested at once,
// if err := run(); err != nil { … os.Exit(1) } or err := run() followed by that if.
func (p *pkgChecker) useExits(u use) bool {
	info := p.pass.TypesInfo
	fun, i := u.valueOf()
	at := u.at
	call, ok := at(i).(*ast.CallExpr)
	if !ok || ast.Unparen(call.Fun) != fun {
		return p.actionUse(fun, at(i)) // a value: exits only as a command-line action
	}
	switch parent := at(i + 1).(type) {
	case *ast.CallExpr:
		return endsProcess(info, parent) // log.Fatal(run())
	case *ast.ReturnStmt:
		return len(parent.Results) > 0 && parent.Results[len(parent.Results)-1] == call && p.scopeExits(u.in)
	case *ast.AssignStmt:
		if len(parent.Rhs) != 1 || len(parent.Lhs) == 0 {
			return false
		}
		id, ok := parent.Lhs[len(parent.Lhs)-1].(*ast.Ident)
		if !ok {
			return false
		}
		errObj := info.ObjectOf(id)
		if errObj == nil {
			return false
		}
		switch outer := at(i + 2).(type) {
		case *ast.IfStmt:
			return outer.Init == parent && p.exitBranch(outer, errObj, u.in)
		case *ast.BlockStmt:
			return p.nextExits(outer.List, parent, errObj, u.in)
		case *ast.CaseClause:
			return p.nextExits(outer.Body, parent, errObj, u.in)
		}
	}
	return false
}

// endsProcess reports whether call ends the process: os.Exit, log.Fatal, klog.Fatal, a
// panic. t.Fatal and runtime.Goexit end a goroutine only, and what it left open outlives it.
func endsProcess(info *types.Info, call *ast.CallExpr) bool {
	if fn, _ := typeInfoCallee(info, call); fn != nil && fn.Pkg() != nil {
		if p := fn.Pkg().Path(); p == "testing" || p == "runtime" {
			return false
		}
	}
	return neverReturns(info, call)
}

// nextExits reports whether, after s in list, the first statement that mentions errObj is
// an if that exits on it, or returns it to callers that do, and none before it can leave
// the block (a return, a branch, a call that never returns, or a panic): err := run();
// fmt.Println("done"); if err != nil { os.Exit(1) }, or err = run(); return err.
func (p *pkgChecker) nextExits(list []ast.Stmt, s ast.Stmt, errObj types.Object, in scope) bool {
	info := p.pass.TypesInfo
	i := slices.Index(list, s)
	if i < 0 {
		return false
	}
	for _, x := range list[i+1:] {
		if mentionsObj(info, x, errObj) {
			if ret, ok := x.(*ast.ReturnStmt); ok { // return err, to callers that exit on it
				return len(ret.Results) > 0 && isIdentOf(info, ret.Results[len(ret.Results)-1], errObj) && p.scopeExits(in)
			}
			ifs, ok := x.(*ast.IfStmt)
			return ok && ifs.Init == nil && p.exitBranch(ifs, errObj, in)
		}
		if mayLeave(info, x) {
			return false
		}
	}
	return false
}

// mayLeave reports whether s may leave its block other than by falling through.
func mayLeave(info *types.Info, s ast.Stmt) bool {
	found := false
	ast.Inspect(s, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt, *ast.BranchStmt:
			found = true
		case *ast.CallExpr:
			found = found || neverReturns(info, n)
		}
		return !found
	})
	return found
}

// exitBranch reports whether ifs tests errObj against nil and its branch for a non-nil
// error (the body of err != nil, the else of err == nil) ends the process: no statement
// before its last can leave it, and its last statement ends it, or returns the error
// (return err, return fmt.Errorf("…: %w", err)) from a function whose callers exit.
func (p *pkgChecker) exitBranch(ifs *ast.IfStmt, errObj types.Object, in scope) bool {
	info := p.pass.TypesInfo
	cond, ok := ast.Unparen(ifs.Cond).(*ast.BinaryExpr)
	if !ok || (cond.Op != token.NEQ && cond.Op != token.EQL) {
		return false
	}
	x, y := cond.X, cond.Y
	if isNilIdent(info, x) {
		x, y = y, x
	}
	if id, ok := ast.Unparen(x).(*ast.Ident); !ok || info.ObjectOf(id) != errObj || !isNilIdent(info, y) {
		return false
	}
	branch := ifs.Body
	if cond.Op == token.EQL {
		branch, _ = ifs.Else.(*ast.BlockStmt)
	}
	if branch == nil || len(branch.List) == 0 {
		return false
	}
	for _, x := range branch.List[:len(branch.List)-1] {
		if mayLeave(info, x) {
			return false // if verbose { log.Print(err); return nil }: the error may be dropped
		}
	}
	switch last := branch.List[len(branch.List)-1].(type) {
	case *ast.ExprStmt:
		call, ok := ast.Unparen(last.X).(*ast.CallExpr)
		return ok && endsProcess(info, call)
	case *ast.ReturnStmt:
		return len(last.Results) > 0 && mentionsObj(info, last.Results[len(last.Results)-1], errObj) && p.scopeExits(in)
	}
	return false
}

// callerExits reports whether the function checked is one whose callers all end the
// process on its error.
func (w *walker) callerExits() bool {
	fd, ok := w.fnNode.(*ast.FuncDecl)
	if !ok {
		lit, ok := w.fnNode.(*ast.FuncLit)
		return ok && (w.p.actionSlots()[lit] || w.p.closureExits(lit))
	}
	fn, ok := w.p.pass.TypesInfo.Defs[fd.Name].(*types.Func)
	return ok && w.p.callerExits(fn)
}

// closureExits reports whether lit is bound to a closure variable (closureVars) whose every
// use is a call that ends the process on its error, or returns the error from a scope whose
// callers do: tailscale's CRD generator binds addCRDToHelm := func(…) error {…} and calls it
// only as if err := addCRDToHelm(…); err != nil { return fmt.Errorf("…: %w", …, err) }, in
// a generate whose every caller in main log.Fatal's.
func (p *pkgChecker) closureExits(lit *ast.FuncLit) bool {
	info := p.pass.TypesInfo
	var v types.Object
	var body *ast.BlockStmt
	var own scope
	for _, f := range p.pass.Files {
		if !within(f, lit) {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if v != nil {
				return false
			}
			var b *ast.BlockStmt
			var s scope
			switch n := n.(type) {
			case *ast.FuncDecl:
				fn, _ := info.Defs[n.Name].(*types.Func)
				b, s = n.Body, scope{fn: fn}
			case *ast.FuncLit:
				b, s = n.Body, scope{lit: n}
			default:
				return true
			}
			if b == nil || !within(b, lit) {
				return false
			}
			for o, l := range p.closureVars(b) {
				if l == lit {
					v, body, own = o, b, s
				}
			}
			return true
		})
	}
	if v == nil {
		return false
	}
	var uses []use
	eachUse(info, body, []scope{own}, func(id *ast.Ident) bool { return info.Uses[id] == v }, func(u use) { uses = append(uses, u) })
	return len(uses) > 0 && !slices.ContainsFunc(uses, func(u use) bool { return !p.useExits(u) })
}

// diesWithProcess reports whether what the acquisition holds ends with the process: a lock
// (a mutex, a flock), or what a Close gives back (a file, a connection, a listener). A link,
// an address, an allocation or a volume is kept by the kernel or another process, and an
// exit leaves it behind.
func (w *walker) diesWithProcess() bool {
	if isLock(w.a) {
		return true
	}
	rel, _ := w.releaseText()
	return rel == "Close" || strings.HasSuffix(rel, ".Close")
}

// isIdentOf reports whether e is an identifier of o.
func isIdentOf(info *types.Info, e ast.Expr, o types.Object) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && info.ObjectOf(id) == o
}
