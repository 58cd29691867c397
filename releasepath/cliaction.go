package releasepath

import (
	"go/ast"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// isCLIFramework reports whether path is a command-line framework that ends the process on
// a command's error: urfave/cli (every major version) and cobra return the error of an
// action, a Before hook or a RunE from Run or Execute to main, which exits with it, and the
// CNI plugin skeleton (skel.PluginMainFuncs, skel.PluginMain) prints a plugin's error and
// calls os.Exit itself: a CNI plugin is a process per command.
func isCLIFramework(path string) bool {
	return path == "github.com/urfave/cli" || strings.HasPrefix(path, "github.com/urfave/cli/v") ||
		path == "github.com/spf13/cobra" || path == "github.com/containernetworking/cni/pkg/skel"
}

// isActionField reports whether v is a field of a framework's command that holds a function
// whose error the framework returns: a function-typed field whose last result is an error
// (Action, Before, RunE, PreRunE), or urfave/cli v1's Action, an interface{}.
func isActionField(v *types.Var) bool {
	if v == nil || !v.IsField() || v.Pkg() == nil || !isCLIFramework(v.Pkg().Path()) {
		return false
	}
	if _, ok := v.Type().Underlying().(*types.Signature); ok {
		return returnsError(v.Type())
	}
	return v.Name() == "Action"
}

// isPreHook reports whether v, an action field, holds a hook the framework runs before the
// command's action: urfave/cli's Before, cobra's PreRun, PreRunE, PersistentPreRun and
// PersistentPreRunE. The action runs after its success.
func isPreHook(v *types.Var) bool {
	n := v.Name()
	return n == "Before" || strings.HasPrefix(n, "PreRun") || strings.HasPrefix(n, "PersistentPreRun")
}

// returnsError reports whether t is a function type whose last result is an error.
func returnsError(t types.Type) bool {
	sig, ok := t.Underlying().(*types.Signature)
	if !ok {
		return false
	}
	res := sig.Results()
	return res.Len() > 0 && isError(res.At(res.Len()-1).Type())
}

// actionSlots returns the expressions the package stores as a framework command's action,
// found in one walk: the value of cli.Command{Action: e}, the right side of cmd.RunE = e,
// and an argument of a framework's function whose parameter is a function returning an
// error (skel.PluginMain(cmdAdd, cmdCheck, cmdDel, …)); also e in a conversion stored
// there, cli.ActionFunc(e).
func (p *pkgChecker) actionSlots() map[ast.Expr]bool {
	if p.actions != nil {
		return p.actions
	}
	p.actions = map[ast.Expr]bool{}
	p.preHooks = map[ast.Expr]bool{}
	info := p.pass.TypesInfo
	add := func(e ast.Expr) {
		for {
			e = ast.Unparen(e)
			p.actions[e] = true
			conv, ok := e.(*ast.CallExpr)
			if !ok || len(conv.Args) != 1 || !info.Types[conv.Fun].IsType() {
				return
			}
			e = conv.Args[0]
		}
	}
	for _, f := range p.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.KeyValueExpr:
				if key, ok := n.Key.(*ast.Ident); ok {
					if v, ok := info.ObjectOf(key).(*types.Var); ok && isActionField(v) {
						add(n.Value)
						if isPreHook(v) {
							p.preHooks[ast.Unparen(n.Value)] = true
						}
					}
				}
			case *ast.CallExpr:
				fn := typeutil.StaticCallee(info, n)
				if fn == nil || fn.Pkg() == nil || !isCLIFramework(fn.Pkg().Path()) {
					return true
				}
				params := fn.Type().(*types.Signature).Params()
				for i, a := range n.Args {
					if i < params.Len() && returnsError(params.At(i).Type()) {
						add(a)
					}
				}
			case *ast.AssignStmt:
				if len(n.Lhs) != len(n.Rhs) {
					return true
				}
				for i, l := range n.Lhs {
					sel, ok := ast.Unparen(l).(*ast.SelectorExpr)
					if !ok {
						continue
					}
					if s := info.Selections[sel]; s != nil && s.Kind() == types.FieldVal {
						if v, ok := s.Obj().(*types.Var); ok && isActionField(v) {
							add(n.Rhs[i])
							if isPreHook(v) {
								p.preHooks[ast.Unparen(n.Rhs[i])] = true
							}
						}
					}
				}
			}
			return true
		})
	}
	return p.actions
}

// actionUse reports whether fun, a function of the package used as a value in parent,
// becomes a command's action: stored as one (Action: buildAction), or passed to a function
// of the package, stored as one, that returns a literal returning fun's call
// (Action: commandAction(buildAction) for func commandAction(fn func(*cli.Command) error)
// cli.ActionFunc { return func(_ context.Context, c *cli.Command) error { return fn(c) } }).
// Either way its error is the command's.
func (p *pkgChecker) actionUse(fun ast.Node, parent ast.Node) bool {
	slots := p.actionSlots()
	e, ok := fun.(ast.Expr)
	if !ok {
		return false
	}
	if slots[e] {
		return true
	}
	call, ok := parent.(*ast.CallExpr)
	if !ok || !slots[call] || call.Ellipsis.IsValid() {
		return false
	}
	i := slices.IndexFunc(call.Args, func(a ast.Expr) bool { return a == e })
	w := typeutil.StaticCallee(p.pass.TypesInfo, call)
	if i < 0 || w == nil || w.Type().(*types.Signature).Variadic() {
		return false
	}
	fd := p.decls[w]
	return fd != nil && p.returnsCallOf(fd, i)
}

// returnsCallOf reports whether fd, a function of one result, uses its parameter i only to
// call it in the last result of a return in a literal that fd itself returns: whatever
// calls that literal gets the parameter's error.
func (p *pkgChecker) returnsCallOf(fd *ast.FuncDecl, i int) bool {
	info := p.pass.TypesInfo
	fn, ok := info.Defs[fd.Name].(*types.Func)
	if !ok {
		return false
	}
	sig := fn.Type().(*types.Signature)
	if sig.Results().Len() != 1 || i >= sig.Params().Len() {
		return false
	}
	param := sig.Params().At(i)
	uses, bad := 0, false
	var stack []ast.Node
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if id, ok := n.(*ast.Ident); ok && info.Uses[id] == param {
			uses++
			bad = bad || !returnedCallInReturnedLit(id, stack)
		}
		stack = append(stack, n)
		return !bad
	})
	return uses > 0 && !bad
}

// returnedCallInReturnedLit reports whether id, with its ancestors in stack (from the
// body of the function declared down), is called as the last result of a return of the
// outermost literal, which the function returns: return func(…) error { return id(…) }.
func returnedCallInReturnedLit(id *ast.Ident, stack []ast.Node) bool {
	n := len(stack)
	if n != 6 { // the body, a return, the literal, its body, a return, the call
		return false
	}
	call, ok := stack[n-1].(*ast.CallExpr)
	if !ok || call.Fun != id {
		return false
	}
	ret, ok := stack[n-2].(*ast.ReturnStmt)
	if !ok || len(ret.Results) == 0 || ret.Results[len(ret.Results)-1] != call {
		return false
	}
	outer, ok := stack[1].(*ast.ReturnStmt)
	if !ok || len(outer.Results) != 1 {
		return false
	}
	lit, ok := stack[2].(*ast.FuncLit)
	return ok && outer.Results[0] == lit && stack[3] == lit.Body
}
