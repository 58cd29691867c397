package releasepath

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// commandEnds reports whether every return of the function checked ends the process, on
// success as on error: it is a command of package main, every use of which is as one, so
// that no caller goes on after it, and main ends once it returns. A command is an action of
// a command-line framework that main runs last (mainEndsAtFramework: cobra's Execute,
// urfave/cli's Run and the CNI skeleton return to main after the action, whatever it
// returned), or a function stored in a command table whose calls main makes last
// (tableUse).
func (w *walker) commandEnds() bool {
	if w.p.mainBody() == nil {
		return false // no package main, or a main that defers work
	}
	switch fn := w.fnNode.(type) {
	case *ast.FuncLit:
		if kv := w.p.keyedValue(fn); kv != nil && w.p.tableUse(fn, kv) {
			return true // command{action: func(…) (int, error) { … }}
		}
		return w.p.actionSlots()[fn] && !w.p.preHooks[fn] && w.p.mainEndsAtFramework()
	case *ast.FuncDecl:
		obj, ok := w.p.pass.TypesInfo.Defs[fn.Name].(*types.Func)
		if !ok || w.p.mainBody() == nil {
			return false
		}
		uses := w.p.funcUses()[obj]
		for _, u := range uses {
			fun, i := u.valueOf()
			if e, ok := fun.(ast.Expr); ok && w.p.actionSlots() != nil && w.p.preHooks[e] {
				return false // Before: the command's action runs after it
			}
			if !(w.p.actionUse(fun, u.at(i)) && w.p.mainEndsAtFramework()) && !w.p.tableUse(fun, u.at(i)) {
				return false // called: its caller goes on after a success
			}
		}
		return len(uses) > 0
	}
	return false
}

// valueOf returns the expression u makes of its function, the identifier or a method value
// (opts.run) or an instantiation (load[T]), and which ancestor of u is that expression's
// parent: u.at(i).
func (u use) valueOf() (fun ast.Node, i int) {
	fun = u.id
	if sel, ok := u.at(i).(*ast.SelectorExpr); ok && sel.Sel == u.id {
		fun = sel
		i++
	}
	switch x := u.at(i).(type) {
	case *ast.IndexExpr, *ast.IndexListExpr:
		fun = x
		i++
	}
	return fun, i
}

// at returns u's i-th ancestor, 0 its parent, or nil past the ones it keeps.
func (u use) at(i int) ast.Node {
	if i >= len(u.parents) {
		return nil
	}
	return u.parents[len(u.parents)-1-i]
}

// mainEndsAtFramework reports whether the package is a command whose main runs a
// command-line framework and then ends: the framework's call is a statement of main's body
// (root.Execute(), log.Fatal(app.Run(os.Args)), err := root.Execute(), or if err :=
// root.Execute(); err != nil { … } with no else), and every statement after it is an if
// on that call's error with no else, skipped when the command succeeded, or ends the
// process (os.Exit(0)). Anything else after it (a log line, a cleanup, another command)
// runs after a command's success, and the command's returns keep their findings.
func (p *pkgChecker) mainEndsAtFramework() bool {
	if p.mainEnds != nil {
		return *p.mainEnds
	}
	v := p.computeMainEnds()
	p.mainEnds = &v
	return v
}

func (p *pkgChecker) computeMainEnds() bool {
	body := p.mainBody()
	if body == nil {
		return false
	}
	for i, s := range body.List {
		if errObj, ok := p.runsFramework(s); ok {
			return p.endsAfter(body.List[i+1:], errObj)
		}
	}
	return false
}

// endsAfter reports whether main ends once the statements after a command's run have run:
// each is an if on the run's error with no else (if err != nil { … }), or ends the process.
func (p *pkgChecker) endsAfter(rest []ast.Stmt, errObj types.Object) bool {
	info := p.pass.TypesInfo
	for _, after := range rest {
		if !skippedOnSuccess(info, after, errObj) && !endsProcessStmt(info, after) {
			return false
		}
	}
	return true
}

// keyedValue returns the key-value pair of a composite literal whose value is lit, if any.
// The pairs of the package are indexed once.
func (p *pkgChecker) keyedValue(lit *ast.FuncLit) *ast.KeyValueExpr {
	if p.keyedLits == nil {
		p.keyedLits = map[*ast.FuncLit]*ast.KeyValueExpr{}
		for _, f := range p.pass.Files {
			ast.Inspect(f, func(n ast.Node) bool {
				if kv, ok := n.(*ast.KeyValueExpr); ok {
					if l, ok := kv.Value.(*ast.FuncLit); ok {
						p.keyedLits[l] = kv
					}
				}
				return true
			})
		}
	}
	return p.keyedLits[lit]
}

// tableUse reports whether fun, a function of package main used as a value in parent, is
// stored in a command table that main runs last: the value of a function-typed field of a
// struct of the package (command{action: getBigData}) that is called nowhere but as a
// statement of main's body after which main ends (res, err := command.action(…); if err
// != nil { … }; os.Exit(res)), and used in no other way.
func (p *pkgChecker) tableUse(fun, parent ast.Node) bool {
	kv, ok := parent.(*ast.KeyValueExpr)
	if !ok || kv.Value != fun {
		return false
	}
	key, ok := kv.Key.(*ast.Ident)
	if !ok {
		return false
	}
	f, ok := p.pass.TypesInfo.Uses[key].(*types.Var)
	return ok && f.IsField() && f.Pkg() == p.pass.Pkg && p.fieldRunsAtEnd(f)
}

// fieldRunsAtEnd reports whether every use of the field f is a key of a composite literal
// or a call of f that main makes last (tableUse), and there is such a call.
func (p *pkgChecker) fieldRunsAtEnd(f *types.Var) bool {
	if v, ok := p.tableFields[f]; ok {
		return v
	}
	if p.tableFields == nil {
		p.tableFields = map[*types.Var]bool{}
	}
	v := p.computeFieldRunsAtEnd(f)
	p.tableFields[f] = v
	return v
}

func (p *pkgChecker) computeFieldRunsAtEnd(f *types.Var) bool {
	body := p.mainBody()
	if body == nil {
		return false
	}
	info := p.pass.TypesInfo
	// The calls main makes last: a statement of its body that calls f (also in an if's
	// init with no else), with only an error test and an exit after it.
	last := map[*ast.Ident]bool{}
	for i, s := range body.List {
		var call ast.Expr
		var errObj types.Object
		assign := func(a *ast.AssignStmt) {
			if len(a.Rhs) == 1 {
				call = a.Rhs[0]
				if id, ok := a.Lhs[len(a.Lhs)-1].(*ast.Ident); ok && isError(info.TypeOf(id)) {
					errObj = info.ObjectOf(id)
				}
			}
		}
		switch s := s.(type) {
		case *ast.ExprStmt:
			call = s.X
		case *ast.AssignStmt:
			assign(s)
		case *ast.IfStmt:
			// if err := cmd.run(args); err != nil { … }: its err ends with the if.
			if init, ok := s.Init.(*ast.AssignStmt); ok && s.Else == nil {
				assign(init)
				if errObj == nil || !testsNonNil(info, s.Cond, errObj) {
					continue
				}
				errObj = nil
			}
		}
		c, ok := ast.Unparen(call).(*ast.CallExpr)
		if !ok {
			continue
		}
		sel, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr)
		if ok && info.Uses[sel.Sel] == f && p.endsAfter(body.List[i+1:], errObj) {
			last[sel.Sel] = true
		}
	}
	if len(last) == 0 {
		return false
	}
	keys := map[*ast.Ident]bool{} // composite keys, and reads in a nil test (cmd.action == nil)
	for _, file := range p.pass.Files {
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.KeyValueExpr:
				if id, ok := n.Key.(*ast.Ident); ok {
					keys[id] = true
				}
			case *ast.BinaryExpr:
				for _, x := range [][2]ast.Expr{{n.X, n.Y}, {n.Y, n.X}} {
					if sel, ok := ast.Unparen(x[0]).(*ast.SelectorExpr); ok && isNilIdent(info, x[1]) {
						keys[sel.Sel] = true
					}
				}
			}
			return true
		})
	}
	for id, o := range info.Uses {
		if o == f && !keys[id] && !last[id] {
			return false // read, assigned or called elsewhere
		}
	}
	return true
}

// mainBody returns the body of the package's func main, if it is package main and main
// defers nothing but the cancel of a context (defer cancel()): any other deferred call
// (defer shutdown()) runs after the command returns.
func (p *pkgChecker) mainBody() *ast.BlockStmt {
	if p.pass.Pkg.Name() != "main" {
		return nil
	}
	if p.mainDone {
		return p.main
	}
	p.mainDone = true
	p.main = p.findMain()
	return p.main
}

// findMain returns the body of func main, if it defers nothing but a context's cancel.
func (p *pkgChecker) findMain() *ast.BlockStmt {
	for _, f := range p.pass.Files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "main" && fd.Body != nil {
				if !p.defersOnlyCancel(fd.Body) {
					return nil
				}
				return fd.Body
			}
		}
	}
	return nil
}

// defersOnlyCancel reports whether every defer of body, outside its literals, calls a
// context.CancelFunc.
func (p *pkgChecker) defersOnlyCancel(body *ast.BlockStmt) bool {
	ok := true
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.DeferStmt:
			t, _ := p.pass.TypesInfo.TypeOf(n.Call.Fun).(*types.Named)
			ok = ok && t != nil && t.Obj().Pkg() != nil && t.Obj().Pkg().Path() == "context" && t.Obj().Name() == "CancelFunc"
		}
		return ok
	})
	return ok
}

// runsFramework reports whether s runs a command-line framework, a call of which it is (or
// whose result a call that ends the process takes), and the variable it assigns the
// framework's error to, if any: an if's init counts only without an else, which would run
// after a success.
func (p *pkgChecker) runsFramework(s ast.Stmt) (errObj types.Object, ok bool) {
	info := p.pass.TypesInfo
	switch s := s.(type) {
	case *ast.ExprStmt:
		call, ok := ast.Unparen(s.X).(*ast.CallExpr)
		if !ok {
			return nil, false
		}
		if isFrameworkRun(info, call) {
			return nil, true
		}
		if endsProcess(info, call) { // log.Fatal(app.Run(os.Args)): ends either way
			for _, a := range call.Args {
				if c, ok := ast.Unparen(a).(*ast.CallExpr); ok && isFrameworkRun(info, c) {
					return nil, true
				}
			}
		}
	case *ast.AssignStmt:
		return frameworkAssign(info, s)
	case *ast.IfStmt:
		init, ok := s.Init.(*ast.AssignStmt)
		if !ok || s.Else != nil {
			return nil, false
		}
		errObj, ok := frameworkAssign(info, init)
		return nil, ok && testsNonNil(info, s.Cond, errObj)
	}
	return nil, false
}

// frameworkAssign reports whether s assigns a framework's run to one variable, its error.
func frameworkAssign(info *types.Info, s *ast.AssignStmt) (types.Object, bool) {
	if len(s.Lhs) != 1 || len(s.Rhs) != 1 {
		return nil, false
	}
	call, ok := ast.Unparen(s.Rhs[0]).(*ast.CallExpr)
	id, isID := s.Lhs[0].(*ast.Ident)
	if !ok || !isID || !isFrameworkRun(info, call) {
		return nil, false
	}
	o := info.ObjectOf(id)
	return o, o != nil
}

// isFrameworkRun reports whether call runs a command-line framework's commands: cobra's
// Execute, ExecuteC, ExecuteContext and ExecuteContextC, urfave/cli's Run and RunContext,
// or the CNI skeleton's PluginMain functions.
func isFrameworkRun(info *types.Info, call *ast.CallExpr) bool {
	fn := typeutil.StaticCallee(info, call)
	if fn == nil || fn.Pkg() == nil || !isCLIFramework(fn.Pkg().Path()) {
		return false
	}
	n := fn.Name()
	return strings.HasPrefix(n, "Execute") || strings.HasPrefix(n, "Run") || strings.HasPrefix(n, "PluginMain")
}

// skippedOnSuccess reports whether s is an if, with no init and no else, that tests errObj
// against nil and runs only when it is not: if err != nil { … }.
func skippedOnSuccess(info *types.Info, s ast.Stmt, errObj types.Object) bool {
	ifs, ok := s.(*ast.IfStmt)
	return ok && ifs.Init == nil && ifs.Else == nil && testsNonNil(info, ifs.Cond, errObj)
}

// testsNonNil reports whether cond is errObj != nil.
func testsNonNil(info *types.Info, cond ast.Expr, errObj types.Object) bool {
	c, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok || errObj == nil || c.Op != token.NEQ {
		return false
	}
	x, y := c.X, c.Y
	if isNilIdent(info, x) {
		x, y = y, x
	}
	return isIdentOf(info, x, errObj) && isNilIdent(info, y)
}

// endsProcessStmt reports whether s is a call that ends the process: os.Exit(0).
func endsProcessStmt(info *types.Info, s ast.Stmt) bool {
	es, ok := s.(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := ast.Unparen(es.X).(*ast.CallExpr)
	return ok && endsProcess(info, call)
}
