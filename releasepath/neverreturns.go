package releasepath

import (
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/cfg"
)

// neverReturns reports whether call is one of the calls that end the goroutine or the
// process which ctrlflow cannot prove (klog.Fatal, t.Fatal), or a panic.
func neverReturns(info *types.Info, call *ast.CallExpr) bool {
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
		if b, ok := info.Uses[id].(*types.Builtin); ok && b.Name() == "panic" {
			return true
		}
	}
	fn, _ := typeInfoCallee(info, call)
	if fn == nil || fn.Pkg() == nil {
		return false
	}
	name := fn.Name()
	switch fn.Pkg().Path() {
	case "os", "syscall":
		return name == "Exit"
	case "runtime":
		return name == "Goexit"
	case "log":
		return strings.HasPrefix(name, "Fatal") || strings.HasPrefix(name, "Panic")
	case "k8s.io/klog", "k8s.io/klog/v2":
		return strings.HasPrefix(name, "Fatal") || strings.HasPrefix(name, "Exit")
	case "testing":
		return testEnding(name)
	}
	return testEnding(name) && tbLike(fn)
}

// testEnding reports whether name is one of testing.TB's methods that end the test's
// goroutine (runtime.Goexit): Fatal, Fatalf, FailNow, Skip, Skipf, SkipNow.
func testEnding(name string) bool {
	return strings.HasPrefix(name, "Fatal") || name == "FailNow" || strings.HasPrefix(name, "Skip")
}

// tbLike reports whether fn is a method of an interface that copies testing.TB's, as
// packages that take a test outside _test.go files declare one (tailscale's testenv.TB,
// s.tb.Fatal(…)): it has FailNow and Helper, which only a test's would.
func tbLike(fn *types.Func) bool {
	recv := fn.Type().(*types.Signature).Recv()
	if recv == nil {
		return false
	}
	iface, ok := recv.Type().Underlying().(*types.Interface)
	if !ok {
		return false
	}
	has := func(name string) bool {
		for i := 0; i < iface.NumMethods(); i++ {
			if iface.Method(i).Name() == name {
				return true
			}
		}
		return false
	}
	return has("FailNow") && has("Helper")
}

// selectEnd reports whether b, a block without successors, is no end of the function: the
// end of a function no path falls off (for {} without a break, a select whose every case
// returns: the dangling edge after its last case means "no case was chosen", which cannot
// happen, since the select waits), or the block after a call that never returns.
func (w *walker) selectEnd(b *cfg.Block) bool {
	if !b.Live || b.Kind == cfg.KindSelectAfterCase {
		return true
	}
	if len(b.Nodes) > 0 {
		if s, ok := b.Nodes[len(b.Nodes)-1].(ast.Stmt); ok && w.noReturn[s] {
			return true
		}
	}
	return false
}
