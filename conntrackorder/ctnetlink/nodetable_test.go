//go:build linux

package ctnetlink_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/conntrackorder/ctnetlink"
	"github.com/safereconcile/safereconcile/internal/netnstest"
)

// discard is a Flusher that flushes nothing: it stands in for the syncs that ran before the
// table was filled.
type discard struct{}

func (discard) Flush(context.Context, conntrackorder.Plan) error { return nil }

// nodeTracker returns a Tracker that saw nt's state Before, and synced it, and then the
// changes to After: its Pending plan holds what the changes collected.
func nodeTracker(tb testing.TB, nt *netnstest.NodeTable) *conntrackorder.Tracker {
	tb.Helper()
	tr := conntrackorder.NewTracker()
	require.NoError(tb, nt.TrackBefore(tr))
	require.NoError(tb, conntrackorder.NewSyncer(tr, func(context.Context) error { return nil }, discard{}).Sync(context.Background()))
	require.NoError(tb, nt.TrackAfter(tr))
	return tr
}

// On a node's table, mostly TCP, dual-stack, a reconcile after the changes deletes exactly the
// stale UDP entries, of every kind, with the kernel filtering the dump and without; filtered,
// it reads only the UDP entries.
func TestReconcileANodeTable(t *testing.T) {
	netnstest.Require(t)
	nt, err := netnstest.NewNodeTable(netnstest.NodeTableSpec{Services: 60, TCP: 3000, UDP: 1000, Stale: 100, DualStack: true})
	require.NoError(t, err)
	require.Len(t, nt.Stale, 100)
	kinds := map[netnstest.Staleness]int{}
	for _, why := range nt.Stale {
		kinds[why]++
	}
	require.Len(t, kinds, 6, "every kind of stale entry: %v", kinds)

	ns := netnstest.New(t, "node")
	table := ns.Table(t)
	flusher := newFlusher(t, ns)
	for _, filtered := range []bool{true, false} {
		ctnetlink.SetKernelFilter(flusher, filtered)
		require.NoError(t, table.Flush())
		require.NoError(t, table.Insert(nt.Flows...))
		tr := nodeTracker(t, nt)

		require.NoError(t, flusher.Reconcile(context.Background(), tr.Pending(), tr.Desired()))

		var want []netnstest.Flow
		for _, f := range nt.Flows {
			if _, stale := nt.Stale[f]; !stale {
				want = append(want, f)
			}
		}
		got, err := table.List()
		require.NoError(t, err)
		assert.ElementsMatch(t, want, got, "kernel filter %v", filtered)
		wantRead := len(nt.Flows)
		if filtered {
			wantRead = 1000
		}
		assert.Equal(t, wantRead, ctnetlink.Judged(flusher), "entries read, kernel filter %v", filtered)
	}
}
