package lease_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/lease"
)

// TestLedgerRecoveryOutlivesSweep: a Released lease that the ledger drops still recovers an
// earlier lease of the same name that fails only afterwards. The unrelated Adds in between
// must not change what Outstanding says.
func TestLedgerRecoveryOutlivesSweep(t *testing.T) {
	for _, unrelated := range []int{0, 1, 7, 100, 1000} {
		t.Run(fmt.Sprint(unrelated), func(t *testing.T) {
			var g lease.Ledger
			first := lease.New("address/lb-1", "10.0.0.7", (&releases{fails: 1}).release)
			g.Add(first)
			retry := lease.New("address/lb-1", "10.0.0.7", (&releases{}).release)
			g.Add(retry)
			require.NoError(t, retry.Release(context.Background()))
			for i := 0; i < unrelated; i++ {
				l := lease.New(fmt.Sprintf("address/other-%d", i), "10.0.1.1", (&releases{}).release)
				g.Add(l)
				require.NoError(t, l.Release(context.Background()))
			}
			require.Error(t, first.Release(context.Background()))
			assert.Empty(t, g.Outstanding(), "the retry released the resource by its name")
		})
	}
}

// FuzzLedger drives leases of a few names through random Adds, Releases (succeeding or
// failing) and Keeps, and compares Outstanding after every step with a model that remembers
// every lease: Held, or Orphaned with no Released lease of the same name added after it.
func FuzzLedger(f *testing.F) {
	f.Add([]byte{0, 0, 5, 4, 2}) // the retry is swept before the first attempt fails
	f.Add([]byte{0, 0, 4, 1, 3})
	f.Add([]byte{0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 4})
	f.Add([]byte{0, 8, 16, 5, 2, 6, 10, 3, 3, 7})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 300 {
			ops = ops[:300] // the model is quadratic; longer runs add time, not sweeps
		}
		var g lease.Ledger
		var all []*lease.Lease[int]
		fail := map[*lease.Lease[int]]bool{}
		for step, op := range ops {
			switch kind, arg := op%4, int(op/4); kind {
			case 0: // add a lease named after one of three resources
				var l *lease.Lease[int]
				//releasepath:ok the fuzzer's ops decide each lease's fate, and the model checks the ledger
				l = lease.New(fmt.Sprintf("address/%d", arg%3), len(all), func(context.Context, int) error {
					if fail[l] {
						return errCloud
					}
					return nil
				})
				all = append(all, l)
				g.Add(l)
			case 1, 2: // release a lease: succeeding (1) or failing (2)
				if len(all) > 0 {
					l := all[arg%len(all)]
					fail[l] = kind == 2
					_ = l.Release(context.Background())
				}
			case 3:
				if len(all) > 0 {
					all[arg%len(all)].Keep()
				}
			}
			var want, got []string
			for i, l := range all {
				if isOutstanding(all, i) {
					want = append(want, fmt.Sprintf("%s#%d", l.Name(), l.Value()))
				}
			}
			for _, l := range g.Outstanding() {
				got = append(got, fmt.Sprintf("%s#%d", l.Name(), l.(*lease.Lease[int]).Value()))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("step %d: Outstanding (-model +ledger):\n%s", step, diff)
			}
		}
	})
}

// isOutstanding is the documented rule, stated naively over every lease ever added.
func isOutstanding(all []*lease.Lease[int], i int) bool {
	switch all[i].State() {
	case lease.Held:
		return true
	case lease.Orphaned:
		for _, later := range all[i+1:] {
			if later.Name() == all[i].Name() && later.State() == lease.Released {
				return false
			}
		}
		return true
	}
	return false
}

// stub is a Tracked that costs the ledger nothing but its own entry.
type stub struct{ state lease.State }

func (s *stub) Name() string       { return "address/burst" }
func (s *stub) State() lease.State { return s.state }

// heapInUse returns the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestLedgerMemoryFollowsOutstanding: after a burst of a million leases, all released, the
// ledger gives its storage back while add/release cycles go on with nothing outstanding. It
// measures retained bytes, not time.
func TestLedgerMemoryFollowsOutstanding(t *testing.T) {
	if testing.Short() {
		t.Skip("adds a million leases: skipped with -short")
	}
	released := &stub{state: lease.Released}
	held := &stub{state: lease.Held}
	g := new(lease.Ledger)
	before := heapInUse()
	for i := 0; i < 1<<20; i++ {
		g.Add(held)
	}
	burst := heapInUse() - before
	held.state = lease.Released // the burst is over: every lease of it is released
	for i := 0; i < 1<<20; i++ {
		g.Add(released)
	}
	after := int64(heapInUse()) - int64(before)
	runtime.KeepAlive(g)
	t.Logf("ledger holding 1M outstanding: %d KiB; after 1M cycles with none outstanding: %d KiB", burst>>10, after>>10)
	assert.Greater(t, burst, uint64(8<<20), "the measurement sees the burst")
	assert.Less(t, after, int64(256<<10), "the ledger kept the burst's storage")
	assert.Empty(t, g.Outstanding())
}

func TestLedgerAddNilPanics(t *testing.T) {
	var g lease.Ledger
	held := lease.New("address/h", "h", nopRelease)
	g.Add(held)
	assert.PanicsWithValue(t, "lease: Ledger.Add(nil)", func() { g.Add(nil) })
	assert.PanicsWithValue(t, "lease: Ledger.Add of a nil *lease.Lease[int]", func() {
		g.Add((*lease.Lease[int])(nil))
	})
	assert.PanicsWithValue(t, "lease: Ledger.Add of a nil *lease.Lease[string]", func() {
		g.Add((*lease.Lease[string])(nil))
	})
	assert.PanicsWithValue(t, "lease: Ledger.Add of a nil *lease_test.stub", func() { g.Add((*stub)(nil)) })
	assert.Equal(t, []lease.Tracked{held}, g.Outstanding(), "nothing was recorded, nothing was lost")
}

// BenchmarkLedgerAdd measures one add/release cycle against a ledger that holds n outstanding
// leases, the shape of a long-lived ledger in a test suite or a shutdown path.
func BenchmarkLedgerAdd(b *testing.B) {
	for _, n := range []int{0, 1000} {
		b.Run(fmt.Sprintf("outstanding=%d", n), func(b *testing.B) {
			var g lease.Ledger
			held, released := &stub{state: lease.Held}, &stub{state: lease.Released}
			for i := 0; i < n; i++ {
				g.Add(held)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				g.Add(released)
			}
		})
	}
}

// TestLedgerAddAllocations: with nothing outstanding, a sweep is many Adds away, so add/release
// cycles allocate almost nothing.
func TestLedgerAddAllocations(t *testing.T) {
	var g lease.Ledger
	released := &stub{state: lease.Released}
	allocs := testing.AllocsPerRun(1000, func() { g.Add(released) })
	assert.Less(t, allocs, 0.5, "allocations per Add")
}

// tracked is a Tracked whose state the test sets.
type tracked struct {
	name  string
	state atomic.Uint32
}

func newTracked(name string, s lease.State) *tracked {
	h := &tracked{name: name}
	h.set(s)
	return h
}

// names lists the names of ts.
func names(ts []lease.Tracked) []string {
	out := []string{}
	for _, t := range ts {
		out = append(out, t.Name())
	}
	return out
}

// "The result depends only on the states and names of the leases added,
// in their order: never on when the ledger dropped what was no longer outstanding." Here the
// recovering lease is Released (and so droppable) while the earlier lease of its name is still
// Held; that one becomes Orphaned only later, after many unrelated Adds.
func TestLedgerRecoveryIndependentOfUnrelatedAdds(t *testing.T) {
	for _, unrelated := range []int{0, 1, 7, 100, 5000} {
		t.Run(fmt.Sprint("unrelated=", unrelated), func(t *testing.T) {
			var g lease.Ledger
			first := newTracked("address/x", lease.Held)
			g.Add(first)
			retry := newTracked("address/x", lease.Held)
			g.Add(retry)
			retry.set(lease.Released)
			for i := 0; i < unrelated; i++ {
				g.Add(newTracked(fmt.Sprintf("address/u-%d", i), lease.Released))
			}
			first.set(lease.Orphaned)
			assert.Empty(t, g.Outstanding(), "the Orphaned address/x was recovered by the later Released one")

			// A Released lease added before an orphan of the same name does not recover it.
			var h lease.Ledger
			early := newTracked("address/y", lease.Released)
			h.Add(early)
			for i := 0; i < unrelated; i++ {
				h.Add(newTracked(fmt.Sprintf("address/v-%d", i), lease.Released))
			}
			late := newTracked("address/y", lease.Orphaned)
			h.Add(late)
			for i := 0; i < unrelated; i++ {
				h.Add(newTracked(fmt.Sprintf("address/w-%d", i), lease.Released))
			}
			assert.Equal(t, []string{"address/y"}, names(h.Outstanding()))
		})
	}
}

// The same, with Outstanding called (and so dropping) between the steps.
func TestLedgerRecoveryIndependentOfOutstandingCalls(t *testing.T) {
	var g lease.Ledger
	first := newTracked("address/x", lease.Held)
	g.Add(first)
	retry := newTracked("address/x", lease.Held)
	g.Add(retry)
	assert.Equal(t, []string{"address/x", "address/x"}, names(g.Outstanding()))
	retry.set(lease.Released)
	assert.Equal(t, []string{"address/x"}, names(g.Outstanding()))
	first.set(lease.Orphaned)
	assert.Empty(t, g.Outstanding())
}

// heapInUse returns the live heap after a full collection.
// A ledger's memory follows what is outstanding, not what it ever saw: a burst of leases costs
// nothing once they are released. Measured as retained heap after GC, with
// one lease Held throughout and after a burst of orphans that a retry recovered.
func TestLedgerMemoryAfterABurst(t *testing.T) {
	const burst = 30000
	var g lease.Ledger
	//releasepath:ok keep stays held on purpose: the ledger must keep it after the burst
	keep := lease.New("address/long-lived", "x", nopRelease)
	g.Add(keep)
	base := heapInUse()

	ctx := context.Background()
	for i := 0; i < burst; i++ {
		l := lease.New("address/b", "b", nopRelease)
		g.Add(l)
		_ = l.Release(ctx)
	}
	afterReleased := heapInUse()

	// A burst of orphans, each recovered by a later Released lease of the same name.
	fail := func(context.Context, string) error { return errors.New("no") }
	for i := 0; i < burst; i++ {
		name := fmt.Sprintf("address/o-%d", i)
		o := lease.New(name, "o", fail)
		g.Add(o)
		_ = o.Release(ctx)
		r := lease.New(name, "r", nopRelease)
		g.Add(r)
		_ = r.Release(ctx)
	}
	afterRecovered := heapInUse()

	// A burst of Released leases that share the name of a lease still Held: one of them is
	// enough to recover that lease should it be orphaned later, so the rest cost nothing.
	same := lease.New("address/same", "s", nopRelease)
	g.Add(same)
	for i := 0; i < burst; i++ {
		l := lease.New("address/same", "b", nopRelease)
		g.Add(l)
		_ = l.Release(ctx)
	}
	afterSameName := heapInUse()
	require.NoError(t, same.Release(ctx))
	out := g.Outstanding()
	runtime.KeepAlive(&g)

	assert.Equal(t, []string{"address/long-lived"}, names(out))
	t.Logf("retained after bursts of %d: released %d B, recovered orphans %d B, same name %d B",
		burst, int64(afterReleased)-int64(base), int64(afterRecovered)-int64(base), int64(afterSameName)-int64(base))
	const slack = 1 << 20 // far below what 200k retained entries would cost
	assert.Less(t, int64(afterReleased)-int64(base), int64(slack), "heap retained after a released burst: %d bytes", int64(afterReleased)-int64(base))
	assert.Less(t, int64(afterRecovered)-int64(base), int64(slack), "heap retained after a recovered orphan burst: %d bytes", int64(afterRecovered)-int64(base))
	assert.Less(t, int64(afterSameName)-int64(base), int64(slack), "heap retained after a released burst sharing a held lease's name: %d bytes", int64(afterSameName)-int64(base))
}

// A Ledger is safe for concurrent use: Adds, releases and Outstanding from many goroutines.
func TestLedgerConcurrentUse(t *testing.T) {
	var g lease.Ledger
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				l := lease.New(fmt.Sprintf("address/%d-%d", w, i), i, func(context.Context, int) error { return nil })
				g.Add(l)
				if i%50 == 0 {
					_ = g.Outstanding()
				}
				_ = l.Release(context.Background())
			}
		}(w)
	}
	wg.Wait()
	assert.Empty(t, g.Outstanding())
}

// burst adds n Released leases of unrelated names to g, enough to make it drop and shrink.
func burst(g *lease.Ledger, tag string, n int) {
	for i := 0; i < n; i++ {
		g.Add(newTracked(fmt.Sprintf("address/%s-%d", tag, i), lease.Released))
	}
}

// "a lease added twice is listed twice", "in the order they were
// added", and a Released lease recovers only the orphans added before it, whatever the ledger
// dropped in between.
func TestLedgerOrderDuplicatesAndChains(t *testing.T) {
	for _, n := range []int{0, 3, 64, 1000, 10000} {
		t.Run(fmt.Sprint("burst=", n), func(t *testing.T) {
			var g lease.Ledger
			a := newTracked("address/a", lease.Held)
			g.Add(a)
			burst(&g, "p", n)
			g.Add(a)
			burst(&g, "q", n)
			o1 := newTracked("address/x", lease.Orphaned)
			g.Add(o1)
			burst(&g, "r", n)
			g.Add(newTracked("address/x", lease.Released))
			burst(&g, "s", n)
			_ = g.Outstanding()
			o2 := newTracked("address/x", lease.Held)
			g.Add(o2)
			burst(&g, "t", n)
			o2.set(lease.Orphaned)
			b := newTracked("address/b", lease.Held)
			g.Add(b)
			burst(&g, "u", n)
			assert.Equal(t, []lease.Tracked{a, a, o2, b}, g.Outstanding())
			// A Kept lease of the same name recovers nothing.
			g.Add(newTracked("address/x", lease.Kept))
			burst(&g, "v", n)
			assert.Equal(t, []lease.Tracked{a, a, o2, b}, g.Outstanding())
			a.set(lease.Released)
			b.set(lease.Kept)
			assert.Equal(t, []lease.Tracked{o2}, g.Outstanding())
		})
	}
}

func (h *tracked) Name() string       { return h.name }
func (h *tracked) State() lease.State { return lease.State(h.state.Load()) }
func (h *tracked) set(s lease.State)  { h.state.Store(uint32(s)) }
