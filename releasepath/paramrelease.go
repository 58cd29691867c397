package releasepath

import (
	"go/ast"
	"go/types"
)

// paramRelease makes the parameters of a function literal called where it is written
// acquired values when the call passes them one: f in defer func(f *os.File) { f.Close() }(x),
// so that the literal's f.Close releases x. A parameter passed the root of the acquisition's
// receiver stands for it: fs in defer func(fs *T) { fs.mu.Unlock() }(fs) after fs.mu.Lock().
func (p *pkgChecker) paramRelease(a *acquisition, body *ast.BlockStmt) {
	info := p.pass.TypesInfo
	recvRoot := rootObj(info, receiver(info, a.call))
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		lit, ok := ast.Unparen(call.Fun).(*ast.FuncLit)
		if !ok {
			return true
		}
		var params []types.Object
		for _, f := range lit.Type.Params.List {
			for _, id := range f.Names {
				params = append(params, info.Defs[id])
			}
			if len(f.Names) == 0 {
				params = append(params, nil)
			}
		}
		if len(params) != len(call.Args) {
			return true
		}
		for i, arg := range call.Args {
			if id, ok := ast.Unparen(arg).(*ast.Ident); ok && recvRoot != nil && params[i] != nil && info.Uses[id] == recvRoot {
				if a.recvAlias == nil {
					a.recvAlias = map[string]string{}
				}
				a.recvAlias[objID(params[i])] = objID(recvRoot)
			}
			if o := rootObj(info, arg); o != nil && params[i] != nil {
				if id, ok := ast.Unparen(arg).(*ast.Ident); ok && (a.values[o] || a.basic[o]) && info.Uses[id] == o {
					if a.values[o] {
						a.values[params[i]] = true
					} else {
						a.basic[params[i]] = true
					}
				}
			}
		}
		return true
	})
}
