package releasepath

import (
	"bytes"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// fix returns the #97740 fix for the walker's acquisition when it is clearly safe: defer the
// one release right after the acquisition's error check, and delete it (with a nil guard on
// the handle around it) from the success path. It declines when any of these fail:
//
//   - the function has exactly one release of the acquisition, and neither it nor the
//     acquisition is in a loop or a function literal;
//   - the acquisition is a statement of a block, followed by its error check (if err != nil
//     ending in a return) or by nothing that reads its error;
//   - the release is a call statement, "_ = release", or "if err := release; cond { … }"
//     whose body neither returns nor assigns anything declared outside it;
//   - no variable the release reads is assigned, or has its address taken, after the
//     acquisition: the deferred closure then sees the same values the call did;
//   - the acquisition is scoped (a lock, an open, a hold): a rollback's undo runs only on
//     failure, and a deferred one would undo the success too;
//   - no path hands the resource on: a deferred release would release what the caller or a
//     field now owns;
//   - nothing but a return follows the release on the success path, its results neither
//     call nor receive, and no defer is registered between the acquisition and the release:
//     moving the release to the function's end then changes nothing the success path does.
//     For a resource that is not a lock, what follows may be anything that mentions neither
//     the acquired value nor the acquisition's receiver or arguments (mentionedAfter):
//     #97740's release is followed by g.GetRegionForwardingRule, which touches none of them.
//     The counterexamples are c.mu.Unlock(); c.touch(k), where touch locks c.mu (deferred,
//     the Unlock runs after touch, which then deadlocks), and c.mu.Unlock(); return <-ch,
//     nil, where the sender may lock c.mu before it sends.
func (w *walker) fix() (analysis.SuggestedFix, bool) {
	a := w.a
	if len(a.releases) != 1 || a.kind != scoped || w.handed {
		return analysis.SuggestedFix{}, false
	}
	r := a.releases[0]
	if inLoopOrLit(a.stmtStack) || inLoopOrLit(r.stack) {
		return analysis.SuggestedFix{}, false
	}
	info := w.p.pass.TypesInfo
	acqStmt, acqBlock, acqIdx := stmtInBlock(a.stmtStack, a.call)
	if acqStmt == nil {
		return analysis.SuggestedFix{}, false
	}
	insertAfter := ast.Node(acqStmt)
	if a.errObj != nil {
		if acqIdx+1 >= len(acqBlock.List) {
			return analysis.SuggestedFix{}, false
		}
		check, ok := acqBlock.List[acqIdx+1].(*ast.IfStmt)
		if !ok || check.Init != nil || check.Else != nil || !isErrCheck(info, check.Cond, a.errObj) || !endsInReturn(check.Body) {
			return analysis.SuggestedFix{}, false
		}
		insertAfter = check
	}
	relStmt, _, _ := stmtInBlock(r.stack, r.call)
	if relStmt == nil || !w.safeRelease(relStmt, r.call) {
		return analysis.SuggestedFix{}, false
	}
	// Delete the release's nil guard on the handle with it: after the acquisition the handle
	// is not nil, and the deferred release runs only on the paths that acquired.
	del := ast.Stmt(relStmt)
	for i := len(r.stack) - 1; i >= 0; i-- {
		if r.stack[i] == relStmt {
			if i >= 2 {
				if blk, ok := r.stack[i-1].(*ast.BlockStmt); ok && len(blk.List) == 1 {
					if ifs, ok := r.stack[i-2].(*ast.IfStmt); ok && ifs.Init == nil && ifs.Else == nil && w.isNilGuard(ifs.Cond) {
						del = ifs
					}
				}
			}
			break
		}
	}
	// After a lock's release anything may take the lock, so only a return may follow it; after
	// any other release, anything that leaves the resource alone ( #97740's success path reads
	// the forwarding rule after releasing the address).
	follows := w.onlyReturnFollows(del, r.stack) || (!isLock(a) && !w.mentionedAfter(del, r.stack))
	if w.assignedAfter(relStmt, acqStmt.End()) || !follows || w.deferBetween(acqStmt.End(), del.Pos()) {
		return analysis.SuggestedFix{}, false
	}

	fset := w.p.pass.Fset
	tf := fset.File(acqStmt.Pos())
	src, ok := w.p.source(tf)
	if !ok || fset.File(del.Pos()) != tf {
		return analysis.SuggestedFix{}, false
	}
	indent := lineIndent(src, tf, acqStmt.Pos())
	var text string
	if es, ok := relStmt.(*ast.ExprStmt); ok && simpleArgs(es.X.(*ast.CallExpr)) {
		text = "\n" + indent + "defer " + string(src[tf.Offset(es.Pos()):tf.Offset(es.End())])
	} else {
		body := reindent(src, tf, relStmt, indent+"\t")
		text = "\n" + indent + "defer func() {\n" + body + "\n" + indent + "}()"
	}
	// Delete whole lines, and one of two blank lines around the deleted statement.
	if !aloneOnLines(src, tf, del) {
		return analysis.SuggestedFix{}, false // g.Close(); f.Close(): deleting the line would take f's too
	}
	start := tf.LineStart(rawLine(tf, del.Pos()))
	endLine := rawLine(tf, del.End())
	var end token.Pos
	if endLine < tf.LineCount() {
		end = tf.LineStart(endLine + 1)
	} else {
		end = token.Pos(tf.Base() + tf.Size())
	}
	if blankLine(src, tf, rawLine(tf, del.Pos())-1) && (endLine == tf.LineCount() || blankLine(src, tf, endLine+1)) {
		start = tf.LineStart(rawLine(tf, del.Pos()) - 1)
	}
	if start <= insertAfter.End() {
		return analysis.SuggestedFix{}, false // the release is not after the acquisition
	}
	return analysis.SuggestedFix{
		Message: "defer " + r.text + " right after " + a.name,
		TextEdits: []analysis.TextEdit{
			{Pos: insertAfter.End(), End: insertAfter.End(), NewText: []byte(text)},
			{Pos: start, End: end},
		},
	}, true
}

// source returns the content of the file tf, read the way the driver read it.
func (p *pkgChecker) source(tf *token.File) ([]byte, bool) {
	if p.pass.ReadFile == nil {
		return nil, false
	}
	b, err := p.pass.ReadFile(tf.Name())
	if err != nil || len(b) != tf.Size() {
		return nil, false
	}
	return b, true
}

func inLoopOrLit(stack []ast.Node) bool {
	for _, n := range stack {
		switch n.(type) {
		case *ast.ForStmt, *ast.RangeStmt, *ast.FuncLit, *ast.SelectStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt:
			return true
		}
	}
	return false
}

// stmtInBlock returns the statement of a block that holds n, the block and its index.
func stmtInBlock(stack []ast.Node, n ast.Node) (ast.Stmt, *ast.BlockStmt, int) {
	for i := len(stack) - 1; i >= 1; i-- {
		blk, ok := stack[i-1].(*ast.BlockStmt)
		if !ok {
			continue
		}
		s, ok := stack[i].(ast.Stmt)
		if !ok {
			continue
		}
		for j, x := range blk.List {
			if x == s {
				return s, blk, j
			}
		}
	}
	return nil, nil, -1
}

func isErrCheck(info *types.Info, cond ast.Expr, errObj types.Object) bool {
	b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok || b.Op != token.NEQ {
		return false
	}
	id, ok := ast.Unparen(b.X).(*ast.Ident)
	return ok && info.ObjectOf(id) == errObj && isNilIdent(info, b.Y)
}

func endsInReturn(b *ast.BlockStmt) bool {
	if len(b.List) == 0 {
		return false
	}
	_, ok := b.List[len(b.List)-1].(*ast.ReturnStmt)
	return ok
}

// isNilGuard reports whether cond is "h != nil" for the acquisition's handle.
func (w *walker) isNilGuard(cond ast.Expr) bool {
	info := w.p.pass.TypesInfo
	b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok || b.Op != token.NEQ || !isNilIdent(info, b.Y) {
		return false
	}
	id, ok := ast.Unparen(b.X).(*ast.Ident)
	return ok && w.a.recvRoot != nil && info.ObjectOf(id) == w.a.recvRoot
}

// safeRelease reports whether s, the release's statement, can move into a deferred closure
// unchanged: a call statement, "_ = call", or "if x := call; cond { … }" whose body has no
// return, branch or assignment to anything declared outside s.
func (w *walker) safeRelease(s ast.Stmt, call *ast.CallExpr) bool {
	switch s := s.(type) {
	case *ast.ExprStmt:
		return s.X == call
	case *ast.AssignStmt:
		if len(s.Lhs) != 1 || len(s.Rhs) != 1 || s.Rhs[0] != call {
			return false
		}
		id, ok := s.Lhs[0].(*ast.Ident)
		return ok && id.Name == "_"
	case *ast.IfStmt:
		init, ok := s.Init.(*ast.AssignStmt)
		if !ok || init.Tok != token.DEFINE || len(init.Rhs) != 1 || init.Rhs[0] != call || s.Else != nil {
			return false
		}
		info := w.p.pass.TypesInfo
		safe := true
		ast.Inspect(s.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ReturnStmt, *ast.BranchStmt, *ast.DeferStmt, *ast.GoStmt:
				safe = false
			case *ast.AssignStmt:
				for _, l := range n.Lhs {
					o := rootObj(info, l)
					if o == nil || o.Pos() < s.Pos() || o.Pos() >= s.End() {
						safe = false
					}
				}
			case *ast.IncDecStmt:
				safe = false
			}
			return safe
		})
		return safe
	}
	return false
}

// assignedAfter reports whether a variable of the function that s reads (and s does not
// declare) is assigned, or has its address taken, anywhere in the function after pos. The
// function's parameters and receiver count: c = c.next between c.mu.Lock() and c.mu.Unlock()
// makes a defer right after the Lock unlock the first c's mutex.
func (w *walker) assignedAfter(s ast.Stmt, pos token.Pos) bool {
	info := w.p.pass.TypesInfo
	reads := map[types.Object]bool{}
	ast.Inspect(s, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if o, ok := info.Uses[id].(*types.Var); ok && o.Pos() >= w.fnNode.Pos() && o.Pos() < w.fnNode.End() &&
				!(o.Pos() >= s.Pos() && o.Pos() < s.End()) {
				reads[o] = true
			}
		}
		return true
	})
	found := false
	ast.Inspect(w.body, func(n ast.Node) bool {
		if found || n == nil || n.End() <= pos {
			return !found
		}
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Pos() > pos {
				for _, l := range n.Lhs {
					if id, ok := ast.Unparen(l).(*ast.Ident); ok && reads[info.ObjectOf(id)] && n.Tok != token.DEFINE {
						found = true
					}
				}
			}
		case *ast.IncDecStmt:
			if id, ok := ast.Unparen(n.X).(*ast.Ident); ok && n.Pos() > pos && reads[info.ObjectOf(id)] {
				found = true
			}
		case *ast.UnaryExpr:
			if id, ok := ast.Unparen(n.X).(*ast.Ident); ok && n.Op == token.AND && reads[info.ObjectOf(id)] {
				found = true
			}
		case *ast.RangeStmt:
			for _, e := range []ast.Expr{n.Key, n.Value} {
				if id, ok := e.(*ast.Ident); ok && n.Pos() > pos && reads[info.ObjectOf(id)] {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// simpleArgs reports whether a deferred call evaluates nothing early that could differ: its
// arguments are identifiers, selectors of them and constants.
func simpleArgs(call *ast.CallExpr) bool {
	for _, arg := range call.Args {
		switch x := ast.Unparen(arg).(type) {
		case *ast.Ident, *ast.BasicLit:
		case *ast.SelectorExpr:
			if _, ok := x.X.(*ast.Ident); !ok {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// rawLine returns the line of p in the file's bytes, not the line a //line directive gives
// it: the edits are made on the bytes.
func rawLine(tf *token.File, p token.Pos) int { return tf.PositionFor(p, false).Line }

// aloneOnLines reports whether nothing but blanks shares the lines of n, so that deleting
// them deletes n alone.
func aloneOnLines(src []byte, tf *token.File, n ast.Node) bool {
	start := tf.Offset(tf.LineStart(rawLine(tf, n.Pos())))
	end := len(src)
	if l := rawLine(tf, n.End()); l < tf.LineCount() {
		end = tf.Offset(tf.LineStart(l + 1))
	}
	before := src[start:tf.Offset(n.Pos())]
	after := src[tf.Offset(n.End()):end]
	return len(bytes.TrimSpace(before)) == 0 && len(bytes.TrimSpace(after)) == 0
}

func lineIndent(src []byte, tf *token.File, pos token.Pos) string {
	off := tf.Offset(tf.LineStart(rawLine(tf, pos)))
	i := off
	for i < len(src) && (src[i] == '\t' || src[i] == ' ') {
		i++
	}
	return string(src[off:i])
}

// reindent returns the source of s with its lines indented by indent instead of its own
// indentation.
func reindent(src []byte, tf *token.File, s ast.Node, indent string) string {
	old := lineIndent(src, tf, s.Pos())
	text := string(src[tf.Offset(s.Pos()):tf.Offset(s.End())])
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if i == 0 {
			lines[i] = indent + l
			continue
		}
		if strings.TrimSpace(l) == "" {
			lines[i] = ""
			continue
		}
		lines[i] = indent + strings.TrimPrefix(l, old)
	}
	return strings.Join(lines, "\n")
}

func blankLine(src []byte, tf *token.File, line int) bool {
	if line < 1 || line > tf.LineCount() {
		return false
	}
	start := tf.Offset(tf.LineStart(line))
	end := len(src)
	if line < tf.LineCount() {
		end = tf.Offset(tf.LineStart(line + 1))
	}
	return len(bytes.TrimSpace(src[start:end])) == 0
}

// onlyReturnFollows reports whether the statement del (the release, or the nil guard around
// it), whose ancestors are in stack, is followed by nothing but a return whose results
// neither call nor receive, or ends the function body. Anything else would run before the
// deferred release that replaces it, where before it ran after the release: a call may take
// the lock, and a send, a receive or a select may wait for a goroutine that takes it.
func (w *walker) onlyReturnFollows(del ast.Stmt, stack []ast.Node) bool {
	info := w.p.pass.TypesInfo
	var blk *ast.BlockStmt
	for i := len(stack) - 1; i >= 1; i-- {
		if stack[i] == del {
			blk, _ = stack[i-1].(*ast.BlockStmt)
			break
		}
	}
	if blk == nil {
		return false
	}
	for j, s := range blk.List {
		if s != del {
			continue
		}
		if j+1 == len(blk.List) {
			return blk == w.body // the end of the function, or of a nested block (which goes on)
		}
		ret, ok := blk.List[j+1].(*ast.ReturnStmt)
		if !ok {
			return false
		}
		for _, e := range ret.Results {
			if callsOrReceives(info, e) {
				return false
			}
		}
		return true
	}
	return false
}

// callsOrReceives reports whether evaluating e calls a function (builtins and literals
// included; conversions do not count) or receives from a channel, either of which may wait
// for another goroutine or run code that takes the lock: return <-ch, nil.
func callsOrReceives(info *types.Info, e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // not called here, unless a CallExpr around it is
		case *ast.CallExpr:
			if tv, ok := info.Types[n.Fun]; !ok || !tv.IsType() {
				found = true
			}
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				found = true
			}
		}
		return !found
	})
	return found
}

// deferBetween reports whether the function registers a defer between from and to (outside
// function literals): deferred after the acquisition, the release would run before it, where
// before it ran after.
func (w *walker) deferBetween(from, to token.Pos) bool {
	found := false
	ast.Inspect(w.body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.DeferStmt:
			if n.Pos() > from && n.Pos() < to {
				found = true
			}
		}
		return !found
	})
	return found
}

// isLock reports whether a takes a lock: its verb is Lock (Lock, RLock, TryLock).
func isLock(a *acquisition) bool {
	if a.held != nil {
		return true
	}
	m, ok := matchVerb(a.name)
	return ok && m.verb == "Lock"
}

// mentionedAfter reports whether a statement after del (with its ancestors in stack), in its
// block or a block around it up to the function body, mentions an acquired value, the root of
// the acquisition's receiver or of one of its arguments: moved to the function's end, the
// release would then run after something that uses what it releases.
func (w *walker) mentionedAfter(del ast.Stmt, stack []ast.Node) bool {
	info := w.p.pass.TypesInfo
	objs := map[types.Object]bool{}
	for o := range w.a.values {
		objs[o] = true
	}
	for o := range w.a.basic {
		objs[o] = true
	}
	for o := range w.a.argRoots {
		objs[o] = true // os.Remove(path) after f.Close() for os.Open(path)
	}
	if r := rootObj(info, receiver(info, w.a.call)); r != nil {
		objs[r] = true
	}
	start := slices.Index(stack, ast.Node(del))
	if start < 0 {
		return true
	}
	child := ast.Node(del)
	for i := start - 1; i >= 0; i-- {
		list, ok := stmtList(stack[i])
		if ok {
			after := false
			for _, s := range list {
				if after && mentionsAny(info, s, objs) {
					return true
				}
				if s == child {
					after = true
				}
			}
		}
		if stack[i] == w.body {
			return false
		}
		child = stack[i]
	}
	return true
}

// mentionsAny reports whether n refers to any of objs.
func mentionsAny(info *types.Info, n ast.Node, objs map[types.Object]bool) bool {
	found := false
	ast.Inspect(n, func(x ast.Node) bool {
		if id, ok := x.(*ast.Ident); ok && objs[info.Uses[id]] {
			found = true
		}
		return !found
	})
	return found
}
