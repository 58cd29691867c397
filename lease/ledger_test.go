package lease_test

import (
	"context"
	"fmt"
	"runtime"
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
	assert.PanicsWithValue(t, "lease: Ledger.Add(nil)", func() { g.Add(nil) })
	assert.PanicsWithValue(t, "lease: Ledger.Add of a nil *lease.Lease[int]", func() {
		g.Add((*lease.Lease[int])(nil))
	})
	assert.PanicsWithValue(t, "lease: Ledger.Add of a nil *lease_test.stub", func() { g.Add((*stub)(nil)) })
	assert.Empty(t, g.Outstanding(), "nothing was recorded")
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
