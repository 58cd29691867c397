package lease

import (
	"context"
	"sync"
)

// Tracked is what a [Ledger] needs to know of a lease. Every *[Lease] implements it.
type Tracked interface {
	Name() string
	State() State
}

// A Ledger records leases so that a test, or a shutdown path, can list those that outlived
// their purpose: still [Held] or [Orphaned].
//
// The zero Ledger is empty and ready to use. A Ledger is safe for concurrent use. It holds only
// outstanding leases for long: leases that are Released or Kept are dropped as it grows.
//
// A Ledger takes lease names as the identity of external resources (see [Lease.Name]): an
// Orphaned lease counts as recovered once a later lease of the same name is Released.
type Ledger struct {
	mu     sync.Mutex
	leases []Tracked // in the order they were added
}

// Add records l in the ledger. Add each lease once: a lease added twice is listed twice.
func (g *Ledger) Add(l Tracked) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.leases) == cap(g.leases) {
		// Compact before the slice grows, so a long-lived ledger costs memory in proportion to
		// what is outstanding, not to everything it ever saw. When compacting frees less than
		// half, grow too: the next compaction is then at least as many Adds away as it costs,
		// which keeps Add amortised O(1) even when almost everything stays outstanding.
		kept := outstanding(g.leases[:0], g.leases)
		clear(g.leases[len(kept):]) // let the dropped leases be collected
		if len(kept) > cap(g.leases)/2 {
			kept = append(make([]Tracked, 0, 2*cap(g.leases)), kept...)
		}
		g.leases = kept
	}
	g.leases = append(g.leases, l)
}

// Outstanding returns the recorded leases that are still [Held] or [Orphaned], in the order
// they were added. The result is a new slice; it is empty when nothing is outstanding.
//
// An Orphaned lease is not outstanding once a lease with the same name, added after it, has
// been Released: names identify the external resource, and that is how a retry recovers an
// orphan (the next attempt releases the leftover by its name). A Held lease is always listed.
func (g *Ledger) Outstanding() []Tracked {
	g.mu.Lock()
	defer g.mu.Unlock()
	return outstanding(nil, g.leases)
}

// outstanding appends to dst the leases of src that are outstanding. dst may alias src.
func outstanding(dst, src []Tracked) []Tracked {
	states := make([]State, len(src))
	released := make(map[string]int) // name → index of the last Released lease of that name
	for i, l := range src {
		states[i] = l.State()
		if states[i] == Released {
			released[l.Name()] = i
		}
	}
	for i, l := range src {
		switch states[i] {
		case Held:
		case Orphaned:
			if j, ok := released[l.Name()]; ok && j > i {
				continue // recovered: a later lease released the same resource by name
			}
		default:
			continue
		}
		dst = append(dst, l)
	}
	return dst
}

type ledgerKey struct{}

// WithLedger returns a copy of ctx that carries g. Code that creates leases under a context,
// such as the acquire package, records them in the ledger it finds there with [LedgerFrom].
// This lets a test check a controller's leases without changing the controller.
func WithLedger(ctx context.Context, g *Ledger) context.Context {
	return context.WithValue(ctx, ledgerKey{}, g)
}

// LedgerFrom returns the ledger ctx carries, or nil when it carries none.
func LedgerFrom(ctx context.Context) *Ledger {
	g, _ := ctx.Value(ledgerKey{}).(*Ledger)
	return g
}
