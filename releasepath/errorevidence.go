package releasepath

import (
	"go/ast"
	"go/types"
	"slices"
)

// errorConstructors always return a non-nil error.
var errorConstructors = map[string]bool{
	"errors.New":                   true,
	"fmt.Errorf":                   true,
	"github.com/pkg/errors.New":    true,
	"github.com/pkg/errors.Errorf": true,
}

// errorEvident reports whether the error ret returns is known non-nil on this path. A
// rollback and a pair undone on error returns are reported only at such a return: return
// f() and an error variable no test on the path settled may well be nil, the success path
// of a function that keeps what it created (a CNI plugin's return
// types.PrintResult(result, v) after ipam.ExecAdd).
func (w *walker) errorEvident(ret *ast.ReturnStmt, st *state) bool {
	res := w.sig.Results()
	if ret == nil || res.Len() == 0 || !isError(res.At(res.Len()-1).Type()) {
		return false
	}
	if len(ret.Results) == 0 {
		return slices.Contains(st.errSet, types.Object(res.At(res.Len()-1)))
	}
	if len(ret.Results) < res.Len() {
		return false // return f(): whatever f returns
	}
	return w.nonNilError(ret.Results[len(ret.Results)-1], st)
}

// nonNilError reports whether e is an error known non-nil on this path: a variable on the
// true edge of a test against nil, a call of errors.New or fmt.Errorf, a package's error
// variable (io.EOF, ErrNotFound), a composite literal, or a call passed such an error
// (errors.Wrap(err, "…"), status.Errorf(codes.Internal, "%v", err)).
func (w *walker) nonNilError(e ast.Expr, st *state) bool {
	info := w.p.pass.TypesInfo
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		o := info.ObjectOf(x)
		return slices.Contains(st.errSet, o) || isPackageVar(o)
	case *ast.SelectorExpr:
		if _, ok := info.Selections[x]; !ok {
			return isPackageVar(info.Uses[x.Sel]) // io.EOF
		}
	case *ast.CompositeLit:
		return true
	case *ast.UnaryExpr:
		_, lit := ast.Unparen(x.X).(*ast.CompositeLit)
		return lit // &MyError{…}
	case *ast.CallExpr:
		if fn, ok := typeInfoCallee(info, x); ok && errorConstructors[funcName(fn)] {
			return true
		}
		for _, arg := range x.Args {
			if t := info.TypeOf(arg); t != nil && isError(t) && w.nonNilError(arg, st) {
				return true
			}
		}
	}
	return false
}

// isPackageVar reports whether o is a variable declared at package level, of an error type:
// a sentinel, set once and never nil.
func isPackageVar(o types.Object) bool {
	v, ok := o.(*types.Var)
	return ok && v.Pkg() != nil && v.Parent() == v.Pkg().Scope() && isError(v.Type())
}
