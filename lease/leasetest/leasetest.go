package leasetest

import (
	"context"
	"testing"

	"github.com/safereconcile/safereconcile/lease"
)

// Context returns ctx carrying a new ledger that t checks when it ends (see [Check]). It panics
// with a message starting with "leasetest:" when ctx is nil.
func Context(t testing.TB, ctx context.Context) context.Context {
	t.Helper()
	if ctx == nil {
		panic("leasetest: Context with a nil context")
	}
	return lease.WithLedger(ctx, Ledger(t))
}

// Ledger returns a new, empty ledger that t checks when it ends (see [Check]). Use it for leases
// made with [lease.New] directly: record them with [lease.Ledger.Add].
func Ledger(t testing.TB) *lease.Ledger {
	t.Helper()
	g := new(lease.Ledger)
	t.Cleanup(func() { Check(t, g) })
	return g
}

// Check reports an error on t for every lease in g that is still Held or Orphaned, naming the
// lease and its state. It reports whether nothing was outstanding. A nil g is an error on t
// too, since there is nothing to prove: Check then reports false.
func Check(t testing.TB, g *lease.Ledger) bool {
	t.Helper()
	if g == nil {
		t.Errorf("leasetest: Check with a nil ledger: nothing to check")
		return false
	}
	ok := true
	for _, l := range g.Outstanding() {
		// Read the state once: a release still running elsewhere may finish meanwhile, and
		// the message must not say "still released".
		if s := l.State(); s == lease.Held || s == lease.Orphaned {
			t.Errorf("leasetest: lease %q is still %s: it outlived its purpose", l.Name(), s)
			ok = false
		}
	}
	return ok
}
