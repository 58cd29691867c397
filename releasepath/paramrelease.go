package releasepath

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// paramRelease makes the parameters of a function literal called where it is written, or
// through a closure variable (closureVars), acquired values when the call passes them one: f
// in defer func(f *os.File) { f.Close() }(x), so that the literal's f.Close releases x. A parameter passed the root of the acquisition's
// receiver stands for it: fs in defer func(fs *T) { fs.mu.Unlock() }(fs) after fs.mu.Lock().
func (p *pkgChecker) paramRelease(a *acquisition, body *ast.BlockStmt) {
	info := p.pass.TypesInfo
	recvRoot := rootObj(info, receiver(info, a.call))
	a.litArgs = map[types.Object]string{}
	for _, lc := range p.index(body).litCalls {
		call, lit := lc.call, lc.lit
		params := litParams(info, lit)
		if len(params) != len(call.Args) {
			continue
		}
		changed := assignedIn(info, lit.Body)
		for i, arg := range call.Args {
			if params[i] == nil || changed[params[i]] {
				continue // x = other inside the literal: its release is another value's
			}
			if id, ok := ast.Unparen(arg).(*ast.Ident); ok && recvRoot != nil && info.Uses[id] == recvRoot {
				if a.recvAlias == nil {
					a.recvAlias = map[string]string{}
				}
				a.recvAlias[objID(params[i])] = objID(recvRoot)
				a.litArgs[params[i]] = id.Name
			}
			if k, ok := exprKey(info, arg); ok && a.recvKey != "" && k == a.recvKey && params[i] != nil {
				// unlock(&p.mu) for unlock := func(m *sync.Mutex) { m.Unlock() }: the
				// parameter is the lock itself.
				if a.recvAlias == nil {
					a.recvAlias = map[string]string{}
				}
				a.recvAlias[objID(params[i])] = a.recvKey
				a.litArgs[params[i]] = types.ExprString(addrOperand(arg))
			}
			if o := rootObj(info, arg); o != nil && params[i] != nil {
				if id, ok := ast.Unparen(arg).(*ast.Ident); ok && (a.values[o] || a.basic[o]) && info.Uses[id] == o {
					if a.values[o] {
						a.values[params[i]] = true
					} else {
						a.basic[params[i]] = true
					}
					a.litArgs[params[i]] = id.Name
				}
			}
		}
	}
}

// assignedIn returns the variables body assigns or takes the address of.
func assignedIn(info *types.Info, body ast.Node) map[types.Object]bool {
	out := map[types.Object]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		var targets []ast.Expr
		switch n := n.(type) {
		case *ast.AssignStmt:
			targets = n.Lhs
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				targets = []ast.Expr{n.X}
			}
		case *ast.IncDecStmt:
			targets = []ast.Expr{n.X}
		}
		for _, t := range targets {
			if id, ok := ast.Unparen(t).(*ast.Ident); ok {
				if o := info.Uses[id]; o != nil {
					out[o] = true
				}
			}
		}
		return true
	})
	return out
}

// outerText names a release made through a literal's parameter by the value the literal was
// passed: s.mu.Unlock, not x.mu.Unlock, whose x is out of scope at the return.
func (a *acquisition) outerText(info *types.Info, r *releaseCall) string {
	recv := receiver(info, r.call)
	if recv == nil {
		return r.text
	}
	root := rootObj(info, recv)
	name, ok := a.litArgs[root]
	if !ok {
		return r.text
	}
	return name + strings.TrimPrefix(r.text, root.Name())
}

// addrOperand returns x of &x, and e otherwise.
func addrOperand(e ast.Expr) ast.Expr {
	if u, ok := ast.Unparen(e).(*ast.UnaryExpr); ok && u.Op == token.AND {
		return u.X
	}
	return e
}
