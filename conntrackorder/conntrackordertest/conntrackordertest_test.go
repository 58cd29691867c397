package conntrackordertest_test

import (
	"context"
	"errors"
	"net/netip"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/conntrackorder/conntrackordertest"
)

var (
	planA = conntrackorder.Plan{{Protocol: conntrackorder.UDP, DstPort: 31201}}
	planB = conntrackorder.Plan{{Protocol: conntrackorder.UDP, OrigDst: netip.MustParseAddr("172.30.0.41"), DstPort: 80}}
	errX  = errors.New("conntrack: operation not permitted")
)

func TestFlusherRecordsEveryCall(t *testing.T) {
	var f conntrackordertest.Flusher // the zero value works
	ctx := context.Background()
	require.NoError(t, f.Flush(ctx, planA))
	f.FailNext(1, errX)
	require.ErrorIs(t, f.Flush(ctx, planB), errX)
	require.NoError(t, f.Flush(ctx, planB))

	want := []conntrackordertest.Call{{Plan: planA}, {Plan: planB, Err: errX}, {Plan: planB}}
	if diff := cmp.Diff(want, f.Calls(), cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
		t.Errorf("Calls (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]conntrackorder.Plan{planA, planB}, f.Flushed()); diff != "" {
		t.Errorf("Flushed (-want +got):\n%s", diff)
	}
	f.Reset()
	assert.Empty(t, f.Calls())
}

func TestFlusherFailNext(t *testing.T) {
	tests := []struct {
		name string
		give int
		want []bool // whether each of four flushes fails
	}{
		{name: "none", give: 0, want: []bool{false, false, false, false}},
		{name: "two", give: 2, want: []bool{true, true, false, false}},
		{name: "more than calls", give: 9, want: []bool{true, true, true, true}},
		{name: "negative cancels", give: -1, want: []bool{false, false, false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := conntrackordertest.New()
			f.FailNext(tt.give, errX)
			var got []bool
			for i := 0; i < 4; i++ {
				got = append(got, f.Flush(context.Background(), planA) != nil)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestFlusherFailNextNeedsAnError(t *testing.T) {
	assert.PanicsWithValue(t, "conntrackordertest: FailNext needs an error", func() {
		conntrackordertest.New().FailNext(1, nil)
	})
}

func TestFlusherFailWith(t *testing.T) {
	f := conntrackordertest.New()
	f.FailWith(func(_ context.Context, plan conntrackorder.Plan) error {
		if plan[0].DstPort == 31201 {
			return errX
		}
		return nil
	})
	f.FailNext(1, errors.New("first"))
	ctx := context.Background()
	assert.EqualError(t, f.Flush(ctx, planB), "first", "FailNext goes first")
	assert.ErrorIs(t, f.Flush(ctx, planA), errX)
	assert.NoError(t, f.Flush(ctx, planB))
	f.FailWith(nil)
	assert.NoError(t, f.Flush(ctx, planA))
}

func TestFlusherContextDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f := conntrackordertest.New()
	require.ErrorIs(t, f.Flush(ctx, planA), context.Canceled)
	assert.Empty(t, f.Flushed())
}

func TestFlusherKeepsItsOwnCopy(t *testing.T) {
	f := conntrackordertest.New()
	plan := append(conntrackorder.Plan(nil), planA...)
	require.NoError(t, f.Flush(context.Background(), plan))
	plan[0].DstPort = 1
	got := f.Flushed()
	got[0][0].DstPort = 2
	if diff := cmp.Diff([]conntrackorder.Plan{planA}, f.Flushed()); diff != "" {
		t.Errorf("Flushed (-want +got):\n%s", diff)
	}
}

func TestFlusherConcurrentUse(t *testing.T) {
	f := conntrackordertest.New()
	f.FailNext(50, errX)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 25; j++ {
				_ = f.Flush(context.Background(), planA)
				_ = f.Calls()
			}
		}()
	}
	wg.Wait()
	assert.Len(t, f.Calls(), 200)
	assert.Len(t, f.Flushed(), 150)
}

func TestFlusherRecordsReconcileCalls(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "ns/dns:dns", Protocol: conntrackorder.UDP, Port: 53,
		ClusterIPs: []netip.Addr{netip.MustParseAddr("172.30.0.10")}}))
	desired := tr.Desired()
	f := conntrackordertest.New()
	ctx := context.Background()

	require.NoError(t, f.Reconcile(ctx, planA, desired))
	f.FailNext(1, errX)
	require.ErrorIs(t, f.Reconcile(ctx, nil, desired), errX)
	require.NoError(t, f.Flush(ctx, planB))

	calls := f.Calls()
	require.Len(t, calls, 3)
	assert.Equal(t, planA, calls[0].Plan)
	assert.Same(t, desired, calls[0].Desired)
	assert.Nil(t, calls[1].Plan)
	assert.ErrorIs(t, calls[1].Err, errX)
	assert.Nil(t, calls[2].Desired, "a Flush has no desired state")
	if diff := cmp.Diff([]conntrackorder.Plan{planA, planB}, f.Flushed()); diff != "" {
		t.Errorf("Flushed (-want +got):\n%s", diff)
	}
	stale := conntrackorder.Flow{Protocol: conntrackorder.UDP,
		OrigDst: netip.MustParseAddrPort("172.30.0.10:53"), ReplySrc: netip.MustParseAddrPort("172.30.0.10:53")}
	assert.True(t, calls[0].Desired.Contradicts(stale), "the recorded desired state answers")
}

// TestFlusherErrorPrecedenceAndReset: Flush returns "in this order of precedence: ctx's error when
// ctx is done; the error given to FailNext while that count lasts; the result of the function
// given to FailWith; nil. Every call is recorded, also a failed one." Reset "forgets the
// recorded calls. It keeps what FailNext and FailWith set." Flushed holds only the successes,
// "Flush and Reconcile alike".
func TestFlusherErrorPrecedenceAndReset(t *testing.T) {
	plan := conntrackorder.Plan{{Protocol: conntrackorder.UDP, DstPort: 31000}}
	errNext, errWith := errors.New("next"), errors.New("with")
	var zero conntrackordertest.Flusher // "The zero value is ready to use"
	f := &zero
	f.FailWith(func(context.Context, conntrackorder.Plan) error { return errWith })
	f.FailNext(2, errNext)
	done, cancel := context.WithCancel(context.Background())
	cancel()
	ctx := context.Background()

	assert.ErrorIs(t, f.Flush(done, plan), context.Canceled)
	assert.ErrorIs(t, f.Flush(ctx, plan), errNext)
	f.Reset()
	assert.Empty(t, f.Calls())
	assert.ErrorIs(t, f.Reconcile(ctx, plan, nil), errNext, "Reset kept FailNext")
	assert.ErrorIs(t, f.Flush(ctx, plan), errWith)
	f.FailWith(nil)
	assert.NoError(t, f.Flush(ctx, plan))
	d := conntrackorder.NewTracker().Desired()
	assert.NoError(t, f.Reconcile(ctx, plan, d))
	f.FailNext(1, errNext)
	f.FailNext(0, nil) // cancels it
	assert.NoError(t, f.Flush(ctx, nil))

	calls := f.Calls()
	require.Len(t, calls, 5)
	assert.ErrorIs(t, calls[0].Err, errNext)
	assert.Nil(t, calls[0].Desired)
	assert.Same(t, d, calls[3].Desired)
	assert.Empty(t, cmp.Diff([]conntrackorder.Plan{plan, plan, nil}, f.Flushed(), cmp.Comparer(func(a, b conntrackorder.Plan) bool { return len(a) == len(b) && (len(a) == 0 || a[0] == b[0]) })))

	calls[3].Plan[0].DstPort = 1
	assert.EqualValues(t, 31000, f.Calls()[3].Plan[0].DstPort, "Calls must return a copy")
	plan[0].ReplySrc = netip.MustParseAddr("10.0.0.1")
	assert.False(t, f.Calls()[3].Plan[0].ReplySrc.IsValid(), "the Flusher must record its own copy")
	assert.Panics(t, func() { f.FailNext(1, nil) })
}
