//go:build linux

package ctnetlink

import (
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"github.com/safereconcile/safereconcile/conntrackorder"
)

var (
	svc4  = netip.MustParseAddr("198.18.30.41")
	node4 = netip.MustParseAddr("198.18.1.1")
	ep4   = netip.MustParseAddr("198.18.2.2")
	ep4b  = netip.MustParseAddr("198.18.2.3")
	cli4  = netip.MustParseAddr("198.18.1.2")
	svc6  = netip.MustParseAddr("2001:db8:30::41")
	node6 = netip.MustParseAddr("2001:db8:1::1")
	ep6   = netip.MustParseAddr("2001:db8:2::2")
	cli6  = netip.MustParseAddr("2001:db8:1::2")
)

// entry builds a flow in netlink's form, with IPv4 addresses in 4 bytes and the ports the
// kernel sends for every protocol that has them, SCTP included (netlink v1.3.1's own parser
// would drop SCTP ports). The reply comes from replySrc, at the original destination port.
func entry(proto uint8, src, dst netip.AddrPort, replySrc netip.Addr) *netlink.ConntrackFlow {
	fam := uint8(unix.AF_INET6)
	if src.Addr().Is4() {
		fam = unix.AF_INET
	}
	sport, dport := src.Port(), dst.Port()
	return &netlink.ConntrackFlow{
		FamilyType: fam,
		Forward: netlink.IPTuple{Protocol: proto, SrcIP: src.Addr().AsSlice(), SrcPort: sport,
			DstIP: dst.Addr().AsSlice(), DstPort: dport},
		Reverse: netlink.IPTuple{Protocol: proto, SrcIP: replySrc.AsSlice(), SrcPort: dport,
			DstIP: src.Addr().AsSlice(), DstPort: sport},
	}
}

func ap(a netip.Addr, port uint16) netip.AddrPort { return netip.AddrPortFrom(a, port) }

func TestIndexMatch(t *testing.T) {
	const (
		udp  = unix.IPPROTO_UDP
		tcp  = unix.IPPROTO_TCP
		sctp = unix.IPPROTO_SCTP
	)
	var (
		clusterIP4 = conntrackorder.Filter{Protocol: conntrackorder.UDP, OrigDst: svc4, DstPort: 80}
		nodePort   = conntrackorder.Filter{Protocol: conntrackorder.UDP, DstPort: 30080}
		gone4      = conntrackorder.Filter{Protocol: conntrackorder.UDP, OrigDst: svc4, DstPort: 80, ReplySrc: ep4}
		goneNode4  = conntrackorder.Filter{Protocol: conntrackorder.UDP, DstPort: 30080, ReplySrc: ep4}
		clusterIP6 = conntrackorder.Filter{Protocol: conntrackorder.UDP, OrigDst: svc6, DstPort: 80}
		gone6      = conntrackorder.Filter{Protocol: conntrackorder.UDP, OrigDst: svc6, DstPort: 80, ReplySrc: ep6}

		sctpNodePort   = conntrackorder.Filter{Protocol: conntrackorder.SCTP, DstPort: 30868}
		sctpClusterIP4 = conntrackorder.Filter{Protocol: conntrackorder.SCTP, OrigDst: svc4, DstPort: 3868}
		sctpGone4      = conntrackorder.Filter{Protocol: conntrackorder.SCTP, OrigDst: svc4, DstPort: 3868, ReplySrc: ep4}
	)
	// To a ClusterIP, NATed to ep4; to the NodePort, not NATed (stale) and NATed.
	toSvc4 := entry(udp, ap(cli4, 40000), ap(svc4, 80), ep4)
	toSvc4b := entry(udp, ap(cli4, 40000), ap(svc4, 80), ep4b)
	staleNode4 := entry(udp, ap(cli4, 40000), ap(node4, 30080), node4)
	natNode4 := entry(udp, ap(cli4, 40000), ap(node4, 30080), ep4)
	toSvc6 := entry(udp, ap(cli6, 40000), ap(svc6, 80), ep6)
	staleNode6 := entry(udp, ap(cli6, 40000), ap(node6, 30080), node6)

	tests := []struct {
		name string
		give conntrackorder.Plan
		flow *netlink.ConntrackFlow
		want bool
	}{
		{name: "empty plan", give: nil, flow: toSvc4, want: false},
		{name: "service ip and port", give: conntrackorder.Plan{clusterIP4}, flow: toSvc4, want: true},
		{name: "service ip, other port", give: conntrackorder.Plan{clusterIP4},
			flow: entry(udp, ap(cli4, 40000), ap(svc4, 81), ep4), want: false},
		{name: "service port, other ip", give: conntrackorder.Plan{clusterIP4},
			flow: entry(udp, ap(cli4, 40000), ap(ep4, 80), ep4), want: false},
		{name: "other protocol", give: conntrackorder.Plan{clusterIP4},
			flow: entry(tcp, ap(cli4, 40000), ap(svc4, 80), ep4), want: false},
		{name: "source port is not the destination port", give: conntrackorder.Plan{nodePort},
			flow: entry(udp, ap(cli4, 30080), ap(node4, 53), node4), want: false},
		{name: "nodeport, stale entry", give: conntrackorder.Plan{nodePort}, flow: staleNode4, want: true},
		{name: "nodeport, NATed entry", give: conntrackorder.Plan{nodePort}, flow: natNode4, want: true},
		{name: "nodeport matches ipv6 too", give: conntrackorder.Plan{nodePort}, flow: staleNode6, want: true},
		{name: "endpoint gone, NATed to it", give: conntrackorder.Plan{gone4}, flow: toSvc4, want: true},
		{name: "endpoint gone, NATed to another", give: conntrackorder.Plan{gone4}, flow: toSvc4b, want: false},
		{name: "endpoint gone, reply source is not the original destination",
			give: conntrackorder.Plan{{Protocol: conntrackorder.UDP, ReplySrc: svc4}}, flow: toSvc4, want: false},
		{name: "nodeport endpoint gone", give: conntrackorder.Plan{goneNode4}, flow: natNode4, want: true},
		{name: "nodeport endpoint gone, stale entry kept", give: conntrackorder.Plan{goneNode4}, flow: staleNode4, want: false},
		{name: "address only", give: conntrackorder.Plan{{Protocol: conntrackorder.UDP, OrigDst: svc4}}, flow: toSvc4b, want: true},
		{name: "reply source only", give: conntrackorder.Plan{{Protocol: conntrackorder.UDP, ReplySrc: ep4}}, flow: natNode4, want: true},
		// kubernetes#98305's filters name the backend a flow was DNATed to; a client that
		// sent to the endpoint's address directly, on the NodePort's number, was not.
		{name: "a direct flow to the endpoint on the NodePort's number was not DNATed", give: conntrackorder.Plan{goneNode4},
			flow: entry(udp, ap(cli4, 40000), ap(ep4, 30080), ep4), want: false},
		{name: "reply source only, direct flow", give: conntrackorder.Plan{{Protocol: conntrackorder.UDP, ReplySrc: ep4}},
			flow: entry(udp, ap(cli4, 40000), ap(ep4, 53), ep4), want: false},
		{name: "ipv6 service", give: conntrackorder.Plan{clusterIP6}, flow: toSvc6, want: true},
		{name: "ipv6 endpoint gone", give: conntrackorder.Plan{gone6}, flow: toSvc6, want: true},
		{name: "ipv4 filter, ipv6 entry", give: conntrackorder.Plan{clusterIP4, gone4}, flow: toSvc6, want: false},
		{name: "ipv6 filter, ipv4 entry", give: conntrackorder.Plan{clusterIP6, gone6}, flow: toSvc4, want: false},
		{name: "ipv4 entry with 16-byte addresses", give: conntrackorder.Plan{gone4}, flow: func() *netlink.ConntrackFlow {
			f := entry(udp, ap(cli4, 40000), ap(svc4, 80), ep4)
			f.Forward.DstIP, f.Reverse.SrcIP = net.IP(f.Forward.DstIP).To16(), net.IP(f.Reverse.SrcIP).To16()
			return f
		}(), want: true},
		{name: "matched by the last shape of a mixed plan",
			give: conntrackorder.Plan{clusterIP6, {Protocol: conntrackorder.UDP, OrigDst: svc4, DstPort: 81}, nodePort, goneNode4},
			flow: natNode4, want: true},
		{name: "many filters, none matches", give: conntrackorder.Plan{clusterIP6, gone6, goneNode4,
			{Protocol: conntrackorder.UDP, OrigDst: svc4, DstPort: 81}, {Protocol: conntrackorder.UDP, DstPort: 30081}},
			flow: toSvc4b, want: false},
		{name: "sctp address filter sees sctp entries", give: conntrackorder.Plan{{Protocol: conntrackorder.SCTP, OrigDst: svc4}},
			flow: entry(sctp, ap(cli4, 40000), ap(svc4, 80), ep4), want: true},
		{name: "sctp reply source filter", give: conntrackorder.Plan{{Protocol: conntrackorder.SCTP, ReplySrc: ep6}},
			flow: entry(sctp, ap(cli6, 40000), ap(svc6, 80), ep6), want: true},
		{name: "udp filter, sctp entry", give: conntrackorder.Plan{{Protocol: conntrackorder.UDP, OrigDst: svc4}},
			flow: entry(sctp, ap(cli4, 40000), ap(svc4, 80), ep4), want: false},
		{name: "sctp nodeport, stale entry", give: conntrackorder.Plan{sctpNodePort},
			flow: entry(sctp, ap(cli4, 40000), ap(node4, 30868), node4), want: true},
		{name: "sctp nodeport, ipv6 NATed entry", give: conntrackorder.Plan{sctpNodePort},
			flow: entry(sctp, ap(cli6, 40000), ap(node6, 30868), ep6), want: true},
		{name: "sctp nodeport, other port", give: conntrackorder.Plan{sctpNodePort},
			flow: entry(sctp, ap(cli4, 40000), ap(node4, 30869), node4), want: false},
		{name: "sctp nodeport, source port is not the destination port", give: conntrackorder.Plan{sctpNodePort},
			flow: entry(sctp, ap(cli4, 30868), ap(node4, 3868), node4), want: false},
		{name: "sctp nodeport, udp entry to the same port", give: conntrackorder.Plan{sctpNodePort},
			flow: entry(udp, ap(cli4, 40000), ap(node4, 30868), node4), want: false},
		{name: "udp nodeport, sctp entry to the same port", give: conntrackorder.Plan{{Protocol: conntrackorder.UDP, DstPort: 30868}},
			flow: entry(sctp, ap(cli4, 40000), ap(node4, 30868), node4), want: false},
		{name: "sctp service ip and port", give: conntrackorder.Plan{sctpClusterIP4},
			flow: entry(sctp, ap(cli4, 40000), ap(svc4, 3868), ep4), want: true},
		{name: "sctp service ip, other port", give: conntrackorder.Plan{sctpClusterIP4},
			flow: entry(sctp, ap(cli4, 40000), ap(svc4, 3869), ep4), want: false},
		{name: "sctp endpoint gone, NATed to it", give: conntrackorder.Plan{sctpGone4},
			flow: entry(sctp, ap(cli4, 40000), ap(svc4, 3868), ep4), want: true},
		{name: "sctp endpoint gone, NATed to another", give: conntrackorder.Plan{sctpGone4},
			flow: entry(sctp, ap(cli4, 40000), ap(svc4, 3868), ep4b), want: false},
		{name: "sctp and udp filters in one plan, udp entry", give: conntrackorder.Plan{sctpNodePort, sctpClusterIP4, nodePort},
			flow: natNode4, want: true},
		{name: "sctp and udp filters in one plan, sctp entry", give: conntrackorder.Plan{nodePort, clusterIP4, sctpNodePort},
			flow: entry(sctp, ap(cli4, 40000), ap(node4, 30868), ep4), want: true},
		{name: "entry without addresses", give: conntrackorder.Plan{gone4, clusterIP6},
			flow: &netlink.ConntrackFlow{FamilyType: unix.AF_INET,
				Forward: netlink.IPTuple{Protocol: udp, DstPort: 80}}, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err := newIndex(tt.give)
			require.NoError(t, err)
			assert.Equal(t, tt.want, matchMessage(x, encodeEntry(tt.flow)))
			assert.Equal(t, tt.want, matchesAny(tt.give, tt.flow), "the reference disagrees with the test table")
		})
	}
}

func TestNewIndexRefuses(t *testing.T) {
	tests := []struct {
		name    string
		give    conntrackorder.Plan
		wantMsg string
	}{
		{
			name:    "protocol only, after a good filter",
			give:    conntrackorder.Plan{{Protocol: conntrackorder.SCTP, DstPort: 30080}, {Protocol: conntrackorder.SCTP}},
			wantMsg: "ctnetlink: plan filter 1: conntrackorder: filter sctp: sets no address and no port, so it would delete every flow of its protocol",
		},
		{name: "protocol only", give: conntrackorder.Plan{{Protocol: conntrackorder.UDP}}},
		{name: "unknown protocol", give: conntrackorder.Plan{{Protocol: 9, DstPort: 1}}},
		{name: "zero filter", give: conntrackorder.Plan{{}}},
		{name: "mixed families", give: conntrackorder.Plan{{Protocol: conntrackorder.UDP, OrigDst: svc4, ReplySrc: ep6}}},
		{name: "ipv4-mapped address", give: conntrackorder.Plan{{Protocol: conntrackorder.UDP, OrigDst: netip.AddrFrom16(svc4.As16())}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err := newIndex(tt.give)
			require.Error(t, err)
			assert.Nil(t, x)
			assert.Regexp(t, "^ctnetlink: ", err.Error())
			if tt.wantMsg != "" {
				assert.Equal(t, tt.wantMsg, err.Error())
			}
		})
	}
}

func TestIndexFamilies(t *testing.T) {
	tests := []struct {
		name string
		give conntrackorder.Plan
		want []string
	}{
		{name: "empty", give: nil, want: nil},
		{name: "ipv4", give: conntrackorder.Plan{{Protocol: conntrackorder.UDP, OrigDst: svc4, DstPort: 80}}, want: []string{"ipv4"}},
		{name: "ipv6 by reply source", give: conntrackorder.Plan{{Protocol: conntrackorder.UDP, ReplySrc: ep6}}, want: []string{"ipv6"}},
		{name: "port only is both", give: conntrackorder.Plan{{Protocol: conntrackorder.UDP, DstPort: 30080}}, want: []string{"ipv4", "ipv6"}},
		{name: "dual-stack service", give: conntrackorder.Plan{
			{Protocol: conntrackorder.UDP, OrigDst: svc6, DstPort: 80},
			{Protocol: conntrackorder.UDP, OrigDst: svc4, DstPort: 80},
		}, want: []string{"ipv4", "ipv6"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err := newIndex(tt.give)
			require.NoError(t, err)
			var got []string
			for _, f := range x.families(nil) {
				got = append(got, f.name)
			}
			assert.Empty(t, cmp.Diff(tt.want, got), "(-want +got)")
		})
	}
}

// matchMessage reports whether the dump message msg parses and matches x: what a table pass
// does with each message.
func matchMessage(x *index, msg []byte) bool {
	e, ok := parseEntry(msg)
	return ok && x.match(e, true)
}

// matchesAny is the reference: Filter's semantics written out filter by filter, with
// net.IP comparisons instead of the index's netip keys.
func matchesAny(plan conntrackorder.Plan, flow *netlink.ConntrackFlow) bool {
	protos := map[conntrackorder.Protocol]uint8{
		conntrackorder.TCP: unix.IPPROTO_TCP, conntrackorder.UDP: unix.IPPROTO_UDP, conntrackorder.SCTP: unix.IPPROTO_SCTP,
	}
	for _, f := range plan {
		if protos[f.Protocol] != flow.Forward.Protocol {
			continue
		}
		if f.OrigDst.IsValid() && (flow.Forward.DstIP == nil || !net.IP(f.OrigDst.AsSlice()).Equal(flow.Forward.DstIP)) {
			continue
		}
		if f.DstPort != 0 && f.DstPort != flow.Forward.DstPort {
			continue
		}
		// ReplySrc is the backend the flow was DNATed to: a flow whose reply comes from its
		// original destination was not DNATed and has none.
		dnated := !flow.Reverse.SrcIP.Equal(flow.Forward.DstIP) || flow.Reverse.SrcPort != flow.Forward.DstPort
		if f.ReplySrc.IsValid() && (!dnated || flow.Reverse.SrcIP == nil || !net.IP(f.ReplySrc.AsSlice()).Equal(flow.Reverse.SrcIP)) {
			continue
		}
		return true
	}
	return false
}

// decodeCase turns fuzz bytes into a plan and an entry drawn from small pools, so that
// filters and entries often share addresses and ports. Each filter takes 4 bytes (protocol,
// address, port, reply address); the first 5 bytes are the entry.
func decodeCase(data []byte) (conntrackorder.Plan, *netlink.ConntrackFlow) {
	addrs := []netip.Addr{{}, svc4, node4, ep4, ep4b, svc6, node6, ep6}
	ports := []uint16{0, 80, 81, 30080}
	protos := []conntrackorder.Protocol{conntrackorder.UDP, conntrackorder.TCP, conntrackorder.SCTP}
	if len(data) < 5 {
		return nil, nil
	}
	// The entry: protocol, destination, port, reply source (the destination when not NATed).
	proto := []uint8{unix.IPPROTO_UDP, unix.IPPROTO_TCP, unix.IPPROTO_SCTP}[int(data[0])%3]
	v6 := data[1]&1 == 1
	pick := func(b byte) netip.Addr {
		i := 1 + int(b)%3 // svc4, node4, ep4
		if v6 {
			i += 4 // svc6, node6, ep6
		}
		return addrs[i]
	}
	cli := cli4
	if v6 {
		cli = cli6
	}
	dst := pick(data[2])
	reply := dst
	if data[4]&1 == 1 {
		reply = pick(data[4] >> 1)
	}
	flow := entry(proto, ap(cli, 40000), ap(dst, ports[1+int(data[3])%3]), reply)

	var plan conntrackorder.Plan
	for rest := data[5:]; len(rest) >= 4; rest = rest[4:] {
		f := conntrackorder.Filter{
			Protocol: protos[int(rest[0])%len(protos)],
			OrigDst:  addrs[int(rest[1])%len(addrs)],
			DstPort:  ports[int(rest[2])%len(ports)],
			ReplySrc: addrs[int(rest[3])%len(addrs)],
		}
		if f.Validate() != nil {
			continue // refused filters are covered by TestNewIndexRefuses
		}
		plan = append(plan, f)
	}
	return plan, flow
}

// FuzzIndexMatch checks that the index matches exactly what Filter's semantics match, for
// any plan and entry.
func FuzzIndexMatch(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 1, 1, 0})
	f.Add([]byte{0, 1, 1, 2, 1, 0, 0, 3, 0, 0, 6, 1, 7, 0, 0, 3, 3})
	f.Add([]byte{2, 0, 0, 0, 0, 2, 1, 0, 0, 2, 0, 0, 3})
	f.Add([]byte{1, 0, 2, 1, 3, 1, 2, 3, 0, 0, 0, 2, 0, 1, 1, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		plan, flow := decodeCase(data)
		if flow == nil {
			return
		}
		x, err := newIndex(plan)
		require.NoError(t, err)
		assert.Equal(t, matchesAny(plan, flow), matchMessage(x, encodeEntry(flow)), "plan %v, entry %v", plan, flow)
	})
}

// benchTable is n UDP entries from distinct source ports to a DNS server: a table of flows
// that no service filter matches.
func benchTable(n int) []*netlink.ConntrackFlow {
	flows := make([]*netlink.ConntrackFlow, n)
	dns := netip.MustParseAddr("198.18.9.53")
	for i := range flows {
		src := netip.AddrFrom4([4]byte{198, 18, byte(10 + i>>16), byte(i >> 8)})
		flows[i] = entry(unix.IPPROTO_UDP, ap(src, uint16(1024+i%60000)), ap(dns, 53), dns)
	}
	return flows
}

// benchPlan is one NodePort filter plus extra filters of every shape kube-proxy produces,
// none of which matches benchTable's entries.
func benchPlan(extra int) conntrackorder.Plan {
	plan := conntrackorder.Plan{{Protocol: conntrackorder.UDP, DstPort: 30080}}
	for i := 0; i < extra; i++ {
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], uint32(i))
		svc := netip.AddrFrom4([4]byte{198, 19, b[2], b[3]})
		ep := netip.AddrFrom4([4]byte{198, 18, 200 + b[2]%50, b[3]})
		switch i % 4 {
		case 0:
			plan = append(plan, conntrackorder.Filter{Protocol: conntrackorder.UDP, OrigDst: svc, DstPort: 80})
		case 1:
			plan = append(plan, conntrackorder.Filter{Protocol: conntrackorder.UDP, DstPort: uint16(30081 + i%2000)})
		case 2:
			plan = append(plan, conntrackorder.Filter{Protocol: conntrackorder.UDP, OrigDst: svc, DstPort: 80, ReplySrc: ep})
		default:
			plan = append(plan, conntrackorder.Filter{Protocol: conntrackorder.UDP, DstPort: uint16(30081 + i%2000), ReplySrc: ep})
		}
	}
	return plan
}

// BenchmarkIndexMatch measures the matcher alone, per entry: the cost follows the number of
// filter shapes (at most 7), not the number of filters.
func BenchmarkIndexMatch(b *testing.B) {
	flows := make([]ctEntry, 0, 10000)
	for _, f := range benchTable(10000) {
		e, ok := parseEntry(encodeEntry(f))
		require.True(b, ok)
		flows = append(flows, e)
	}
	for _, extra := range []int{0, 5000} {
		b.Run(fmt.Sprintf("filters=%d", extra+1), func(b *testing.B) {
			x, err := newIndex(benchPlan(extra))
			require.NoError(b, err)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if x.match(flows[i%len(flows)], true) {
					b.Fatal("unrelated entry matched")
				}
			}
		})
	}
}

// BenchmarkNewIndex measures building the sets of a 5,001-filter plan, paid once per flush.
func BenchmarkNewIndex(b *testing.B) {
	plan := benchPlan(5000)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := newIndex(plan); err != nil {
			b.Fatal(err)
		}
	}
}
