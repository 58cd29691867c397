package releasepath

import (
	"go/ast"
	"go/types"
)

// A bodyIndex is what several rules read of a function body, gathered in one walk of it: a
// body is walked once, not once for each acquisition in it. Long message builders (netlink's
// request functions, hundreds of AddRtAttr calls each a candidate) made those walks the most
// of the analyzer's own cost.
type bodyIndex struct {
	gives        []given             // each variable given a value (eachGiven), in order
	litCalls     []litCall           // the calls of function literals (calledLiteral), in order
	methodValues []*ast.SelectorExpr // the method values not called where written, in order
}

// A given is one variable named on the left of an assignment, a var declaration or a range,
// with its value there, or nil when that is no single expression of its own.
type given struct {
	id    *ast.Ident
	value ast.Expr
}

// A litCall is a call of a function literal, directly or through a closure variable.
type litCall struct {
	call *ast.CallExpr
	lit  *ast.FuncLit
}

// index returns body's index, made on first use.
func (p *pkgChecker) index(body *ast.BlockStmt) *bodyIndex {
	if x, ok := p.indexes[body]; ok {
		return x
	}
	x := &bodyIndex{}
	eachGiven(body, func(id *ast.Ident, value ast.Expr) { x.gives = append(x.gives, given{id, value}) })
	called := map[ast.Expr]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			called[ast.Unparen(n.Fun)] = true
			if lit := p.calledLiteral(n, body); lit != nil {
				x.litCalls = append(x.litCalls, litCall{n, lit})
			}
		case *ast.SelectorExpr:
			// A call's function is visited after the call: called holds it by then.
			if s, ok := p.pass.TypesInfo.Selections[n]; ok && s.Kind() == types.MethodVal && !called[n] {
				x.methodValues = append(x.methodValues, n)
			}
		}
		return true
	})
	if p.indexes == nil {
		p.indexes = map[*ast.BlockStmt]*bodyIndex{}
	}
	p.indexes[body] = x
	return x
}
