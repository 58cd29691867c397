package releasepath

import (
	"go/ast"
	"go/constant"
	"go/types"
	"slices"
)

// releaseflag: a helper that releases under a bool parameter of its own releases at a call
// that passes true. go-redis's putConn(ctx, cn, freeTurn bool) ends every path through
// if freeTurn { p.freeTurn() }, itself or through removeConnInternal(…, freeTurn), so
// p.putConn(ctx, cn, true) gives back the turn p.semaphore.TryAcquire() took, and
// p.putConn(ctx, cn, false) gives back nothing.

// flagReleases computes wrapperInfo.whenTrue for decl: for each bool parameter the body tests
// (if freeTurn { … }) and never changes (no assignment, no address taken, no literal or range
// that sets it), the field releases it makes before every return
// when that parameter is true and not otherwise (always, the body's fieldReleases).
func (p *pkgChecker) flagReleases(decl *ast.FuncDecl, params map[types.Object]int, always map[int][][2]string) map[int]map[int][][2]string {
	info := p.pass.TypesInfo
	flags := testedFlags(info, decl.Body, params)
	if len(flags) == 0 {
		return nil // most functions: spared the bool scan of the body
	}
	vars := p.boolVarsOf(decl, decl.Body)
	var out map[int]map[int][][2]string
	for _, flag := range flags {
		if !vars.tracked[flag] || vars.reassigned[flag] {
			continue // assigned, address-taken (clear(&freeTurn)), set in a literal or a range
		}
		extra := map[int][][2]string{}
		for idx, rels := range p.fieldReleasesIf(decl, params, map[types.Object]bool{flag: true}) {
			for _, r := range rels {
				if !slices.Contains(always[idx], r) {
					extra[idx] = append(extra[idx], r)
				}
			}
		}
		if len(extra) > 0 {
			if out == nil {
				out = map[int]map[int][][2]string{}
			}
			out[params[flag]] = extra
		}
	}
	return out
}

// testedFlags returns the bool parameters body tests on their own, outside its function
// literals: if freeTurn { … }, in the order they are first tested.
func testedFlags(info *types.Info, body *ast.BlockStmt, params map[types.Object]int) []types.Object {
	var out []types.Object
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.IfStmt:
			if id, ok := ast.Unparen(n.Cond).(*ast.Ident); ok {
				o := info.Uses[id]
				if _, isParam := params[o]; isParam && params[o] >= 0 && isBool(o.Type()) && !slices.Contains(out, o) {
					out = append(out, o)
				}
			}
		}
		return true
	})
	return out
}

// isTrueFlag reports whether cond is a flag of trueFlags, tested on its own: if freeTurn.
func isTrueFlag(info *types.Info, cond ast.Expr, trueFlags map[types.Object]bool) bool {
	id, ok := ast.Unparen(cond).(*ast.Ident)
	return ok && trueFlags[info.Uses[id]]
}

// passesTrue reports whether e, an argument, is true: the constant, or a flag of trueFlags
// (removeConnInternal(ctx, cn, err, freeTurn) inside putConn, summarized for freeTurn true).
func passesTrue(info *types.Info, e ast.Expr, trueFlags map[types.Object]bool) bool {
	if v := info.Types[e].Value; v != nil {
		return v.Kind() == constant.Bool && constant.BoolVal(v)
	}
	return isTrueFlag(info, e, trueFlags)
}

// fieldsAt returns the field releases a call of the function wi summarizes makes: those it
// always makes, and those of each flag the call passes true.
func (wi *wrapperInfo) fieldsAt(info *types.Info, call *ast.CallExpr, trueFlags map[types.Object]bool) map[int][][2]string {
	if len(wi.whenTrue) == 0 {
		return wi.fields
	}
	out := map[int][][2]string{}
	for idx, rels := range wi.fields {
		out[idx] = slices.Clone(rels)
	}
	for k, byParam := range wi.whenTrue {
		if k < len(call.Args) && passesTrue(info, call.Args[k], trueFlags) {
			for idx, rels := range byParam {
				out[idx] = append(out[idx], rels...)
			}
		}
	}
	return out
}
