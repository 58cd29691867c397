package releasepath

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// ownReceiverCall reports whether call, in the method whose receiver is self, is a call of
// a method of this package on self itself that returns nothing or an error: l.acquire()
// inside a method of l, which manages the receiver's state (receiverstate).
func (p *pkgChecker) ownReceiverCall(call *ast.CallExpr, fn *types.Func, self types.Object) bool {
	if self == nil || fn.Pkg() != p.pass.Pkg || !onlyError(fn) {
		return false
	}
	r, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	return ok && isIdentOf(p.pass.TypesInfo, r.X, self)
}

// changesReceiver reports whether fn, a method of this package, may change its receiver:
// it assigns or increments a field path of it, takes its address or passes it on, or calls
// a method on a field path of it, a method of another package, or another of its own
// methods that may. A method that only reads it acquires nothing of it: caddy's
// p.openCurlyBrace() checks the next token. A method met again while its answer is being
// found (a recursion) adds nothing to it.
func (p *pkgChecker) changesReceiver(fn *types.Func) bool {
	return memoized(&p.mutators, fn.Origin(), p.computeChangesReceiver)
}

func (p *pkgChecker) computeChangesReceiver(fn *types.Func) bool {
	fd := p.decls[fn]
	if fd == nil {
		return true
	}
	info := p.pass.TypesInfo
	self := recvObject(info, fd)
	if self == nil {
		return true
	}
	onSelf := func(e ast.Expr) bool { return self != nil && rootObj(info, e) == self }
	changes := false
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if changes {
			return false
		}
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if _, whole := ast.Unparen(l).(*ast.Ident); onSelf(l) && !whole {
					changes = true // p.status = busy (assigning the receiver variable itself changes no caller's)
				}
			}
		case *ast.IncDecStmt:
			changes = onSelf(n.X)
		case *ast.UnaryExpr:
			changes = n.Op == token.AND && onSelf(n.X)
		case *ast.CallExpr:
			changes = p.callChanges(n, self)
		}
		return !changes
	})
	return changes
}

// callChanges reports whether call, in a method whose receiver is self, may change self:
// it passes self or a field path of it, or calls a method on one that may.
func (p *pkgChecker) callChanges(call *ast.CallExpr, self types.Object) bool {
	info := p.pass.TypesInfo
	onSelf := func(e ast.Expr) bool { return self != nil && rootObj(info, e) == self }
	for _, arg := range call.Args {
		if onSelf(arg) && mayRefer(info.TypeOf(arg), 0) {
			return true // reset(p), fill(p.buf): the callee may write through it
		}
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || !onSelf(sel.X) {
		return false
	}
	fn, ok := typeInfoCallee(info, call)
	if !ok {
		return true // a function-valued field of it
	}
	if _, whole := ast.Unparen(sel.X).(*ast.Ident); !whole || fn.Pkg() != p.pass.Pkg {
		return true // p.limiter.Acquire(ctx, n), a promoted method of another package
	}
	return p.changesReceiver(fn)
}

// closesReceiver reports whether call, in the method whose receiver a's acquisition is
// made on, closes that receiver: a method of it with the word Close in its name, leading
// or after a modifier (pgx's pgConn.asyncClose(), c.closeConn(); not c.isClosed()). What
// the receiver's state held goes with it.
func closesReceiver(info *types.Info, a *acquisition, call *ast.CallExpr) bool {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	root := rootObj(info, receiver(info, a.call))
	if !ok || root == nil || !isIdentOf(info, sel.X, root) {
		return false
	}
	for _, word := range words(sel.Sel.Name) {
		if strings.EqualFold(word, "close") {
			return true
		}
	}
	return false
}
