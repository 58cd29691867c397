//go:build linux

package ctnetlink_test

import (
	"context"
	"fmt"
	"io/fs"
	"net/netip"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/conntrackorder/ctexec"
	"github.com/safereconcile/safereconcile/conntrackorder/ctnetlink"
	"github.com/safereconcile/safereconcile/internal/netnstest"
)

var (
	cli4  = netip.MustParseAddr("198.18.1.2")
	node4 = netip.MustParseAddr("198.18.1.1")
	svc4  = netip.MustParseAddr("198.18.30.41")
	ep4   = netip.MustParseAddr("198.18.2.2")
	ep4b  = netip.MustParseAddr("198.18.2.3")
	dns4  = netip.MustParseAddr("198.18.9.53")
	cli6  = netip.MustParseAddr("2001:db8:1::2")
	node6 = netip.MustParseAddr("2001:db8:1::1")
	svc6  = netip.MustParseAddr("2001:db8:30::41")
	ep6   = netip.MustParseAddr("2001:db8:2::2")
)

func ap(a netip.Addr, port uint16) netip.AddrPort { return netip.AddrPortFrom(a, port) }

// newFlusher opens a Flusher whose socket is in ns, and closes it when tb ends.
func newFlusher(tb testing.TB, ns *netnstest.Namespace) *ctnetlink.Flusher {
	tb.Helper()
	var f *ctnetlink.Flusher
	require.NoError(tb, ns.Do(func() error {
		var err error
		f, err = ctnetlink.New()
		return err
	}))
	tb.Cleanup(func() { assert.NoError(tb, f.Close()) })
	return f
}

// The entries every case of TestFlushOnARealKernel starts from. Names say what each is.
var (
	staleNode4 = netnstest.Flow{Protocol: "udp", Src: ap(cli4, 40000), Dst: ap(node4, 30080)}
	natNode4   = netnstest.Flow{Protocol: "udp", Src: ap(cli4, 40001), Dst: ap(node4, 30080), ReplySrc: ap(ep4, 8080)}
	toSvc4     = netnstest.Flow{Protocol: "udp", Src: ap(cli4, 40002), Dst: ap(svc4, 80), ReplySrc: ap(ep4, 8080)}
	toSvc4b    = netnstest.Flow{Protocol: "udp", Src: ap(cli4, 40003), Dst: ap(svc4, 80), ReplySrc: ap(ep4b, 8080)}
	dnsQuery4  = netnstest.Flow{Protocol: "udp", Src: ap(cli4, 40004), Dst: ap(dns4, 53)}
	tcpToSvc4  = netnstest.Flow{Protocol: "tcp", Src: ap(cli4, 40005), Dst: ap(svc4, 80), ReplySrc: ap(ep4, 8080)}
	sctpToSvc4 = netnstest.Flow{Protocol: "sctp", Src: ap(cli4, 40006), Dst: ap(svc4, 3868), ReplySrc: ap(ep4, 3868)}
	staleNode6 = netnstest.Flow{Protocol: "udp", Src: ap(cli6, 40000), Dst: ap(node6, 30080)}
	toSvc6     = netnstest.Flow{Protocol: "udp", Src: ap(cli6, 40002), Dst: ap(svc6, 80), ReplySrc: ap(ep6, 8080)}
	allFlows   = []netnstest.Flow{staleNode4, natNode4, toSvc4, toSvc4b, dnsQuery4, tcpToSvc4, sctpToSvc4, staleNode6, toSvc6}
)

// listed is a Flow as Table.List returns it: SCTP ports are invisible to netlink v1.3.1.
func listed(f netnstest.Flow) netnstest.Flow {
	if f.Protocol == "sctp" {
		f.Src, f.Dst = ap(f.Src.Addr(), 0), ap(f.Dst.Addr(), 0)
		if f.ReplySrc.IsValid() {
			f.ReplySrc = ap(f.ReplySrc.Addr(), 0)
		}
	}
	return f
}

func TestFlushOnARealKernel(t *testing.T) {
	netnstest.Require(t)
	ns := netnstest.New(t, "ctnl")
	table := ns.Table(t)
	flusher := newFlusher(t, ns)

	tests := []struct {
		name        string
		give        conntrackorder.Plan
		wantDeleted []netnstest.Flow
		wantErr     bool
		wantErrIs   error
	}{
		{name: "empty plan"},
		{
			name:        "nodeport, both families, stale and NATed",
			give:        conntrackorder.Plan{{Protocol: conntrackorder.UDP, DstPort: 30080}},
			wantDeleted: []netnstest.Flow{staleNode4, natNode4, staleNode6},
		},
		{
			name:        "service ip and port",
			give:        conntrackorder.Plan{{Protocol: conntrackorder.UDP, OrigDst: svc4, DstPort: 80}},
			wantDeleted: []netnstest.Flow{toSvc4, toSvc4b},
		},
		{
			name: "endpoint gone",
			give: conntrackorder.Plan{
				{Protocol: conntrackorder.UDP, OrigDst: svc4, DstPort: 80, ReplySrc: ep4},
				{Protocol: conntrackorder.UDP, DstPort: 30080, ReplySrc: ep4},
			},
			wantDeleted: []netnstest.Flow{toSvc4, natNode4},
		},
		{
			name:        "ipv6 service",
			give:        conntrackorder.Plan{{Protocol: conntrackorder.UDP, OrigDst: svc6, DstPort: 80}},
			wantDeleted: []netnstest.Flow{toSvc6},
		},
		{
			name:        "tcp",
			give:        conntrackorder.Plan{{Protocol: conntrackorder.TCP, OrigDst: svc4, DstPort: 80}},
			wantDeleted: []netnstest.Flow{tcpToSvc4},
		},
		{
			// netlink parses SCTP addresses, only not ports: address filters work.
			name:        "sctp by address",
			give:        conntrackorder.Plan{{Protocol: conntrackorder.SCTP, OrigDst: svc4}},
			wantDeleted: []netnstest.Flow{sctpToSvc4},
		},
		{
			name: "sctp port refused before the table is touched",
			give: conntrackorder.Plan{
				{Protocol: conntrackorder.UDP, DstPort: 30080},
				{Protocol: conntrackorder.SCTP, OrigDst: svc4, DstPort: 3868},
			},
			wantErr:   true,
			wantErrIs: ctnetlink.ErrSCTPPort,
		},
		{
			name:    "protocol only refused",
			give:    conntrackorder.Plan{{Protocol: conntrackorder.UDP, DstPort: 30080}, {Protocol: conntrackorder.UDP}},
			wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, table.Flush())
			require.NoError(t, table.Insert(allFlows...))

			err := flusher.Flush(context.Background(), tt.give)

			if tt.wantErr {
				require.Error(t, err)
				assert.Regexp(t, "^ctnetlink: ", err.Error())
				if tt.wantErrIs != nil {
					assert.ErrorIs(t, err, tt.wantErrIs)
				}
			} else {
				require.NoError(t, err)
			}
			deleted := map[netnstest.Flow]bool{}
			for _, f := range tt.wantDeleted {
				deleted[f] = true
			}
			var want []netnstest.Flow
			for _, f := range allFlows {
				if !deleted[f] {
					want = append(want, listed(f))
				}
			}
			got, err := table.List()
			require.NoError(t, err)
			assert.ElementsMatch(t, want, got)
		})
	}
}

func TestFlushStopsWhenTheContextIsDone(t *testing.T) {
	netnstest.Require(t)
	ns := netnstest.New(t, "ctx")
	table := ns.Table(t)
	flusher := newFlusher(t, ns)
	require.NoError(t, table.Insert(staleNode4, staleNode6))

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := flusher.Flush(ctx, conntrackorder.Plan{{Protocol: conntrackorder.UDP, DstPort: 30080}})

	require.ErrorIs(t, err, context.Canceled)
	assert.Regexp(t, "^ctnetlink: ", err.Error())
	n, err := table.Len()
	require.NoError(t, err)
	assert.Equal(t, 2, n, "a cancelled flush deleted entries")
}

// TestFlushWithoutCapNetAdmin runs New and Flush on a thread without CAP_NET_ADMIN, the way an
// unprivileged controller would run.
func TestFlushWithoutCapNetAdmin(t *testing.T) {
	netnstest.Require(t)
	ns := netnstest.New(t, "eperm")
	table := ns.Table(t)
	require.NoError(t, table.Insert(staleNode4))

	var flushErr error
	require.NoError(t, ns.Do(func() error {
		restore, err := dropCapNetAdmin()
		if err != nil {
			return err
		}
		defer restore()
		f, err := ctnetlink.New()
		if err != nil {
			return err
		}
		defer f.Close()
		flushErr = f.Flush(context.Background(), conntrackorder.Plan{{Protocol: conntrackorder.UDP, DstPort: 30080}})
		return nil
	}))

	require.ErrorIs(t, flushErr, fs.ErrPermission)
	assert.Equal(t, "ctnetlink: flush ipv4 table: operation not permitted", flushErr.Error())
	n, err := table.Len()
	require.NoError(t, err)
	assert.Equal(t, 1, n)
}

// dropCapNetAdmin removes CAP_NET_ADMIN from the calling thread's effective set (capset acts
// on one thread), and returns a function that raises it again. If raising fails, the function
// ends the goroutine, so that netnstest.Do discards the thread rather than reuse it.
func dropCapNetAdmin() (restore func(), err error) {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return nil, fmt.Errorf("capget: %w", err)
	}
	orig := data
	data[0].Effective &^= 1 << unix.CAP_NET_ADMIN
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return nil, fmt.Errorf("capset: %w", err)
	}
	return func() {
		if unix.Capset(&hdr, &orig[0]) != nil {
			runtime.Goexit()
		}
	}, nil
}

func TestClosed(t *testing.T) {
	// Needs no privilege: a closed Flusher refuses before it sends anything.
	f, err := ctnetlink.New()
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NoError(t, f.Close(), "second Close")

	plan := conntrackorder.Plan{{Protocol: conntrackorder.UDP, DstPort: 30080}}
	assert.ErrorIs(t, f.Flush(context.Background(), plan), ctnetlink.ErrClosed)
	assert.ErrorIs(t, new(ctnetlink.Flusher).Flush(context.Background(), plan), ctnetlink.ErrClosed)
}

// nodePortFill is n stale NodePort entries, one per port from 30000, and the plan that clears
// them: what a node restart or a burst of new UDP services asks for.
func nodePortFill(n int) ([]netnstest.Flow, conntrackorder.Plan) {
	flows := make([]netnstest.Flow, n)
	plan := make(conntrackorder.Plan, n)
	for i := range flows {
		port := uint16(30000 + i)
		flows[i] = netnstest.Flow{Protocol: "udp", Src: ap(cli4, 40000), Dst: ap(node4, port)}
		plan[i] = conntrackorder.Filter{Protocol: conntrackorder.UDP, DstPort: port}
	}
	return flows, plan
}

// BenchmarkNodePorts flushes 300 stale NodePort entries per operation, with each backend, in a
// namespace whose table is refilled before every operation. Both backends look at IPv4 and
// IPv6 entries for a filter without an address: ctexec runs conntrack twice per filter (600
// processes), ctnetlink dumps each family once. conntrack-ipv4 is the bare 300 commands.
func BenchmarkNodePorts(b *testing.B) {
	netnstest.Require(b)
	ns := netnstest.New(b, "bench")
	table := ns.Table(b)
	nl := newFlusher(b, ns)
	flows, plan := nodePortFill(300)
	ctx := context.Background()

	for _, bb := range []struct {
		name  string
		flush func() error
	}{
		{"ctnetlink", func() error { return nl.Flush(ctx, plan) }},
		{"ctexec", func() error {
			// conntrack(8) inherits the namespace of the thread that starts it.
			return ns.Do(func() error { return ctexec.New().Flush(ctx, plan) })
		}},
		{"conntrack-ipv4", func() error {
			return ns.Do(func() error {
				for _, f := range plan {
					if err := ctexec.New().Flush(ctx, conntrackorder.Plan{{Protocol: f.Protocol, OrigDst: node4, DstPort: f.DstPort}}); err != nil {
						return err
					}
				}
				return nil
			})
		}},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				require.NoError(b, table.Flush())
				require.NoError(b, table.Insert(flows...))
				b.StartTimer()

				require.NoError(b, bb.flush())

				b.StopTimer()
				n, err := table.Len()
				require.NoError(b, err)
				require.Zero(b, n, "entries left after the flush")
				b.StartTimer()
			}
		})
	}
}

// unrelatedFill is n UDP entries from distinct source ports to a DNS server, plus one stale
// NodePort entry: a busy node's table, of which a plan deletes one entry.
func unrelatedFill(n int) []netnstest.Flow {
	flows := make([]netnstest.Flow, 0, n+1)
	for i := 0; i < n; i++ {
		src := netip.AddrFrom4([4]byte{198, 18, byte(10 + i/50000), byte(i / 250)})
		flows = append(flows, netnstest.Flow{Protocol: "udp", Src: ap(src, uint16(1024+i)), Dst: ap(dns4, 53)})
	}
	return append(flows, staleNode4)
}

// extraFilters is n filters of the four shapes kube-proxy produces, matching nothing in
// unrelatedFill.
func extraFilters(n int) conntrackorder.Plan {
	plan := make(conntrackorder.Plan, 0, n)
	for i := 0; i < n; i++ {
		svc := netip.AddrFrom4([4]byte{198, 19, byte(i >> 8), byte(i)})
		ep := netip.AddrFrom4([4]byte{198, 18, byte(200 + i>>8%50), byte(i)})
		port := uint16(30100 + i%2000)
		switch i % 4 {
		case 0:
			plan = append(plan, conntrackorder.Filter{Protocol: conntrackorder.UDP, OrigDst: svc, DstPort: 80})
		case 1:
			plan = append(plan, conntrackorder.Filter{Protocol: conntrackorder.UDP, DstPort: port})
		case 2:
			plan = append(plan, conntrackorder.Filter{Protocol: conntrackorder.UDP, OrigDst: svc, DstPort: 80, ReplySrc: ep})
		default:
			plan = append(plan, conntrackorder.Filter{Protocol: conntrackorder.UDP, DstPort: port, ReplySrc: ep})
		}
	}
	return plan
}

// BenchmarkExtraFilters flushes a table of 10,000 unrelated entries and one stale NodePort
// entry with a one-filter plan and with the same filter plus 5,000 that match nothing. The
// second must cost at most 1.5 times the first: the pass costs entries + filters.
func BenchmarkExtraFilters(b *testing.B) {
	netnstest.Require(b)
	ns := netnstest.New(b, "bench")
	table := ns.Table(b)
	nl := newFlusher(b, ns)
	flows := unrelatedFill(10000)
	nodePort := conntrackorder.Filter{Protocol: conntrackorder.UDP, DstPort: 30080}
	ctx := context.Background()

	for _, extra := range []int{0, 5000} {
		plan := append(conntrackorder.Plan{nodePort}, extraFilters(extra)...)
		b.Run(fmt.Sprintf("filters=%d", len(plan)), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				require.NoError(b, table.Flush())
				require.NoError(b, table.Insert(flows...))
				b.StartTimer()

				require.NoError(b, nl.Flush(ctx, plan))

				b.StopTimer()
				n, err := table.Len()
				require.NoError(b, err)
				require.Equal(b, len(flows)-1, n, "the flush must delete exactly the NodePort entry")
				b.StartTimer()
			}
		})
	}
}
