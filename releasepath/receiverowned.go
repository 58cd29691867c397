package releasepath

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// receiverOwned reports whether a, in method, whose receiver is self, belongs to the receiver
// and not to this call: a returns nothing but an error, so what it makes is known only by
// the arguments it was given, and these name it by the receiver's fields (a veth named
// n.hostName); and another method of the receiver's type releases that kind of thing
// (deleteVeth's LinkDel, from the type's Close; the method itself does not count). The receiver's owner cleans it up through
// the receiver, as buildkit's proxy namespace does when its setup fails. A resource the call
// hands back (a file, a listener) is never the receiver's until stored in it, and a lock is
// left to the lock rules.
func (p *pkgChecker) receiverOwned(a *acquisition, method *types.Func, self types.Object, body *ast.BlockStmt) bool {
	if self == nil || method == nil || a.fn == nil || !onlyError(a.fn) || a.verb.verb == "Lock" {
		return false
	}
	named := receiverNamed(self.Type())
	if named == nil {
		return false
	}
	if p.fieldOwned(a, named, method, self, body) {
		return true
	}
	return p.argsNameReceiver(a, self, body) && p.releasedByMethodOf(named, releaseShortNames(a), method)
}

// fieldOwned reports whether a, an Open given nothing but a context, is made on a field path
// of the receiver (c.Store.Open(ctx), which opens c.Store itself), and another method of the receiver's type ends that same path
// of its own receiver (c.Store.Close(ctx) in c.Close, litestream's replicate command): the
// field is the receiver's, also when this method stored a new value in it before, and its
// owner closes it through the receiver, whatever this method returns; not when the method
// stores another value there after the Open, which leaves the opened one to nobody.
func (p *pkgChecker) fieldOwned(a *acquisition, named *types.Named, method *types.Func, self types.Object, body *ast.BlockStmt) bool {
	info := p.pass.TypesInfo
	if a.pair != nil || a.verb.verb != "Open" || len(nonContextArgs(info, a.call)) > 0 {
		// p.nl.CreateLink(name) makes what its arguments name, not p.nl; each
		// b.def.acquireRef() and d.sem.Acquire(ctx, 1) takes one more, which this call owes.
		return false
	}
	root, path, ok := fieldPath(info, ast.Unparen(receiver(info, a.call)))
	if !ok || root != self || path == "" {
		return false
	}
	if k, ok := exprKey(info, receiver(info, a.call)); !ok || assignedAfter(info, body, a.call.End(), k) {
		return false // c.Store.Open(ctx); c.Store = other: the opened one is no longer the receiver's
	}
	names := releaseShortNames(a)
	for fn, fd := range p.decls {
		sig := fn.Type().(*types.Signature)
		recv := recvObject(info, fd)
		if fn == method || sig.Recv() == nil || receiverNamed(sig.Recv().Type()) != named || recv == nil {
			continue
		}
		found := false
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || found {
				return !found
			}
			callee, ok := typeutil.Callee(info, call).(*types.Func)
			if !ok || !slices.Contains(names, callee.Name()) || receiver(info, call) == nil {
				return true
			}
			r, rp, ok := fieldPath(info, ast.Unparen(receiver(info, call)))
			found = ok && r == recv && rp == path
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

// recvObject returns the receiver of the method fd, or nil for a function or an unnamed
// receiver.
func recvObject(info *types.Info, fd *ast.FuncDecl) types.Object {
	if fd.Recv == nil || len(fd.Recv.List) != 1 || len(fd.Recv.List[0].Names) != 1 {
		return nil
	}
	return info.Defs[fd.Recv.List[0].Names[0]]
}

// receiverNamed returns the named type of a receiver of type T or *T, the generic type
// itself for a T[P].
func receiverNamed(t types.Type) *types.Named {
	if ptr, ok := t.(*types.Pointer); ok {
		t = ptr.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return n.Origin()
	}
	return nil
}

// argsNameReceiver reports whether an argument of a's call names what a makes by the
// receiver's fields alone, directly (LinkAdd(n.link)) or through a local the body declares
// once from them (veth := &netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: n.hostName}};
// LinkAdd(veth)), and the body never assigns those fields: the type's cleanup finds it by
// them. A parameter or another local in the name (n.hostName + suffix) is a name the
// cleanup does not know.
func (p *pkgChecker) argsNameReceiver(a *acquisition, self types.Object, body *ast.BlockStmt) bool {
	info := p.pass.TypesInfo
	return slices.ContainsFunc(a.call.Args, func(arg ast.Expr) bool {
		e := arg
		if id, ok := ast.Unparen(arg).(*ast.Ident); ok {
			v, ok := info.Uses[id].(*types.Var)
			if !ok || !isLocal(v, body) || changedIn(info, v, body) {
				return false
			}
			if e = localInit(info, v, body); e == nil {
				return false
			}
		}
		fields, ok := receiverFields(info, e, self)
		return ok && len(fields) > 0 && !assignsAny(info, body, fields, e)
	})
}

// receiverFields returns the keys of the field paths of self that e reads, and false when e
// reads another local or parameter.
func receiverFields(info *types.Info, e ast.Expr, self types.Object) ([]string, bool) {
	var fields []string
	ok := true
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			if rootObj(info, x) == self {
				if k, kok := exprKey(info, x); kok {
					fields = append(fields, k)
				}
				return false
			}
			ast.Inspect(x.X, visit) // a package's name or a value's field: only X names variables
			return false
		case *ast.KeyValueExpr:
			if _, field := info.Uses[identOf(x.Key)].(*types.Var); !field {
				ast.Inspect(x.Key, visit) // a map key; a struct literal's key is a field name
			}
			ast.Inspect(x.Value, visit)
			return false
		case *ast.Ident:
			if v, isVar := info.Uses[x].(*types.Var); isVar && v.Parent() != v.Pkg().Scope() {
				ok = false // self alone, a parameter or a local: not a field path
			}
		}
		return ok
	}
	ast.Inspect(e, visit)
	return fields, ok
}

func identOf(e ast.Expr) *ast.Ident {
	id, _ := e.(*ast.Ident)
	return id
}

// assignsAny reports whether body, outside the expression name, may change one of the field
// paths keys, or a path they go through (p.host = other, p.spec = s for p.spec.Name;
// p.spec.reset()). Name is where the keys are read: a call in it (s.rc.stat()) happens as they
// are read, so it changes nothing of the name they give. A method of the receiver itself
// (s.Lock()) or its address is the type's own business, as the method that cleans up is; only
// giving the receiver another value counts.
func assignsAny(info *types.Info, body *ast.BlockStmt, keys []string, name ast.Expr) bool {
	return mutates(info, body, func(e ast.Expr, replaced bool) bool {
		if name.Pos() <= e.Pos() && e.End() <= name.End() {
			return false
		}
		k, ok := exprKey(info, e)
		if !ok || !replaced && !strings.Contains(k, ".") {
			return false
		}
		return slices.ContainsFunc(keys, func(f string) bool { return f == k || strings.HasPrefix(f, k+".") })
	})
}

// localInit returns the expression a local is declared with (x := e, var x = e), or nil.
func localInit(info *types.Info, v *types.Var, body *ast.BlockStmt) ast.Expr {
	var init ast.Expr
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) == len(n.Rhs) {
				for i, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok && info.Defs[id] == v {
						init = n.Rhs[i]
					}
				}
			}
		case *ast.ValueSpec:
			if len(n.Names) == len(n.Values) {
				for i, id := range n.Names {
					if info.Defs[id] == v {
						init = n.Values[i]
					}
				}
			}
		}
		return init == nil
	})
	return init
}

// releaseShortNames returns the names of the functions that end a, without their package or
// receiver: "LinkDel" for netlink.LinkDel, so that a Handle's LinkDel counts too.
func releaseShortNames(a *acquisition) []string {
	if a.pair != nil {
		var out []string
		for _, r := range a.pair.releases {
			out = append(out, r[strings.LastIndex(r, ".")+1:])
		}
		return out
	}
	return a.verb.releases
}

// releasedByMethodOf reports whether a method of named other than self's, declared in this
// package, calls a function of one of names. The methods that do are kept per type and names.
func (p *pkgChecker) releasedByMethodOf(named *types.Named, names []string, self *types.Func) bool {
	key := named.Obj().Name() + "\x00" + strings.Join(names, "\x00")
	methods, ok := p.ownedBy[key]
	if !ok {
		info := p.pass.TypesInfo
		for fn, fd := range p.decls {
			sig := fn.Type().(*types.Signature)
			if sig.Recv() == nil || receiverNamed(sig.Recv().Type()) != named {
				continue
			}
			found := false
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if callee, ok := typeutil.Callee(info, call).(*types.Func); ok && slices.Contains(names, callee.Name()) {
						found = true
					}
				}
				return !found
			})
			if found {
				methods = append(methods, fn)
			}
		}
		if p.ownedBy == nil {
			p.ownedBy = map[string][]*types.Func{}
		}
		p.ownedBy[key] = methods
	}
	return slices.ContainsFunc(methods, func(m *types.Func) bool { return m != self })
}

// assignedAfter reports whether body gives the field path key (or a path that holds it)
// another value at a place after pos: c.Store = other after c.Store.Open(ctx).
func assignedAfter(info *types.Info, body *ast.BlockStmt, pos token.Pos, key string) bool {
	return mutates(info, body, func(e ast.Expr, replaced bool) bool {
		k, ok := exprKey(info, e)
		return replaced && ok && e.Pos() >= pos && (k == key || strings.HasPrefix(key, k+"."))
	})
}
