//go:build linux

package ctnetlink_test

// Hostile tests: each one attacks a sentence of the package documentation, read without the
// implementation, on a real kernel table read back through conntrack(8). A test that fails
// today starts with t.Skip("hostile: fails today: ...").

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/conntrackorder/ctexec"
	"github.com/safereconcile/safereconcile/conntrackorder/ctnetlink"
	"github.com/safereconcile/safereconcile/internal/netnstest"
)

var hA = netip.MustParseAddr

func hOpen(t *testing.T, ns *netnstest.Namespace) *ctnetlink.Flusher {
	t.Helper()
	var f *ctnetlink.Flusher
	require.NoError(t, ns.Do(func() error {
		var err error
		f, err = ctnetlink.New()
		return err
	}))
	t.Cleanup(func() { assert.NoError(t, f.Close()) })
	return f
}

func hFlows(flows []netnstest.Flow) []string {
	out := make([]string, 0, len(flows))
	for _, f := range flows {
		out = append(out, fmt.Sprintf("%s %v>%v reply %v", f.Protocol, f.Src, f.Dst, f.ReplySrc))
	}
	return out
}

func hRequireTable(t *testing.T, table *netnstest.Table, want []netnstest.Flow, msg string) {
	t.Helper()
	got, err := table.List()
	require.NoError(t, err)
	assert.ElementsMatch(t, hFlows(want), hFlows(got), msg)
}

// hShapes is a plan with every filter shape (OrigDst, DstPort, ReplySrc and their
// combinations: "at most seven"), with a flow each selects and decoys that differ from a
// filter in one field.
func hShapes() (plan conntrackorder.Plan, gone, stay []netnstest.Flow) {
	at := netip.AddrPortFrom
	u := conntrackorder.UDP
	cli, node, cli6, node6 := hA("198.18.1.2"), hA("198.18.1.1"), hA("2001:db8:1::2"), hA("2001:db8:1::1")
	plan = conntrackorder.Plan{
		{Protocol: u, OrigDst: hA("198.18.30.1")},
		{Protocol: u, DstPort: 31001},
		{Protocol: u, ReplySrc: hA("198.18.2.3")},
		{Protocol: u, OrigDst: hA("198.18.30.4"), DstPort: 4},
		{Protocol: u, OrigDst: hA("198.18.30.5"), ReplySrc: hA("198.18.2.5")},
		{Protocol: u, DstPort: 31006, ReplySrc: hA("198.18.2.6")},
		{Protocol: u, OrigDst: hA("198.18.30.7"), DstPort: 7, ReplySrc: hA("198.18.2.7")},
		{Protocol: u, OrigDst: hA("2001:db8:30::8"), DstPort: 8, ReplySrc: hA("2001:db8:2::8")},
		{Protocol: conntrackorder.SCTP, DstPort: 31009},
	}
	gone = []netnstest.Flow{
		{Protocol: "udp", Src: at(cli, 40001), Dst: at(hA("198.18.30.1"), 999)},
		{Protocol: "udp", Src: at(cli, 40002), Dst: at(node, 31001)},
		{Protocol: "udp", Src: at(cli6, 40002), Dst: at(node6, 31001), ReplySrc: at(hA("2001:db8:2::2"), 53)},
		{Protocol: "udp", Src: at(cli, 40003), Dst: at(node, 12345), ReplySrc: at(hA("198.18.2.3"), 53)},
		{Protocol: "udp", Src: at(cli, 40004), Dst: at(hA("198.18.30.4"), 4)},
		{Protocol: "udp", Src: at(cli, 40005), Dst: at(hA("198.18.30.5"), 9), ReplySrc: at(hA("198.18.2.5"), 53)},
		{Protocol: "udp", Src: at(cli, 40006), Dst: at(node, 31006), ReplySrc: at(hA("198.18.2.6"), 53)},
		{Protocol: "udp", Src: at(cli, 40007), Dst: at(hA("198.18.30.7"), 7), ReplySrc: at(hA("198.18.2.7"), 53)},
		{Protocol: "udp", Src: at(cli6, 40008), Dst: at(hA("2001:db8:30::8"), 8), ReplySrc: at(hA("2001:db8:2::8"), 53)},
		{Protocol: "sctp", Src: at(cli6, 40009), Dst: at(node6, 31009)},
	}
	stay = []netnstest.Flow{
		{Protocol: "tcp", Src: at(cli, 40101), Dst: at(hA("198.18.30.1"), 999)},
		{Protocol: "udp", Src: at(cli, 40102), Dst: at(node, 31002)},
		{Protocol: "udp", Src: at(cli, 40103), Dst: at(hA("198.18.2.3"), 53)}, // direct, not NATed
		{Protocol: "udp", Src: at(cli, 40104), Dst: at(hA("198.18.30.4"), 5)},
		{Protocol: "udp", Src: at(cli, 40105), Dst: at(hA("198.18.30.5"), 9), ReplySrc: at(hA("198.18.2.55"), 53)},
		{Protocol: "udp", Src: at(cli, 40106), Dst: at(node, 31006), ReplySrc: at(hA("198.18.2.66"), 53)},
		{Protocol: "udp", Src: at(cli, 40107), Dst: at(hA("198.18.30.7"), 7), ReplySrc: at(hA("198.18.2.77"), 53)},
		{Protocol: "sctp", Src: at(cli, 40108), Dst: at(hA("198.18.30.7"), 7), ReplySrc: at(hA("198.18.2.7"), 53)},
		{Protocol: "udp", Src: at(cli6, 40108), Dst: at(hA("2001:db8:30::8"), 9), ReplySrc: at(hA("2001:db8:2::8"), 53)},
		{Protocol: "udp", Src: at(cli, 31009), Dst: at(node, 53)},
		{Protocol: "tcp", Src: at(cli6, 40109), Dst: at(node6, 31009)},
	}
	return plan, gone, stay
}

// TestHostileEveryFilterShape: Flush "deletes every conntrack entry that matches any filter of
// plan, with the semantics of conntrackorder.Filter" and nothing else, for every filter shape
// in one plan, and ctexec agrees on the same table.
func TestHostileEveryFilterShape(t *testing.T) {
	netnstest.Require(t)
	plan, gone, stay := hShapes()
	for _, name := range []string{"ctnetlink", "ctexec"} {
		name := name
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ns := netnstest.New(t, "hshapes")
			table := ns.Table(t)
			require.NoError(t, table.Insert(append(append([]netnstest.Flow(nil), gone...), stay...)...))
			var f conntrackorder.Flusher = ns.Flusher(ctexec.New())
			if name == "ctnetlink" {
				f = hOpen(t, ns)
			}
			require.NoError(t, f.Flush(context.Background(), plan))
			hRequireTable(t, table, stay, "")
		})
	}
}

// TestHostileBadPlanTouchesNothing: "Flush first checks the whole plan and returns an error
// without touching the table when a filter fails conntrackorder.Filter.Validate"; Reconcile
// "refuses a bad plan before it touches the table", even with a desired state that
// contradicts entries of it.
func TestHostileBadPlanTouchesNothing(t *testing.T) {
	netnstest.Require(t)
	plan, gone, stay := hShapes()
	all := append(append([]netnstest.Flow(nil), gone...), stay...)
	ns := netnstest.New(t, "hbad")
	table := ns.Table(t)
	require.NoError(t, table.Insert(all...))
	f := hOpen(t, ns)
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: conntrackorder.UDP, Port: 4, ClusterIPs: []netip.Addr{hA("198.18.30.4")}}))
	for _, bad := range []conntrackorder.Filter{
		{Protocol: conntrackorder.UDP},
		{Protocol: 0, DstPort: 53},
		{Protocol: conntrackorder.UDP, OrigDst: hA("198.18.30.1"), ReplySrc: hA("2001:db8:2::8")},
		{Protocol: conntrackorder.UDP, OrigDst: hA("::ffff:198.18.30.1")},
		{Protocol: conntrackorder.UDP, OrigDst: hA("0.0.0.0"), DstPort: 53},
	} {
		badPlan := append(append(conntrackorder.Plan(nil), plan...), bad)
		err := f.Flush(context.Background(), badPlan)
		require.Error(t, err, "%v", bad)
		assert.False(t, errors.Is(err, ctnetlink.ErrClosed))
		assert.True(t, strings.HasPrefix(err.Error(), "ctnetlink: ") || strings.HasPrefix(err.Error(), "conntrackorder: "), "%q", err)
		require.Error(t, f.Reconcile(context.Background(), badPlan, tr.Desired()), "%v", bad)
	}
	hRequireTable(t, table, all, "a refused plan deleted entries")
}

// TestHostileDoneContextTouchesNothing: "ctx is checked before each table dump ...; when it is
// done, Flush stops deleting and returns an error wrapping ctx.Err()".
func TestHostileDoneContextTouchesNothing(t *testing.T) {
	netnstest.Require(t)
	plan, gone, stay := hShapes()
	all := append(append([]netnstest.Flow(nil), gone...), stay...)
	ns := netnstest.New(t, "hctx")
	table := ns.Table(t)
	require.NoError(t, table.Insert(all...))
	f := hOpen(t, ns)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, f.Flush(ctx, plan), context.Canceled)
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: conntrackorder.UDP, Port: 4, ClusterIPs: []netip.Addr{hA("198.18.30.4")}}))
	require.ErrorIs(t, f.Reconcile(ctx, nil, tr.Desired()), context.Canceled)
	hRequireTable(t, table, all, "a done context deleted entries")
	// The Flusher still works afterwards.
	require.NoError(t, f.Flush(context.Background(), plan))
	hRequireTable(t, table, stay, "")
}

// TestHostileReconcileKeepsOnlyWhatTheDesiredStateKeeps: a Reconciler deletes what "matches a
// filter of a plan ... and that the desired state does not keep (Desired.Keeps)". A filter for
// an endpoint that came back leaves its flows to the service IP, but "a flow that the desired
// state recognizes only by its NodePort is not kept from a filter", and an endpoint whose port
// changed contradicts.
func TestHostileReconcileKeepsOnlyWhatTheDesiredStateKeeps(t *testing.T) {
	netnstest.Require(t)
	at := netip.AddrPortFrom
	cli, node, svc, ep := hA("198.18.1.2"), hA("198.18.1.1"), hA("198.18.30.10"), hA("198.18.2.10")
	ns := netnstest.New(t, "hkeeps")
	table := ns.Table(t)
	kept := netnstest.Flow{Protocol: "udp", Src: at(cli, 40000), Dst: at(svc, 53), ReplySrc: at(ep, 53)}
	viaNodePort := netnstest.Flow{Protocol: "udp", Src: at(cli, 40001), Dst: at(node, 31000), ReplySrc: at(ep, 53)}
	oldPort := netnstest.Flow{Protocol: "udp", Src: at(cli, 40002), Dst: at(svc, 53), ReplySrc: at(ep, 54)}
	require.NoError(t, table.Insert(kept, viaNodePort, oldPort))
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: conntrackorder.UDP, Port: 53, ClusterIPs: []netip.Addr{svc}, NodePort: 31000}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{at(ep, 53)}))
	plan := conntrackorder.Plan{
		{Protocol: conntrackorder.UDP, OrigDst: svc, DstPort: 53, ReplySrc: ep},
		{Protocol: conntrackorder.UDP, DstPort: 31000, ReplySrc: ep},
	}
	require.NoError(t, hOpen(t, ns).Reconcile(context.Background(), plan, tr.Desired()))
	hRequireTable(t, table, []netnstest.Flow{kept}, "")
}

// TestHostileClosedAndZero: "The zero value is closed", ErrClosed "when they would read the
// table. A call with nothing to match still returns nil, and one with an invalid plan its
// validation error"; "Close waits for a running call to finish; it always returns nil, and
// closing twice does nothing."
func TestHostileClosedAndZero(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: conntrackorder.UDP, Port: 53, ClusterIPs: []netip.Addr{hA("198.18.30.10")}}))
	good := conntrackorder.Plan{{Protocol: conntrackorder.UDP, DstPort: 31000}}
	bad := conntrackorder.Plan{{Protocol: conntrackorder.UDP}}
	check := func(t *testing.T, f *ctnetlink.Flusher) {
		ctx := context.Background()
		assert.NoError(t, f.Flush(ctx, nil))
		assert.NoError(t, f.Reconcile(ctx, nil, nil))
		assert.NoError(t, f.Reconcile(ctx, nil, conntrackorder.NewTracker().Desired()))
		assert.ErrorIs(t, f.Flush(ctx, good), ctnetlink.ErrClosed)
		assert.ErrorIs(t, f.Reconcile(ctx, nil, tr.Desired()), ctnetlink.ErrClosed)
		err := f.Flush(ctx, bad)
		assert.Error(t, err)
		assert.False(t, errors.Is(err, ctnetlink.ErrClosed), "an invalid plan gives its validation error")
		assert.NoError(t, f.Close())
		assert.NoError(t, f.Close())
	}
	t.Run("zero", func(t *testing.T) { check(t, &ctnetlink.Flusher{}) })
	t.Run("closed", func(t *testing.T) {
		netnstest.Require(t)
		ns := netnstest.New(t, "hclosed")
		var f *ctnetlink.Flusher
		require.NoError(t, ns.Do(func() error {
			var err error
			f, err = ctnetlink.New()
			return err
		}))
		require.NoError(t, f.Close())
		check(t, f)
	})
}

// TestHostileConcurrentCallsAndClose: "A Flusher is safe for concurrent use; calls are
// serialized", and Close during calls makes each return nil or ErrClosed, never anything
// else, and deletes everything when one call got through.
func TestHostileConcurrentCallsAndClose(t *testing.T) {
	netnstest.Require(t)
	plan, gone, stay := hShapes()
	ns := netnstest.New(t, "hconc")
	table := ns.Table(t)
	require.NoError(t, table.Insert(append(append([]netnstest.Flow(nil), gone...), stay...)...))
	var f *ctnetlink.Flusher
	require.NoError(t, ns.Do(func() error {
		var err error
		f, err = ctnetlink.New()
		return err
	}))
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: conntrackorder.UDP, Port: 4, ClusterIPs: []netip.Addr{hA("198.18.30.4")}}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{netip.MustParseAddrPort("198.18.2.4:4")}))
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := 0; i < 8; i++ {
		wg.Add(2)
		go func() { defer wg.Done(); errs <- f.Flush(context.Background(), plan) }()
		go func() { defer wg.Done(); errs <- f.Reconcile(context.Background(), plan, tr.Desired()) }()
	}
	wg.Add(1)
	go func() { defer wg.Done(); assert.NoError(t, f.Close()) }()
	wg.Wait()
	close(errs)
	ok := 0
	for err := range errs {
		if err == nil {
			ok++
			continue
		}
		assert.ErrorIs(t, err, ctnetlink.ErrClosed)
	}
	if ok > 0 {
		hRequireTable(t, table, stay, "a call that returned nil left entries")
	}
}

// TestHostileTwoFlushersRaceOnOneTable: "deleting an entry twice must be harmless (it is: a
// second delete matches nothing)". Two Flushers (two proxies, or an entry that expires between
// the dump and the delete) clear the same plan at once: neither may fail for an entry the
// other already deleted.
func TestHostileTwoFlushersRaceOnOneTable(t *testing.T) {
	netnstest.Require(t)
	ns := netnstest.New(t, "hrace")
	table := ns.Table(t)
	at := netip.AddrPortFrom
	var flows []netnstest.Flow
	for i := 0; i < 3000; i++ {
		flows = append(flows, netnstest.Flow{Protocol: "udp", Src: at(hA("198.18.1.2"), uint16(10000+i)), Dst: at(hA("198.18.1.1"), 31000), ReplySrc: at(hA("198.18.2.10"), 53)})
	}
	require.NoError(t, table.Insert(flows...))
	a, b := hOpen(t, ns), hOpen(t, ns)
	plan := conntrackorder.Plan{{Protocol: conntrackorder.UDP, DstPort: 31000}}
	var wg sync.WaitGroup
	var errA, errB error
	wg.Add(2)
	go func() { defer wg.Done(); errA = a.Flush(context.Background(), plan) }()
	go func() { defer wg.Done(); errB = b.Flush(context.Background(), plan) }()
	wg.Wait()
	assert.NoError(t, errA)
	assert.NoError(t, errB)
	n, err := table.Len()
	require.NoError(t, err)
	assert.Zero(t, n)
}

// TestHostileMemoryDoesNotGrowWithTheTable: "The table is read message by message and never
// held: memory does not grow with the table." A Flush and a Reconcile that delete nothing over
// 100 and over 5,000 entries allocate about the same: far less than one byte per extra entry
// (parsing each entry into a value, as netlink's ConntrackFlow does, costs hundreds).
func TestHostileMemoryDoesNotGrowWithTheTable(t *testing.T) {
	netnstest.Require(t)
	at := netip.AddrPortFrom
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: conntrackorder.UDP, Port: 53, ClusterIPs: []netip.Addr{hA("198.18.30.10"), hA("2001:db8:30::10")}, NodePort: 31000}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{at(hA("198.18.2.10"), 53)}))
	desired := tr.Desired()
	plan := conntrackorder.Plan{{Protocol: conntrackorder.UDP, DstPort: 1}, {Protocol: conntrackorder.UDP, OrigDst: hA("2001:db8:30::99"), DstPort: 53}}
	measure := func(n int) (flush, reconcile float64) {
		ns := netnstest.New(t, "hmem")
		table := ns.Table(t)
		flows := make([]netnstest.Flow, 0, n)
		for i := 0; i < n; i++ {
			src := hA("198.18.1.2")
			if i%2 == 1 {
				src = hA("2001:db8:1::2")
			}
			dst := hA("198.18.99.1")
			if i%2 == 1 {
				dst = hA("2001:db8:99::1")
			}
			flows = append(flows, netnstest.Flow{Protocol: "udp", Src: at(src, uint16(10000+i/2)), Dst: at(dst, 53)})
		}
		require.NoError(t, table.Insert(flows...))
		f := hOpen(t, ns)
		ctx := context.Background()
		flush = hBytesPerRun(func() { require.NoError(t, f.Flush(ctx, plan)) })
		reconcile = hBytesPerRun(func() { require.NoError(t, f.Reconcile(ctx, plan, desired)) })
		got, err := table.Len()
		require.NoError(t, err)
		require.Equal(t, n, got, "nothing may be deleted")
		return flush, reconcile
	}
	smallF, smallR := measure(100)
	bigF, bigR := measure(5000)
	t.Logf("bytes per call: Flush %v for 100 entries, %v for 5000; Reconcile %v, %v", smallF, bigF, smallR, bigR)
	assert.LessOrEqual(t, bigF, smallF+16384, "Flush allocations grow with the table: %v bytes for 100 entries, %v for 5000", smallF, bigF)
	assert.LessOrEqual(t, bigR, smallR+16384, "Reconcile allocations grow with the table: %v bytes for 100 entries, %v for 5000", smallR, bigR)
}

// hBytesPerRun returns the bytes fn allocates, averaged over a few runs after a warm-up.
func hBytesPerRun(fn func()) float64 {
	fn()
	var before, after runtime.MemStats
	const runs = 5
	runtime.ReadMemStats(&before)
	for i := 0; i < runs; i++ {
		fn()
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / runs
}

// TestHostileConntrackZones: Flush "deletes every conntrack entry that matches any filter of
// plan". Entries in a conntrack zone other than 0 (CNIs and OVS use zones) match like any
// other, as conntrack(8) -D deletes them, and an entry whose tuple also exists in zone 0 goes
// in both zones, while a zoned entry that matches no filter stays.
func TestHostileConntrackZones(t *testing.T) {
	netnstest.Require(t)
	for _, name := range []string{"ctnetlink", "ctexec"} {
		name := name
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ns := netnstest.New(t, "hzone")
			insert := func(sport, dport, zone string) {
				args := []string{"-I", "-p", "udp", "-s", "198.18.1.2", "-d", "198.18.1.1", "--sport", sport, "--dport", dport, "-t", "600"}
				if zone != "" {
					args = append(args, "--zone", zone)
				}
				ns.Exec(t, "conntrack", args...)
			}
			insert("40000", "31000", "5")
			insert("40001", "31000", "")
			insert("40001", "31000", "7")
			insert("40002", "31001", "5")
			var f conntrackorder.Flusher = ns.Flusher(ctexec.New())
			if name == "ctnetlink" {
				f = hOpen(t, ns)
			}
			err := f.Flush(context.Background(), conntrackorder.Plan{{Protocol: conntrackorder.UDP, DstPort: 31000}})
			lines, lerr := ns.Conntrack(context.Background())
			require.NoError(t, lerr)
			require.NoError(t, err, "table now:\n%s", strings.Join(lines, "\n"))
			require.Len(t, lines, 1, "table now:\n%s", strings.Join(lines, "\n"))
			assert.Contains(t, lines[0], "dport=31001")
			assert.Contains(t, lines[0], "zone=5")
		})
	}
}
