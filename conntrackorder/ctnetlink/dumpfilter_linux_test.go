//go:build linux

package ctnetlink

import (
	"context"
	"encoding/binary"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/internal/netnstest"
)

func TestDumpProtocol(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "ns/dns:udp", Protocol: conntrackorder.UDP,
		Port: 53, ClusterIPs: []netip.Addr{netip.MustParseAddr("198.18.9.53")}}))
	desired := tr.Desired()
	udp := conntrackorder.Filter{Protocol: conntrackorder.UDP, DstPort: 30080}
	sctp := conntrackorder.Filter{Protocol: conntrackorder.SCTP, DstPort: 30868}
	tests := []struct {
		name    string
		plan    conntrackorder.Plan
		desired *conntrackorder.Desired
		want    uint8
	}{
		{name: "desired state alone", desired: desired, want: unix.IPPROTO_UDP},
		{name: "udp plan and desired state", plan: conntrackorder.Plan{udp}, desired: desired, want: unix.IPPROTO_UDP},
		{name: "sctp plan alone", plan: conntrackorder.Plan{sctp}, want: unix.IPPROTO_SCTP},
		{name: "sctp plan and desired state", plan: conntrackorder.Plan{sctp}, desired: desired, want: 0},
		{name: "udp and sctp plan", plan: conntrackorder.Plan{udp, sctp}, want: 0},
		{name: "empty desired state", desired: conntrackorder.NewTracker().Desired(), want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			idx, err := newIndex(tt.plan)
			require.NoError(t, err)
			assert.Equal(t, tt.want, dumpProtocol(idx, tt.desired))
		})
	}
}

// A kernel that knows CTA_FILTER but refuses what a dump asks of it answers before sending any
// entry; the Flusher then dumps unfiltered, from then on, and judges every entry itself.
func TestKernelRefusingTheFilterFallsBackToAnUnfilteredDump(t *testing.T) {
	netnstest.Require(t)
	ns := netnstest.New(t, "refuse")
	table := ns.Table(t)
	var f *Flusher
	require.NoError(t, ns.Do(func() error {
		var err error
		f, err = New()
		return err
	}))
	defer f.Close()

	// Orig flags with a bit no kernel knows: Linux answers EOPNOTSUPP.
	saved := protocolFilter
	protocolFilter = func(proto uint8) []byte {
		b := dumpFilter(proto)
		binary.NativeEndian.PutUint32(b[8:12], 1<<31)
		return b
	}
	defer func() { protocolFilter = saved }()

	node := netip.MustParseAddr("198.18.1.1")
	stale := netnstest.Flow{Protocol: "udp", Src: netip.MustParseAddrPort("198.18.1.2:40000"), Dst: netip.AddrPortFrom(node, 30080)}
	tcp := netnstest.Flow{Protocol: "tcp", Src: netip.MustParseAddrPort("198.18.1.2:40001"), Dst: netip.AddrPortFrom(node, 30080)}
	require.NoError(t, table.Insert(stale, tcp))

	idx, err := newIndex(conntrackorder.Plan{{Protocol: conntrackorder.UDP, DstPort: 30080}})
	require.NoError(t, err)
	_, err = f.pass(context.Background(), family{nl: unix.AF_INET, name: "ipv4"}, protocolFilter(unix.IPPROTO_UDP), idx, nil)
	require.Error(t, err, "this kernel accepts the refused filter: the test proves nothing")
	assert.True(t, refusedFilter(err), "%v", err)

	require.NoError(t, f.Flush(context.Background(), conntrackorder.Plan{{Protocol: conntrackorder.UDP, DstPort: 30080}}))
	assert.True(t, f.unfiltered)
	assert.Equal(t, 2, f.judged, "both entries read, in the IPv4 and IPv6 dumps")
	left, err := table.List()
	require.NoError(t, err)
	assert.Equal(t, []netnstest.Flow{tcp}, left)
}
