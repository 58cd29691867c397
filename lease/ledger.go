package lease

import (
	"context"
	"reflect"
	"sync"
)

// Tracked is what a [Ledger] needs to know of a lease. Every *[Lease] implements it. A Tracked
// must keep [Released] and [Kept] final, as a Lease does.
type Tracked interface {
	Name() string
	State() State
}

// A Ledger records leases so that a test, or a shutdown path, can list those that outlived
// their purpose: still [Held] or [Orphaned].
//
// The zero Ledger is empty and ready to use. A Ledger is safe for concurrent use. Its memory
// follows what is outstanding, not what it ever saw: [Ledger.Add] drops the leases that are no
// longer outstanding whenever its storage is full, and gives back storage that has become
// mostly empty, so a burst of leases costs nothing once they are released; Add stays amortised
// O(1). [Ledger.Outstanding] drops them too.
//
// A Ledger takes lease names as the identity of external resources (see [New]): an Orphaned
// lease counts as recovered once a later lease of the same name is Released.
type Ledger struct {
	mu      sync.Mutex
	entries []entry // in the order they were added
}

// An entry is one recorded lease.
type entry struct {
	lease Tracked
	// recovered: a lease of the same name, added after this one, was Released and has been
	// dropped. Released is final, so this lease is no longer outstanding once it is Orphaned.
	recovered bool
}

// minEntries is the smallest storage a Ledger shrinks to.
const minEntries = 16

// Add records l in the ledger. Add each lease once: a lease added twice is listed twice.
//
// Add panics with a message starting with "lease:" when g is nil, or when l is nil or a nil
// pointer (a nil *Lease): the ledger could not tell its name or state, and would fail far from
// the cause.
func (g *Ledger) Add(l Tracked) {
	if g == nil {
		panic("lease: Add to a nil *Ledger")
	}
	if l == nil {
		panic("lease: Ledger.Add(nil)")
	}
	if v := reflect.ValueOf(l); v.Kind() == reflect.Pointer && v.IsNil() {
		panic("lease: Ledger.Add of a nil " + v.Type().String())
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.entries) == cap(g.entries) {
		// Sweep instead of letting append grow the slice, so memory follows what is
		// outstanding; sweepLocked keeps Add amortised O(1).
		g.sweepLocked(true)
	}
	g.entries = append(g.entries, entry{lease: l})
}

// Outstanding returns the recorded leases that are still [Held] or [Orphaned], in the order
// they were added. The result is a new slice; it is empty when nothing is outstanding.
// Outstanding panics with a message starting with "lease:" when g is nil.
//
// An Orphaned lease is not outstanding once a lease with the same name, added after it, has
// been Released: names identify the external resource, and that is how a retry recovers an
// orphan (the next attempt releases the leftover by its name). A Held lease is always listed.
// The result depends only on the states and names of the leases added, in their order: never
// on when the ledger dropped what was no longer outstanding.
func (g *Ledger) Outstanding() []Tracked {
	if g == nil {
		panic("lease: Outstanding of a nil *Ledger")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.sweepLocked(false)
	out := make([]Tracked, len(g.entries))
	for i, e := range g.entries {
		out[i] = e.lease
	}
	return out
}

// sweepLocked drops the entries that are not outstanding and sizes the storage for what is
// left: never below minEntries, so that a sweep is always many Adds away; half what it was when
// less than a quarter is used; and, when grow is set, twice what it was when more than half is.
// Either way the next sweep is at least as many Adds away as this one cost.
func (g *Ledger) sweepLocked(grow bool) {
	kept := sweep(g.entries)
	n, c := len(kept), cap(g.entries)
	want := c
	switch {
	case grow && n > c/2:
		want = 2 * c
	case n < c/4:
		want = 2 * n
	}
	want = max(want, minEntries)
	if want == c {
		clear(g.entries[n:]) // let the dropped leases be collected
		g.entries = kept
		return
	}
	g.entries = append(make([]entry, 0, want), kept...)
}

// sweep returns the outstanding entries of es, in order, in es's own storage. Each state is
// read once, so that an entry is judged by one snapshot of it.
func sweep(es []entry) []entry {
	states := make([]State, len(es))
	var released map[string]int // name → index of the last Released entry of that name
	for i, e := range es {
		states[i] = e.lease.State()
		if states[i] == Released {
			if released == nil {
				released = make(map[string]int)
			}
			released[e.lease.Name()] = i
		}
	}
	kept := es[:0]
	for i, e := range es {
		if states[i] != Held && states[i] != Orphaned {
			continue // Released or Kept: final, and never outstanding again
		}
		if j, ok := released[e.lease.Name()]; ok && j > i {
			// A later lease of the same name was Released. That lease is dropped now, so its
			// verdict stays with this one: should this one fail, the resource is back anyway.
			e.recovered = true
		}
		if states[i] == Orphaned && e.recovered {
			continue // recovered: a later lease released the same resource by name
		}
		kept = append(kept, e)
	}
	return kept
}

type ledgerKey struct{}

// WithLedger returns a copy of ctx that carries g. Code that creates leases under a context,
// such as the acquire package, records them in the ledger it finds there with [LedgerFrom].
// This lets a test check a controller's leases without changing the controller.
//
// WithLedger panics with a message starting with "lease:" when ctx or g is nil: a context
// that carries no ledger would make every check pass.
func WithLedger(ctx context.Context, g *Ledger) context.Context {
	if ctx == nil {
		panic("lease: WithLedger with a nil context")
	}
	if g == nil {
		panic("lease: WithLedger with a nil *Ledger")
	}
	return context.WithValue(ctx, ledgerKey{}, g)
}

// LedgerFrom returns the ledger ctx carries, or nil when it carries none. It panics with a
// message starting with "lease:" when ctx is nil.
func LedgerFrom(ctx context.Context) *Ledger {
	if ctx == nil {
		panic("lease: LedgerFrom with a nil context")
	}
	g, _ := ctx.Value(ledgerKey{}).(*Ledger)
	return g
}
