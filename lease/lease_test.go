package lease_test

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/lease"
)

var errCloud = errors.New("cloud: 503 backend error")

// releases counts calls of a release function and fails the first fails of them.
type releases struct {
	calls atomic.Int32
	fails int32
}

func (r *releases) release(ctx context.Context, addr string) error {
	if n := r.calls.Add(1); n <= r.fails {
		return errCloud
	}
	return nil
}

func TestReleaseFailureOrphansThenRetries(t *testing.T) {
	r := &releases{fails: 1}
	l := lease.New("address/a1b2", "10.0.0.7", r.release)

	err := l.Release(context.Background())
	var oe *lease.OrphanError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, "address/a1b2", oe.Name)
	assert.ErrorIs(t, err, errCloud)
	assert.Equal(t, "lease: address/a1b2 orphaned: cloud: 503 backend error", err.Error())
	assert.Equal(t, lease.Orphaned, l.State())
	assert.Equal(t, "10.0.0.7", l.Value(), "the value stays available for a retry or a report")

	require.NoError(t, l.Release(context.Background()), "a later Release tries again")
	assert.Equal(t, lease.Released, l.State())
	require.NoError(t, l.Release(context.Background()), "a released lease releases no more")
	assert.Equal(t, int32(2), r.calls.Load())
}

func TestReleaseRunsOnceOnSuccess(t *testing.T) {
	r := &releases{}
	//releasepath:ok the loop below releases it, three times
	l := lease.New("a", "v", r.release)
	for i := 0; i < 3; i++ {
		require.NoError(t, l.Release(context.Background()))
	}
	assert.Equal(t, int32(1), r.calls.Load())
	assert.Equal(t, lease.Released, l.State())
}

func TestReleasePassesContextAndValue(t *testing.T) {
	type key struct{}
	ctx := context.WithValue(context.Background(), key{}, "trace-7")
	var got []string
	l := lease.New("a", "10.0.0.7", func(ctx context.Context, v string) error {
		got = append(got, ctx.Value(key{}).(string), v)
		return nil
	})
	require.NoError(t, l.Release(ctx))
	assert.Equal(t, []string{"trace-7", "10.0.0.7"}, got)
}

func TestKeep(t *testing.T) {
	tests := []struct {
		name      string
		give      func(l *lease.Lease[string])
		wantState lease.State
		wantCalls int32
	}{
		{name: "held", give: func(*lease.Lease[string]) {}, wantState: lease.Kept},
		{
			name:      "orphaned",
			give:      func(l *lease.Lease[string]) { _ = l.Release(context.Background()) },
			wantState: lease.Kept, wantCalls: 1,
		},
		{
			name: "released",
			give: func(l *lease.Lease[string]) {
				_ = l.Release(context.Background())
				_ = l.Release(context.Background())
			},
			wantState: lease.Released, wantCalls: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &releases{fails: 1}
			l := lease.New("user-address", "10.0.0.9", r.release)
			tt.give(l)
			l.Keep()
			assert.Equal(t, tt.wantState, l.State())
			require.NoError(t, l.Release(context.Background()), "Release after Keep is a no-op")
			assert.Equal(t, tt.wantCalls, r.calls.Load(), "Keep never lets the lease release")
		})
	}
}

func TestStateString(t *testing.T) {
	tests := []struct {
		give lease.State
		want string
	}{
		{lease.Held, "held"},
		{lease.Released, "released"},
		{lease.Kept, "kept"},
		{lease.Orphaned, "orphaned"},
		{lease.State(0), "state(0)"},
		{lease.State(9), "state(9)"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.give.String())
		})
	}
}

func TestLedgerOutstanding(t *testing.T) {
	var g lease.Ledger
	//releasepath:ok held stays held on purpose: the ledger must list it as outstanding
	held := lease.New("held", "10.0.0.1", (&releases{}).release)
	orphan := lease.New("orphan", "10.0.0.2", (&releases{fails: 1}).release)
	released := lease.New("released", "10.0.0.3", (&releases{}).release)
	kept := lease.New("kept", "10.0.0.4", (&releases{}).release)
	for _, l := range []*lease.Lease[string]{held, orphan, released, kept} {
		g.Add(l)
	}
	_ = orphan.Release(context.Background())
	_ = released.Release(context.Background())
	kept.Keep()

	var names []string
	for _, l := range g.Outstanding() {
		names = append(names, l.Name())
	}
	assert.Equal(t, []string{"held", "orphan"}, names)
}

func TestLedgerCompacts(t *testing.T) {
	var g lease.Ledger
	//releasepath:ok keep stays held on purpose: the ledger must keep it through compaction
	keep := lease.New("outstanding", "10.0.0.1", (&releases{}).release)
	g.Add(keep)
	for i := 0; i < 10000; i++ {
		l := lease.New("temp", "10.0.1.1", (&releases{}).release)
		g.Add(l)
		require.NoError(t, l.Release(context.Background()))
	}
	out := g.Outstanding()
	require.Len(t, out, 1)
	assert.Same(t, keep, out[0])
}

func TestLedgerFromContext(t *testing.T) {
	assert.Nil(t, lease.LedgerFrom(context.Background()))
	g := new(lease.Ledger)
	assert.Same(t, g, lease.LedgerFrom(lease.WithLedger(context.Background(), g)))
}

// waitBlocked returns once n goroutines wait for the attempt lock inside Release. It reads the
// goroutine stacks instead of sleeping, and needs no test hook in the production code.
func waitBlocked(n int) {
	buf := make([]byte, 1<<20)
	for {
		blocked := 0
		for _, g := range bytes.Split(buf[:runtime.Stack(buf, true)], []byte("\n\n")) {
			if bytes.Contains(g, []byte(").Release(")) && bytes.Contains(g, []byte("(*Mutex).Lock")) {
				blocked++
			}
		}
		if blocked >= n {
			return
		}
		runtime.Gosched()
	}
}

func TestLedgerOrphanRecoveredByName(t *testing.T) {
	var g lease.Ledger
	first := lease.New("address/lb-1", "10.0.0.7", (&releases{fails: 1}).release)
	g.Add(first)
	require.Error(t, first.Release(context.Background()))
	require.Len(t, g.Outstanding(), 1, "an orphan is outstanding")

	held := lease.New("address/lb-1", "10.0.0.7", (&releases{}).release)
	g.Add(held)
	assert.Len(t, g.Outstanding(), 2, "a held lease of the same name does not recover the orphan")

	require.NoError(t, held.Release(context.Background()))
	assert.Empty(t, g.Outstanding(), "the next attempt released the leftover by its name")

	other := lease.New("address/lb-2", "10.0.0.8", (&releases{fails: 1}).release)
	g.Add(other)
	require.Error(t, other.Release(context.Background()))
	assert.Len(t, g.Outstanding(), 1, "only a release of the same name recovers an orphan")
}

// FuzzLease drives a lease through random Release (succeeding or failing) and Keep calls and
// compares each result and state with a plain model of the documented state machine.
func FuzzLease(f *testing.F) {
	f.Add([]byte{0, 1, 2})
	f.Add([]byte{1, 1, 0, 0})
	f.Add([]byte{2, 0, 1})
	f.Add([]byte{1, 2, 0, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		fail := false
		calls := 0
		//releasepath:ok the fuzzer's ops decide whether it is ever released
		l := lease.New("a", 1, func(context.Context, int) error {
			calls++
			if fail {
				return errCloud
			}
			return nil
		})
		state, wantCalls := lease.Held, 0
		for i, op := range ops {
			switch op % 3 {
			case 0, 1: // Release that succeeds (0) or fails (1)
				fail = op%3 == 1
				err := l.Release(context.Background())
				if state == lease.Held || state == lease.Orphaned {
					wantCalls++
					if fail {
						state = lease.Orphaned
						require.ErrorIs(t, err, errCloud, "op %d", i)
						break
					}
					state = lease.Released
				}
				require.NoError(t, err, "op %d", i)
			case 2:
				l.Keep()
				if state == lease.Held || state == lease.Orphaned {
					state = lease.Kept
				}
			}
			require.Equal(t, state, l.State(), "op %d", i)
			require.Equal(t, wantCalls, calls, "op %d", i)
		}
	})
}

func TestOrphanErrorKind(t *testing.T) {
	tests := []struct {
		give string
		want string
	}{
		{give: "address/k8s-ilb-a1b2", want: "address"},
		{give: "forwarding-rule/k8s-ilb-a1b2", want: "forwarding-rule"},
		{give: "disk/zones/us-central1-a/pd-1", want: "disk"},
		{give: "forwarding-rule/a/b", want: "forwarding-rule"},
		{give: "address k8s-ilb-a1b2", want: ""},
		{give: "address", want: ""},
		{give: "/k8s-ilb-a1b2", want: ""},
		{give: "address/", want: ""},
		{give: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.give, func(t *testing.T) {
			err := &lease.OrphanError{Name: tt.give, Err: errCloud}
			assert.Equal(t, tt.want, err.Kind())
			assert.Equal(t, "lease: "+tt.give+" orphaned: "+errCloud.Error(), err.Error())
		})
	}
}

func TestSplitName(t *testing.T) {
	tests := []struct {
		give     string
		wantKind string
		wantID   string
		wantOK   bool
	}{
		{give: "address/k8s-ilb-a1b2", wantKind: "address", wantID: "k8s-ilb-a1b2", wantOK: true},
		{give: "disk/zones/us-central1-a/pd-1", wantKind: "disk", wantID: "zones/us-central1-a/pd-1", wantOK: true},
		{give: "address", wantOK: false},
		{give: "/k8s-ilb-a1b2", wantOK: false},
		{give: "address/", wantOK: false},
		{give: "/", wantOK: false},
		{give: "", wantOK: false},
	}
	for _, tt := range tests {
		t.Run(tt.give, func(t *testing.T) {
			kind, id, ok := lease.SplitName(tt.give)
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.wantKind, kind)
			assert.Equal(t, tt.wantID, id)
			// Kind is SplitName's reading, so the two never disagree.
			assert.Equal(t, tt.wantKind, (&lease.OrphanError{Name: tt.give}).Kind())
		})
	}
}

// afterFuncCtx is a hand-made context with the AfterFunc method package context uses to
// propagate cancellation without a goroutine.
type afterFuncCtx struct {
	context.Context // for Deadline and Value
	mu              sync.Mutex
	done            chan struct{}
	after           []func()
}

func newAfterFuncCtx() *afterFuncCtx {
	return &afterFuncCtx{Context: context.Background(), done: make(chan struct{})}
}

func (c *afterFuncCtx) Done() <-chan struct{} { return c.done }

func (c *afterFuncCtx) Err() error {
	select {
	case <-c.done:
		return context.Canceled
	default:
		return nil
	}
}

func (c *afterFuncCtx) AfterFunc(f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.after = append(c.after, f)
	return func() bool { return false }
}

func (c *afterFuncCtx) cancel() {
	close(c.done)
	c.mu.Lock()
	after := c.after
	c.mu.Unlock()
	for _, f := range after {
		f()
	}
}

// "When the release function panics, the lease becomes Orphaned ... and the panic
// continues"; a later Release tries again; Value stays available.
func TestPanickingReleaseOrphansThenRetries(t *testing.T) {
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
