package releasepath

import (
	"go/ast"
	"go/constant"
	"go/token"
	"slices"
)

// sameValue reports whether call, a release candidate for a, releases the same thing: it takes
// no arguments but contexts, or one of its arguments is the acquired value or is rooted at
// the same types.Object as one of the acquisition's arguments, or is a constant equal to one
// of them. m.ReleaseAddress(other) after m.HoldAddress(a) releases something else.
func (p *pkgChecker) sameValue(a *acquisition, call *ast.CallExpr) bool {
	info := p.pass.TypesInfo
	var consts []constant.Value
	for _, arg := range a.call.Args {
		if tv, ok := info.Types[arg]; ok && tv.Value != nil {
			consts = append(consts, tv.Value)
		}
	}
	n := 0
	for _, arg := range call.Args {
		if t := info.TypeOf(arg); t != nil && isContext(t) {
			continue
		}
		n++
		if tv, ok := info.Types[arg]; ok && tv.Value != nil {
			if slices.ContainsFunc(consts, func(c constant.Value) bool {
				return c.Kind() == tv.Value.Kind() && constant.Compare(c, token.EQL, tv.Value)
			}) {
				return true
			}
			continue
		}
		if o := rootObj(info, arg); o != nil && (a.values[o] || a.basic[o] || a.argRoots[o]) {
			return true
		}
	}
	return n == 0
}
