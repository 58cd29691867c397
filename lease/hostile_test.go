package lease_test

// Hostile tests: each one attacks a promise of lease's documentation, written from the docs
// alone. See the test names for the promise attacked.

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/lease"
)

func hNop(context.Context, string) error { return nil }

// hWaitUntil retries cond, yielding the processor, until it holds; it fails the test if it
// never does within many tries. It never sleeps as an assertion.
func hWaitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for i := 0; i < 200000; i++ {
		if cond() {
			return
		}
		runtime.Gosched()
		if i > 1000 {
			time.Sleep(time.Millisecond)
		}
	}
	t.Fatalf("never: %s", what)
}

// hGoroutinesIn counts the goroutines whose stack mentions fn.
func hGoroutinesIn(fn string) int {
	buf := make([]byte, 1<<20)
	n := 0
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, fn) {
			n++
		}
	}
	return n
}

// Promise: "A Release from inside it, with the context it was given or one derived from it,
// returns at once an error wrapping ErrInProgress", "the outer call returns that [outcome]".
func TestHostileReleaseReenteredFromItsOwnReleaseFunction(t *testing.T) {
	type key struct{}
	derive := map[string]func(context.Context) (context.Context, context.CancelFunc){
		"same": func(ctx context.Context) (context.Context, context.CancelFunc) { return ctx, func() {} },
		"timeout": func(ctx context.Context) (context.Context, context.CancelFunc) {
			return context.WithTimeout(ctx, time.Minute)
		},
		"value": func(ctx context.Context) (context.Context, context.CancelFunc) {
			return context.WithValue(ctx, key{}, 1), func() {}
		},
		"withoutcancel": func(ctx context.Context) (context.Context, context.CancelFunc) {
			return context.WithCancel(context.WithoutCancel(ctx))
		},
	}
	for name, d := range derive {
		for _, outerFails := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/outerFails=%v", name, outerFails), func(t *testing.T) {
				var l *lease.Lease[string]
				var inner error
				var stateInside lease.State
				calls := 0
				l = lease.New("address/self", "self", func(ctx context.Context, _ string) error {
					calls++
					c, cancel := d(ctx)
					defer cancel()
					inner = l.Release(c)
					stateInside = l.State()
					if outerFails {
						return errors.New("cloud said no")
					}
					return nil
				})
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				err := l.Release(ctx)
				assert.ErrorIs(t, inner, lease.ErrInProgress)
				assert.Equal(t, lease.Held, stateInside)
				assert.Equal(t, 1, calls)
				if outerFails {
					var oe *lease.OrphanError
					require.ErrorAs(t, err, &oe)
					assert.Equal(t, lease.Orphaned, l.State())
				} else {
					require.NoError(t, err)
					assert.Equal(t, lease.Released, l.State())
				}
			})
		}
	}
}

// Same promise from a goroutine the release function starts with its context, and waits for.
func TestHostileReleaseReenteredFromGoroutineOfItsReleaseFunction(t *testing.T) {
	var l *lease.Lease[string]
	var inner error
	l = lease.New("address/self", "self", func(ctx context.Context, _ string) error {
		done := make(chan error)
		go func() {
			c, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			done <- l.Release(c)
		}()
		inner = <-done
		return nil
	})
	require.NoError(t, l.Release(context.Background()))
	assert.ErrorIs(t, inner, lease.ErrInProgress)
	assert.Equal(t, lease.Released, l.State())
}

// The context marks this lease's release, not "some release": a release function of one lease
// that releases another lease (a forwarding rule releasing its address) must really release it,
// and a cycle back to the first lease gets ErrInProgress.
func TestHostileReleaseOfAnotherLeaseFromAReleaseFunction(t *testing.T) {
	var a, b *lease.Lease[string]
	var bErr, aFromB error
	b = lease.New("address/b", "b", func(ctx context.Context, _ string) error {
		aFromB = a.Release(ctx)
		return nil
	})
	a = lease.New("forwarding-rule/a", "a", func(ctx context.Context, _ string) error {
		bErr = b.Release(ctx)
		return nil
	})
	require.NoError(t, a.Release(context.Background()))
	assert.NoError(t, bErr, "releasing another lease from a release function")
	assert.Equal(t, lease.Released, b.State())
	assert.ErrorIs(t, aFromB, lease.ErrInProgress)
	assert.Equal(t, lease.Released, a.State())
}

// A context that came from an earlier, finished release is not "inside" the release function
// any more: a later retry with it must try again, not report ErrInProgress.
func TestHostileRetryWithContextOfAFinishedRelease(t *testing.T) {
	var saved context.Context
	calls := 0
	l := lease.New("address/retry", "retry", func(ctx context.Context, _ string) error {
		calls++
		if saved == nil {
			saved = ctx
			return errors.New("transient")
		}
		return nil
	})
	require.Error(t, l.Release(context.Background()))
	require.Equal(t, lease.Orphaned, l.State())
	err := l.Release(saved)
	require.NoError(t, err)
	assert.Equal(t, 2, calls)
	assert.Equal(t, lease.Released, l.State())
}

// Promise: "A Release that finds another in progress waits for it, however long the other's
// context allows, and returns that call's result instead of calling the release function a
// second time" — also when the waiter's own context is already cancelled.
func TestHostileConcurrentReleaseGetsTheWinnersResult(t *testing.T) {
	for _, fail := range []bool{false, true} {
		t.Run(fmt.Sprint("fail=", fail), func(t *testing.T) {
			started := make(chan struct{})
			proceed := make(chan struct{})
			var calls atomic.Int32
			cause := errors.New("quota exceeded")
			l := lease.New("address/race", "race", func(context.Context, string) error {
				calls.Add(1)
				close(started)
				<-proceed
				if fail {
					return cause
				}
				return nil
			})
			winner := make(chan error, 1)
			go func() { winner <- l.Release(context.Background()) }()
			<-started
			const waiters = 4
			before := hGoroutinesIn("lease.(*Lease[...]).Release")
			results := make(chan error, waiters)
			for i := 0; i < waiters; i++ {
				go func() {
					ctx, cancel := context.WithCancel(context.Background())
					cancel() // the waiter's own context does not bound the wait
					results <- l.Release(ctx)
				}()
			}
			hWaitUntil(t, "every waiter is inside Release", func() bool {
				return hGoroutinesIn("lease.(*Lease[...]).Release") >= before+waiters
			})
			close(proceed)
			werr := <-winner
			for i := 0; i < waiters; i++ {
				err := <-results
				if fail {
					var oe *lease.OrphanError
					require.ErrorAs(t, err, &oe)
					assert.ErrorIs(t, err, cause)
					assert.Equal(t, "address/race", oe.Name)
				} else {
					assert.NoError(t, err)
				}
			}
			if fail {
				assert.ErrorIs(t, werr, cause)
				assert.Equal(t, lease.Orphaned, l.State())
			} else {
				assert.NoError(t, werr)
				assert.Equal(t, lease.Released, l.State())
			}
			assert.Equal(t, int32(1), calls.Load())
		})
	}
}

// Promise (Keep): "While a release is in progress, Keep only takes effect if that release
// fails: ... the lease becomes Released; one that was not becomes Kept instead of Orphaned,
// and that Release returns nil." Keep never blocks.
func TestHostileKeepDuringRelease(t *testing.T) {
	for _, fail := range []bool{false, true} {
		t.Run(fmt.Sprint("fail=", fail), func(t *testing.T) {
			started := make(chan struct{})
			proceed := make(chan struct{})
			calls := 0
			l := lease.New("address/k", "k", func(context.Context, string) error {
				calls++
				close(started)
				<-proceed
				if fail {
					return errors.New("no")
				}
				return nil
			})
			res := make(chan error, 1)
			go func() { res <- l.Release(context.Background()) }()
			<-started
			l.Keep() // must not block while the release function is blocked
			assert.Equal(t, lease.Held, l.State(), "state while in progress")
			close(proceed)
			err := <-res
			require.NoError(t, err)
			if fail {
				assert.Equal(t, lease.Kept, l.State())
			} else {
				assert.Equal(t, lease.Released, l.State())
			}
			require.NoError(t, l.Release(context.Background()))
			assert.Equal(t, 1, calls)
		})
	}
}

// Promise: "When the release function panics, the lease becomes Orphaned ... and the panic
// continues"; a later Release tries again; Value stays available.
func TestHostilePanickingReleaseOrphansAndRetries(t *testing.T) {
	calls := 0
	l := lease.New("address/p", "p", func(context.Context, string) error {
		calls++
		if calls == 1 {
			panic("sdk bug")
		}
		return nil
	})
	p := func() (p any) {
		defer func() { p = recover() }()
		_ = l.Release(context.Background())
		return nil
	}()
	assert.Equal(t, "sdk bug", p)
	assert.Equal(t, lease.Orphaned, l.State())
	assert.Equal(t, "p", l.Value())
	require.NoError(t, l.Release(context.Background()))
	assert.Equal(t, lease.Released, l.State())
	assert.Equal(t, 2, calls)
}

// Promise (Add): panics with "lease:" for nil and a nil *Lease, and the ledger is unchanged.
func TestHostileLedgerAddNil(t *testing.T) {
	var g lease.Ledger
	held := lease.New("address/h", "h", hNop)
	g.Add(held)
	for _, give := range []lease.Tracked{nil, (*lease.Lease[string])(nil), (*lease.Lease[int])(nil)} {
		p := func() (p any) {
			defer func() { p = recover() }()
			g.Add(give)
			return nil
		}()
		require.NotNil(t, p, "Add(%#v)", give)
		assert.True(t, strings.HasPrefix(fmt.Sprint(p), "lease:"), "panic %v", p)
	}
	assert.Equal(t, []lease.Tracked{held}, g.Outstanding())
}

// hTracked is a Tracked whose state the test sets.
type hTracked struct {
	name  string
	state atomic.Uint32
}

func (h *hTracked) Name() string       { return h.name }
func (h *hTracked) State() lease.State { return lease.State(h.state.Load()) }
func (h *hTracked) set(s lease.State)  { h.state.Store(uint32(s)) }
func hNewTracked(name string, s lease.State) *hTracked {
	h := &hTracked{name: name}
	h.set(s)
	return h
}

// hNames lists the names of ts.
func hNames(ts []lease.Tracked) []string {
	out := []string{}
	for _, t := range ts {
		out = append(out, t.Name())
	}
	return out
}

// Promise (Outstanding): "The result depends only on the states and names of the leases added,
// in their order: never on when the ledger dropped what was no longer outstanding." Here the
// recovering lease is Released (and so droppable) while the earlier lease of its name is still
// Held; that one becomes Orphaned only later, after many unrelated Adds.
func TestHostileLedgerRecoveryIndependentOfUnrelatedAdds(t *testing.T) {
	for _, unrelated := range []int{0, 1, 7, 100, 5000} {
		t.Run(fmt.Sprint("unrelated=", unrelated), func(t *testing.T) {
			var g lease.Ledger
			first := hNewTracked("address/x", lease.Held)
			g.Add(first)
			retry := hNewTracked("address/x", lease.Held)
			g.Add(retry)
			retry.set(lease.Released)
			for i := 0; i < unrelated; i++ {
				g.Add(hNewTracked(fmt.Sprintf("address/u-%d", i), lease.Released))
			}
			first.set(lease.Orphaned)
			assert.Empty(t, g.Outstanding(), "the Orphaned address/x was recovered by the later Released one")

			// A Released lease added before an orphan of the same name does not recover it.
			var h lease.Ledger
			early := hNewTracked("address/y", lease.Released)
			h.Add(early)
			for i := 0; i < unrelated; i++ {
				h.Add(hNewTracked(fmt.Sprintf("address/v-%d", i), lease.Released))
			}
			late := hNewTracked("address/y", lease.Orphaned)
			h.Add(late)
			for i := 0; i < unrelated; i++ {
				h.Add(hNewTracked(fmt.Sprintf("address/w-%d", i), lease.Released))
			}
			assert.Equal(t, []string{"address/y"}, hNames(h.Outstanding()))
		})
	}
}

// Same promise, with Outstanding called (and so dropping) between the steps.
func TestHostileLedgerRecoveryIndependentOfOutstandingCalls(t *testing.T) {
	var g lease.Ledger
	first := hNewTracked("address/x", lease.Held)
	g.Add(first)
	retry := hNewTracked("address/x", lease.Held)
	g.Add(retry)
	assert.Equal(t, []string{"address/x", "address/x"}, hNames(g.Outstanding()))
	retry.set(lease.Released)
	assert.Equal(t, []string{"address/x"}, hNames(g.Outstanding()))
	first.set(lease.Orphaned)
	assert.Empty(t, g.Outstanding())
}

// hHeap returns the live heap after a full collection.
func hHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// Promise (Ledger): "Its memory follows what is outstanding, not what it ever saw ... a burst
// of leases costs nothing once they are released". Measured as retained heap after GC, with
// one lease Held throughout and after a burst of orphans that a retry recovered.
func TestHostileLedgerMemoryAfterBurst(t *testing.T) {
	const burst = 30000
	var g lease.Ledger
	keep := lease.New("address/long-lived", "x", hNop)
	g.Add(keep)
	base := hHeap()

	ctx := context.Background()
	for i := 0; i < burst; i++ {
		l := lease.New("address/b", "b", hNop)
		g.Add(l)
		_ = l.Release(ctx)
	}
	afterReleased := hHeap()

	// A burst of orphans, each recovered by a later Released lease of the same name.
	fail := func(context.Context, string) error { return errors.New("no") }
	for i := 0; i < burst; i++ {
		name := fmt.Sprintf("address/o-%d", i)
		o := lease.New(name, "o", fail)
		g.Add(o)
		_ = o.Release(ctx)
		r := lease.New(name, "r", hNop)
		g.Add(r)
		_ = r.Release(ctx)
	}
	afterRecovered := hHeap()

	// A burst of Released leases that share the name of a lease still Held: one of them is
	// enough to recover that lease should it be orphaned later, so the rest cost nothing.
	same := lease.New("address/same", "s", hNop)
	g.Add(same)
	for i := 0; i < burst; i++ {
		l := lease.New("address/same", "b", hNop)
		g.Add(l)
		_ = l.Release(ctx)
	}
	afterSameName := hHeap()
	require.NoError(t, same.Release(ctx))
	out := g.Outstanding()
	runtime.KeepAlive(&g)

	assert.Equal(t, []string{"address/long-lived"}, hNames(out))
	t.Logf("retained after bursts of %d: released %d B, recovered orphans %d B, same name %d B",
		burst, int64(afterReleased)-int64(base), int64(afterRecovered)-int64(base), int64(afterSameName)-int64(base))
	const slack = 1 << 20 // far below what 200k retained entries would cost
	assert.Less(t, int64(afterReleased)-int64(base), int64(slack), "heap retained after a released burst: %d bytes", int64(afterReleased)-int64(base))
	assert.Less(t, int64(afterRecovered)-int64(base), int64(slack), "heap retained after a recovered orphan burst: %d bytes", int64(afterRecovered)-int64(base))
	assert.Less(t, int64(afterSameName)-int64(base), int64(slack), "heap retained after a released burst sharing a held lease's name: %d bytes", int64(afterSameName)-int64(base))
}

// A Ledger is safe for concurrent use: Adds, releases and Outstanding from many goroutines.
func TestHostileLedgerConcurrent(t *testing.T) {
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

// A Release that waits for one whose release function panics must not wait forever; after the
// panic the lease is Orphaned, so the waiter either gets an error or tries again itself.
func TestHostileWaiterOnPanickingRelease(t *testing.T) {
	started := make(chan struct{})
	proceed := make(chan struct{})
	calls := 0
	l := lease.New("address/pw", "pw", func(context.Context, string) error {
		calls++
		if calls == 1 {
			close(started)
			<-proceed
			panic("sdk bug")
		}
		return nil
	})
	winner := make(chan any, 1)
	go func() {
		defer func() { winner <- recover() }()
		_ = l.Release(context.Background())
	}()
	<-started
	before := hGoroutinesIn("lease.(*Lease[...]).Release")
	waiter := make(chan error, 1)
	go func() { waiter <- l.Release(context.Background()) }()
	hWaitUntil(t, "the waiter is inside Release", func() bool {
		return hGoroutinesIn("lease.(*Lease[...]).Release") >= before+1
	})
	close(proceed)
	assert.Equal(t, "sdk bug", <-winner)
	select {
	case err := <-waiter:
		if err == nil {
			assert.Equal(t, lease.Released, l.State(), "a nil result means the waiter released it")
		} else {
			var oe *lease.OrphanError
			assert.ErrorAs(t, err, &oe)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("deadlock: the waiter never returned after the release it waited for panicked")
	}
}

// "The release function may call the lease's methods": Keep, State, Value, Name and String
// from inside it return, and a Keep there takes effect only if the release fails.
func TestHostileMethodsFromInsideRelease(t *testing.T) {
	for _, fail := range []bool{false, true} {
		var l *lease.Lease[string]
		var inside []string
		l = lease.New("address/m", "m", func(context.Context, string) error {
			inside = append(inside, l.Name(), l.Value(), l.State().String(), l.String())
			l.Keep()
			if fail {
				return errors.New("no")
			}
			return nil
		})
		done := make(chan error, 1)
		go func() { done <- l.Release(context.Background()) }()
		select {
		case err := <-done:
			require.NoError(t, err, "fail=%v", fail)
		case <-time.After(20 * time.Second):
			t.Fatal("deadlock: a method called from inside the release function")
		}
		assert.Equal(t, []string{"address/m", "m", "held"}, inside[:3])
		assert.Contains(t, inside[3], "address/m")
		if fail {
			assert.Equal(t, lease.Kept, l.State())
		} else {
			assert.Equal(t, lease.Released, l.State())
		}
	}
}

// OrphanError's documented formats, and New's nil release.
func TestHostileOrphanErrorAndNew(t *testing.T) {
	tests := []struct {
		give string
		want string
	}{
		{give: "address/k8s-ilb-a1b2", want: "address"},
		{give: "forwarding-rule/a/b", want: "forwarding-rule"},
		{give: "address", want: ""},
		{give: "/x", want: ""},
		{give: "", want: ""},
	}
	for _, tt := range tests {
		e := &lease.OrphanError{Name: tt.give, Err: errors.New("quota")}
		assert.Equal(t, tt.want, e.Kind(), "Kind of %q", tt.give)
		assert.Equal(t, "lease: "+tt.give+" orphaned: quota", e.Error())
	}
	assert.Equal(t, "state(0)", lease.State(0).String())
	assert.Equal(t, "state(9)", lease.State(9).String())
	p := func() (p any) {
		defer func() { p = recover() }()
		lease.New[int]("address/x", 1, nil)
		return nil
	}()
	assert.True(t, strings.HasPrefix(fmt.Sprint(p), "lease:"), "panic %v", p)
}

// hBurst adds n Released leases of unrelated names to g, enough to make it drop and shrink.
func hBurst(g *lease.Ledger, tag string, n int) {
	for i := 0; i < n; i++ {
		g.Add(hNewTracked(fmt.Sprintf("address/%s-%d", tag, i), lease.Released))
	}
}

// Promise (Add, Outstanding): "a lease added twice is listed twice", "in the order they were
// added", and a Released lease recovers only the orphans added before it, whatever the ledger
// dropped in between.
func TestHostileLedgerOrderDuplicatesAndChains(t *testing.T) {
	for _, n := range []int{0, 3, 64, 1000, 10000} {
		t.Run(fmt.Sprint("burst=", n), func(t *testing.T) {
			var g lease.Ledger
			a := hNewTracked("address/a", lease.Held)
			g.Add(a)
			hBurst(&g, "p", n)
			g.Add(a)
			hBurst(&g, "q", n)
			o1 := hNewTracked("address/x", lease.Orphaned)
			g.Add(o1)
			hBurst(&g, "r", n)
			g.Add(hNewTracked("address/x", lease.Released))
			hBurst(&g, "s", n)
			_ = g.Outstanding()
			o2 := hNewTracked("address/x", lease.Held)
			g.Add(o2)
			hBurst(&g, "t", n)
			o2.set(lease.Orphaned)
			b := hNewTracked("address/b", lease.Held)
			g.Add(b)
			hBurst(&g, "u", n)
			assert.Equal(t, []lease.Tracked{a, a, o2, b}, g.Outstanding())
			// A Kept lease of the same name recovers nothing.
			g.Add(hNewTracked("address/x", lease.Kept))
			hBurst(&g, "v", n)
			assert.Equal(t, []lease.Tracked{a, a, o2, b}, g.Outstanding())
			a.set(lease.Released)
			b.set(lease.Kept)
			assert.Equal(t, []lease.Tracked{o2}, g.Outstanding())
		})
	}
}

// hWrapped is a user's own context type that embeds the context it was given, as logging and
// tracing libraries do: it is derived from that context.
type hWrapped struct{ context.Context }

// Re-entry through a context of the user's own type that embeds the release's context.
func TestHostileReleaseReenteredThroughUserContextType(t *testing.T) {
	var l *lease.Lease[string]
	var inner error
	calls := 0
	l = lease.New("address/w", "w", func(ctx context.Context, _ string) error {
		calls++
		done := make(chan error, 1)
		go func() { done <- l.Release(hWrapped{ctx}) }()
		select {
		case inner = <-done:
		case <-time.After(20 * time.Second):
			return errors.New("deadlock: Release through an embedding context type never returned")
		}
		return nil
	})
	require.NoError(t, l.Release(context.Background()))
	assert.ErrorIs(t, inner, lease.ErrInProgress)
	assert.Equal(t, 1, calls)
}

// Promise: "The release function never runs twice at the same time", it succeeds at most once,
// and Released and Kept are final, under any mix of concurrent Release and Keep.
func TestHostileConcurrentReleaseAndKeepStress(t *testing.T) {
	for round := 0; round < 50; round++ {
		var inFlight, overlaps, successes, calls atomic.Int32
		l := lease.New("address/s", round, func(_ context.Context, v int) error {
			if inFlight.Add(1) != 1 {
				overlaps.Add(1)
			}
			defer inFlight.Add(-1)
			n := calls.Add(1)
			runtime.Gosched()
			if (int(n)+v)%3 != 0 {
				return errors.New("flaky cloud")
			}
			successes.Add(1)
			return nil
		})
		var wg sync.WaitGroup
		var nilResults atomic.Int32
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				for i := 0; i < 5; i++ {
					if g == 7 && i == 3 && round%2 == 0 {
						l.Keep()
						continue
					}
					st := l.State()
					if err := l.Release(context.Background()); err == nil {
						nilResults.Add(1)
					} else if st == lease.Released || st == lease.Kept {
						t.Errorf("Release after a final state %v failed: %v", st, err)
					}
				}
			}(g)
		}
		wg.Wait()
		assert.Zero(t, overlaps.Load(), "round %d: the release function ran twice at the same time", round)
		assert.LessOrEqual(t, successes.Load(), int32(1), "round %d", round)
		switch l.State() {
		case lease.Released:
			assert.Equal(t, int32(1), successes.Load())
		case lease.Kept:
			assert.Zero(t, successes.Load())
		case lease.Orphaned:
			assert.Zero(t, successes.Load())
		default:
			t.Errorf("round %d: final state %v", round, l.State())
		}
	}
}

// "While a release is in progress the state is the one before it (Held or Orphaned)".
func TestHostileStateDuringRetryIsOrphaned(t *testing.T) {
	started := make(chan struct{})
	proceed := make(chan struct{})
	calls := 0
	l := lease.New("address/o", "o", func(context.Context, string) error {
		calls++
		if calls == 1 {
			return errors.New("first")
		}
		close(started)
		<-proceed
		return nil
	})
	require.Error(t, l.Release(context.Background()))
	done := make(chan error, 1)
	go func() { done <- l.Release(context.Background()) }()
	<-started
	assert.Equal(t, lease.Orphaned, l.State())
	close(proceed)
	require.NoError(t, <-done)
	assert.Equal(t, lease.Released, l.State())
}

// hPanicOf returns what f panics with, or nil.
func hPanicOf(f func()) (p any) {
	defer func() { p = recover() }()
	f()
	return nil
}

// Project rule (bad input: a clear package-prefixed error or panic, and nothing changed):
// Release(nil) must not hand the release function a context that wraps nil, whose first use
// panics inside the release function and leaves the lease Orphaned.
func TestHostileReleaseNilContext(t *testing.T) {
	called := false
	l := lease.New("address/n", "n", func(ctx context.Context, _ string) error {
		called = true
		return ctx.Err()
	})
	var nilCtx context.Context
	var err error
	p := hPanicOf(func() { err = l.Release(nilCtx) })
	if p != nil {
		assert.True(t, strings.HasPrefix(fmt.Sprint(p), "lease:"), "panic %v", p)
	} else {
		assert.ErrorContains(t, err, "lease:")
	}
	assert.False(t, called, "the release function ran with a nil context")
	assert.Equal(t, lease.Held, l.State(), "bad input changed the lease")
}

// Project rule, for the nil ledgers the brief names: a method on a nil *Ledger and
// LedgerFrom(nil) are misuse, and deserve a "lease:" panic, not a bare nil dereference
// (WithLedger(nil, g) already panics with "lease:").
func TestHostileNilLedgerMisuse(t *testing.T) {
	var g *lease.Ledger
	var nilCtx context.Context
	for name, f := range map[string]func(){
		"Add":         func() { g.Add(lease.New("address/a", 1, func(context.Context, int) error { return nil })) },
		"Outstanding": func() { _ = g.Outstanding() },
		"LedgerFrom":  func() { _ = lease.LedgerFrom(nilCtx) },
	} {
		p := hPanicOf(f)
		assert.True(t, strings.HasPrefix(fmt.Sprint(p), "lease:"), "%s: panic %v", name, p)
	}
}

// The context a release function gets from Release is the caller's, seen through: deriving
// from it starts no goroutine, and the caller's cancellation, deadline and values reach it and
// what it derives.
func TestHostileReleaseContextSeesThroughToTheCaller(t *testing.T) {
	type key struct{}
	parent, cancel := context.WithTimeout(context.WithValue(context.Background(), key{}, "v"), time.Hour)
	defer cancel()
	pd, _ := parent.Deadline()
	var (
		before, during int
		stacks         string
		val            any
		dl             time.Time
		childErr       error
		done           bool
	)
	l := lease.New("address/c", "c", func(ctx context.Context, _ string) error {
		before = runtime.NumGoroutine()
		child, cancelChild := context.WithTimeout(ctx, 2*time.Hour)
		defer cancelChild()
		during = runtime.NumGoroutine()
		buf := make([]byte, 1<<20)
		stacks = string(buf[:runtime.Stack(buf, true)])
		val = child.Value(key{})
		dl, _ = child.Deadline()
		cancel() // the caller gives up
		select {
		case <-child.Done():
			done = true
			childErr = child.Err()
		case <-time.After(20 * time.Second):
		}
		return nil
	})
	require.NoError(t, l.Release(parent))
	assert.LessOrEqual(t, during, before)
	assert.NotContains(t, stacks, "context.(*cancelCtx).propagateCancel")
	assert.Equal(t, "v", val)
	assert.Equal(t, pd, dl, "the caller's deadline caps the derived one")
	assert.True(t, done, "the caller's cancellation never reached a context derived in the release")
	assert.ErrorIs(t, childErr, context.Canceled)
}
