//go:build linux

package ctnetlink_test

import (
	"context"
	"net/netip"
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

// On a node's table, mostly TCP, single-stack of either family or dual-stack, a reconcile
// after the changes deletes exactly the stale UDP entries, of every kind, with the kernel
// filtering the dump and without; filtered, it reads only the UDP entries.
func TestReconcileANodeTable(t *testing.T) {
	netnstest.Require(t)
	for _, stack := range []netnstest.Stack{netnstest.IPv4Only, netnstest.IPv6Only, netnstest.DualStack} {
		t.Run(stack.String(), func(t *testing.T) {
			nt, err := netnstest.NewNodeTable(netnstest.NodeTableSpec{Services: 60, TCP: 3000, UDP: 1000, Stale: 100, Stack: stack})
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
				require.NoError(t, tr.SetNodeFamilies(stack.Families()))

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
		})
	}
}

// On an IPv4-only node a NodePort is open on IPv4 addresses only: a reconcile judges IPv6
// flows neither by the NodePort of a service nor by the filter for a deleted service's
// NodePort, and reads no IPv6 table unless a service IP is IPv6. Told nothing, a Tracker takes
// the node to be dual-stack, and the same reconcile deletes them all.
func TestReconcileOnSingleStackNodeJudgesNodePortsOfItsFamily(t *testing.T) {
	netnstest.Require(t)
	node4, node6 := netip.MustParseAddr("198.18.1.1"), netip.MustParseAddr("2001:db8:1::1")
	ep4, gone4 := netip.MustParseAddrPort("198.18.2.2:53"), netip.MustParseAddrPort("198.18.2.9:53")
	gone6 := netip.MustParseAddrPort("[2001:db8:2::9]:53")
	flow := func(dst netip.AddrPort, reply netip.AddrPort) netnstest.Flow {
		src := netip.MustParseAddrPort("198.18.100.1:40000")
		if dst.Addr().Is6() {
			src = netip.MustParseAddrPort("[2001:db8:c::1]:40000")
		}
		return netnstest.Flow{Protocol: "udp", Src: src, Dst: dst, ReplySrc: reply}
	}
	var (
		v4NodePort  = flow(netip.AddrPortFrom(node4, 30053), gone4) // stale on any node
		v4Deleted   = flow(netip.AddrPortFrom(node4, 30099), ep4)   // a deleted service's NodePort
		v6NodePort  = flow(netip.AddrPortFrom(node6, 30053), gone6)
		v6Deleted   = flow(netip.AddrPortFrom(node6, 30099), gone6)
		v4Healthy   = flow(netip.AddrPortFrom(netip.MustParseAddr("198.19.0.1"), 53), ep4)
		v6ServiceIP = netip.MustParseAddr("2001:db8:5::1")
		v6Service   = flow(netip.AddrPortFrom(v6ServiceIP, 53), gone6) // stale: not a serving endpoint
	)
	tests := []struct {
		name       string
		ipv4, ipv6 bool // the node's families; both false: not told
		v6Service  bool // an IPv6 service IP, so that the IPv6 table is read
		wantLeft   []netnstest.Flow
		wantRead   int
	}{
		{name: "ipv4 node", ipv4: true, wantLeft: []netnstest.Flow{v4Healthy, v6NodePort, v6Deleted, v6Service}, wantRead: 3},
		{name: "ipv4 node with an ipv6 service IP", ipv4: true, v6Service: true,
			wantLeft: []netnstest.Flow{v4Healthy, v6NodePort, v6Deleted}, wantRead: 6},
		{name: "dual-stack node", ipv4: true, ipv6: true, wantLeft: []netnstest.Flow{v4Healthy, v6Service}, wantRead: 6},
		{name: "not told", wantLeft: []netnstest.Flow{v4Healthy, v6Service}, wantRead: 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := netnstest.New(t, "stack")
			table := ns.Table(t)
			flusher := newFlusher(t, ns)
			require.NoError(t, table.Insert(v4NodePort, v4Deleted, v6NodePort, v6Deleted, v4Healthy, v6Service))

			tr := conntrackorder.NewTracker()
			if tt.ipv4 || tt.ipv6 {
				require.NoError(t, tr.SetNodeFamilies(tt.ipv4, tt.ipv6))
			}
			u := conntrackorder.UDP
			require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "ns/dns:dns", Protocol: u, Port: 53,
				ClusterIPs: []netip.Addr{netip.MustParseAddr("198.19.0.1")}, NodePort: 30053}))
			require.NoError(t, tr.SetEndpoints("ns/dns:dns", []netip.AddrPort{ep4}))
			require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "ns/old:dns", Protocol: u, Port: 53,
				ClusterIPs: []netip.Addr{netip.MustParseAddr("198.19.0.2")}, NodePort: 30099}))
			if tt.v6Service {
				require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "ns/six:dns", Protocol: u, Port: 53,
					ClusterIPs: []netip.Addr{v6ServiceIP}}))
				require.NoError(t, tr.SetEndpoints("ns/six:dns", []netip.AddrPort{netip.MustParseAddrPort("[2001:db8:2::2]:53")}))
			}
			require.NoError(t, conntrackorder.NewSyncer(tr, func(context.Context) error { return nil }, discard{}).Sync(context.Background()))
			tr.DeleteService("ns/old:dns")
			require.Contains(t, tr.Pending(), conntrackorder.Filter{Protocol: u, DstPort: 30099})

			require.NoError(t, flusher.Reconcile(context.Background(), tr.Pending(), tr.Desired()))

			got, err := table.List()
			require.NoError(t, err)
			assert.ElementsMatch(t, tt.wantLeft, got)
			assert.Equal(t, tt.wantRead, ctnetlink.Judged(flusher), "entries read from the kernel")
		})
	}
}
