package releasepath

import (
	"go/ast"
	"go/types"
	"slices"
	"strings"
)

// lockReleases are the releases of a lock's two modes: Unlock ends Lock and TryLock,
// RUnlock ends RLock and TryRLock.
var lockReleases = []string{"Unlock", "RUnlock"}

// otherModeRelease returns a call after the lock a, on its receiver, of the other mode's
// release: c.mu.Unlock after c.mu.RLock, c.mu.RUnlock after c.mu.Lock. It releases nothing
// of a (on a sync.RWMutex it throws "Unlock of unlocked RWMutex"), but it is evidence that
// the function meant to end a there, so that a function that never calls a's own release
// still has its returns checked. A call before a, such as the caller's Unlock in a
// downgrade (c.mu.Unlock(); c.mu.RLock()), says nothing of a.
func (p *pkgChecker) otherModeRelease(a *acquisition, all []callInfo) (*ast.CallExpr, bool) {
	if a.source != "verb" || a.verb.verb != "Lock" || a.recvKey == "" {
		return nil, false
	}
	info := p.pass.TypesInfo
	for _, c := range all {
		if c.fn == nil || c.call.Pos() <= a.call.Pos() || exclusiveBranches(a.stmtStack, c.stack) {
			continue
		}
		if !slices.Contains(lockReleases, c.fn.Name()) || slices.Contains(a.verb.releases, c.fn.Name()) {
			continue
		}
		if k, ok := recvKeyOf(info, c.call); ok && k == a.recvKey {
			return c.call, true
		}
	}
	return nil, false
}

// ownModeRelease keeps the lock's mode in its release only where the lock's type has a release
// of that mode: a read lock whose type has no RUnlock (the lockfile of containers/storage:
// RLock, Lock, Unlock) is released by its Unlock.
func ownModeRelease(m verbMatch, fn *types.Func) verbMatch {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil || !slices.Contains(m.relVerbs, "RUnlock") {
		return m
	}
	has := func(name string) bool {
		o, _, _ := types.LookupFieldOrMethod(sig.Recv().Type(), true, fn.Pkg(), name)
		_, ok := o.(*types.Func)
		return ok
	}
	out := m
	out.relVerbs, out.releases = nil, nil
	for i, v := range m.relVerbs {
		r := m.releases[i]
		if v == "RUnlock" && !has(r) && has(strings.TrimPrefix(r, "R")) {
			v, r = "Unlock", strings.TrimPrefix(r, "R")
		}
		out.relVerbs = append(out.relVerbs, v)
		out.releases = append(out.releases, r)
	}
	return out
}
