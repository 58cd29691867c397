package conntrackordertest_test

// Hostile tests: each one attacks a sentence of the package documentation, read without the
// implementation.

import (
	"context"
	"errors"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/conntrackorder/conntrackordertest"
)

// TestHostilePrecedenceAndReset: Flush returns "in this order of precedence: ctx's error when
// ctx is done; the error given to FailNext while that count lasts; the result of the function
// given to FailWith; nil. Every call is recorded, also a failed one." Reset "forgets the
// recorded calls. It keeps what FailNext and FailWith set." Flushed holds only the successes,
// "Flush and Reconcile alike".
func TestHostilePrecedenceAndReset(t *testing.T) {
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
