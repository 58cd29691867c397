package releasepath

import (
	"go/ast"
	"go/types"
	"slices"
	"strings"
)

// transaction returns the transaction parameter of lit when lit is a function passed to a
// transaction (db.Update(func(tx *bolt.Tx) error {…}), db.Transaction(func(tx *gorm.DB)
// error {…})): an argument of a call, returning an error, whose parameter is of a type named
// Tx, Txn or Transaction or ending so. An error return from it rolls back everything made
// through that parameter.
func (p *pkgChecker) transaction(lit *ast.FuncLit, sig *types.Signature, stack []ast.Node) types.Object {
	if len(stack) < 2 {
		return nil
	}
	call, ok := stack[len(stack)-2].(*ast.CallExpr)
	if !ok || !slices.Contains(call.Args, ast.Expr(lit)) {
		return nil
	}
	res := sig.Results()
	if res.Len() == 0 || !isError(res.At(res.Len()-1).Type()) {
		return nil
	}
	for i := 0; i < sig.Params().Len(); i++ {
		v := sig.Params().At(i)
		t := v.Type()
		if ptr, ok := t.(*types.Pointer); ok {
			t = ptr.Elem()
		}
		n, ok := types.Unalias(t).(*types.Named)
		if !ok {
			continue
		}
		name := n.Obj().Name()
		for _, suffix := range []string{"Tx", "Txn", "Transaction"} {
			if strings.HasSuffix(name, suffix) {
				return v
			}
		}
	}
	return nil
}
