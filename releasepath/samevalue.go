package releasepath

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"strings"
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
		if o := rootObj(info, arg); o != nil && (a.values[o] || a.basic[o]) {
			return true
		}
		if o := rootObj(info, arg); o != nil && a.argRoots[o] && !p.otherPart(a, arg, o) {
			return true
		}
	}
	return n == 0
}

// otherPart reports whether arg, rooted at o, names another part of o than every argument of
// the acquisition rooted at o: another field (n.b for n.a), another constant element or key
// (s[1] for s[0], m["b"] for m["a"]). A part and what holds it (n and n.a) are the same value,
// and so are two parts told apart only by a variable index.
func (p *pkgChecker) otherPart(a *acquisition, arg ast.Expr, o types.Object) bool {
	info := p.pass.TypesInfo
	path := valuePath(info, arg)
	for _, acq := range a.call.Args {
		if rootObj(info, acq) != o {
			continue
		}
		if !diverges(path, valuePath(info, acq)) {
			return false
		}
	}
	return true
}

// otherPartVia reports whether e, extended by path, the field names a helper of fn's
// package releases on it (".state" for l.unlockState() unlocking l.state), names another
// part of e's root than every argument of a rooted there. A root that is the acquired
// value itself, or a path that does not resolve, is no other part.
func (p *pkgChecker) otherPartVia(a *acquisition, e ast.Expr, fn *types.Func, path string) bool {
	info := p.pass.TypesInfo
	o := rootObj(info, e)
	if o == nil || a.values[o] || path == "" {
		return false
	}
	suffix, ok := resolveFields(info.TypeOf(e), fn.Pkg(), path)
	if !ok {
		return false
	}
	vp := valuePath(info, e)
	for _, id := range strings.Split(suffix, ".")[1:] {
		vp = append(vp, "."+id)
	}
	for _, acq := range a.call.Args {
		if rootObj(info, acq) == o && !diverges(vp, valuePath(info, acq)) {
			return false
		}
	}
	return true
}

// holderOfPart reports whether e, rooted at a variable that is no acquired value, holds an
// argument of a rather than being one: l for rawlock.LockFile(l.fd).
func (p *pkgChecker) holderOfPart(a *acquisition, e ast.Expr) bool {
	info := p.pass.TypesInfo
	o := rootObj(info, e)
	if o == nil || a.values[o] {
		return false
	}
	vp := valuePath(info, e)
	for _, acq := range a.call.Args {
		if rootObj(info, acq) == o {
			if ap := valuePath(info, acq); len(vp) < len(ap) && !diverges(vp, ap) {
				return true
			}
		}
	}
	return false
}

// valuePath is the access path of e from its root: the root object, then a step for each
// field and each constant index or key, "" for a step it cannot name (a variable index).
func valuePath(info *types.Info, e ast.Expr) []string {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		if o := info.Uses[x]; o != nil {
			return []string{objID(o)}
		}
		if o := info.Defs[x]; o != nil {
			return []string{objID(o)}
		}
	case *ast.SelectorExpr:
		if sel, ok := info.Selections[x]; ok && sel.Kind() == types.FieldVal {
			// A promoted field is its embedded field's: o.a is o.inner.a.
			path := valuePath(info, x.X)
			for _, f := range fieldChain(sel) {
				path = append(path, "."+objID(f))
			}
			return path
		}
		if o := info.Uses[x.Sel]; o != nil {
			return []string{objID(o)}
		}
	case *ast.IndexExpr:
		step := ""
		if tv, ok := info.Types[x.Index]; ok && tv.Value != nil {
			step = "[" + tv.Value.ExactString() + "]"
		}
		return append(valuePath(info, x.X), step)
	case *ast.StarExpr:
		return valuePath(info, x.X)
	case *ast.UnaryExpr:
		if x.Op == token.AND {
			return valuePath(info, x.X)
		}
	}
	return nil
}

// diverges reports whether two access paths part at a step both name.
func diverges(x, y []string) bool {
	for i := 0; i < len(x) && i < len(y); i++ {
		if x[i] == "" || y[i] == "" {
			return false
		}
		if x[i] != y[i] {
			return true
		}
	}
	return false
}
