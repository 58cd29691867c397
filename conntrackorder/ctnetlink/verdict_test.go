//go:build linux

package ctnetlink

import (
	"context"
	"fmt"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/internal/netnstest"
)

// nodePass is what one pass over a node table's UDP entries judges: the messages the kernel
// sends for one family, with the plan and desired state of the changes to the node's state.
type nodePass struct {
	fam      family
	msgs     [][]byte
	stale    []bool // whether each message's entry is stale
	idx      *index
	desired  *conntrackorder.Desired
	verdicts map[verdictKey]bool
}

func (p *nodePass) judge() *judge {
	return &judge{idx: p.idx, desired: p.desired, onNode: p.fam.node, verdicts: p.verdicts}
}

// nodePasses builds nt's UDP entries as the kernel's dump messages, one pass per family the
// reconcile reads, and the plan and desired state of a Tracker that synced nt.Before and then
// saw the changes to nt.After, told the node's families.
func nodePasses(tb testing.TB, spec netnstest.NodeTableSpec) []*nodePass {
	tb.Helper()
	nt, err := netnstest.NewNodeTable(spec)
	require.NoError(tb, err)
	tr := conntrackorder.NewTracker()
	require.NoError(tb, nt.TrackBefore(tr))
	sync := conntrackorder.NewSyncer(tr, func(context.Context) error { return nil }, flushNothing{})
	require.NoError(tb, sync.Sync(context.Background()))
	require.NoError(tb, nt.TrackAfter(tr))
	require.NoError(tb, tr.SetNodeFamilies(spec.Stack.Families()))
	idx, err := newIndex(tr.Pending())
	require.NoError(tb, err)
	var passes []*nodePass
	byFam := map[uint8]*nodePass{}
	for _, fam := range idx.families(tr.Desired()) {
		p := &nodePass{fam: fam, idx: idx, desired: tr.Desired(), verdicts: map[verdictKey]bool{}}
		passes = append(passes, p)
		byFam[fam.nl] = p
	}
	for _, f := range nt.Flows {
		if f.Protocol != "udp" {
			continue // the kernel's filter sends only UDP entries to a reconcile
		}
		reply := f.ReplySrc
		if !reply.IsValid() {
			reply = f.Dst
		}
		e := entry(unix.IPPROTO_UDP, f.Src, f.Dst, reply.Addr())
		e.Reverse.SrcPort = reply.Port()
		p := byFam[e.FamilyType]
		require.NotNil(tb, p, "no pass reads the family of %v", f)
		_, stale := nt.Stale[f]
		p.msgs = append(p.msgs, encodeEntry(e))
		p.stale = append(p.stale, stale)
	}
	return passes
}

type flushNothing struct{}

func (flushNothing) Flush(context.Context, conntrackorder.Plan) error { return nil }

// On a node's table of every stack, a pass that remembers its verdicts deletes exactly the
// stale entries, each with the verdict the full judgment gives it.
func TestRememberedVerdictsAreTheFullJudgment(t *testing.T) {
	for _, stack := range []netnstest.Stack{netnstest.IPv4Only, netnstest.IPv6Only, netnstest.DualStack} {
		t.Run(stack.String(), func(t *testing.T) {
			passes := nodePasses(t, netnstest.NodeTableSpec{Services: 60, TCP: 0, UDP: 3000, Stale: 100, Stack: stack})
			stale := 0
			for _, p := range passes {
				j := p.judge()
				for i, msg := range p.msgs {
					e, ok := parseEntry(msg)
					require.True(t, ok)
					got := j.stale(e)
					require.Equal(t, j.decide(e), got, "%s entry %+v", p.fam.name, e)
					require.Equal(t, p.stale[i], got, "%s entry %+v", p.fam.name, e)
					if got {
						stale++
					}
				}
				assert.Less(t, len(p.verdicts), len(p.msgs)/5, "the entries share their verdicts")
			}
			assert.Equal(t, 100, stale)
		})
	}
}

// A pass with more distinct destinations and reply sources than it remembers judges the rest in
// full: the same verdicts, and memory bounded by maxVerdicts.
func TestVerdictsBeyondTheBoundAreJudgedInFull(t *testing.T) {
	tr := conntrackorder.NewTracker()
	svc := netip.MustParseAddr("198.19.0.10")
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "dns", Protocol: conntrackorder.UDP, Port: 53, ClusterIPs: []netip.Addr{svc}}))
	require.NoError(t, tr.SetEndpoints("dns", []netip.AddrPort{ap(ep4, 53)}))
	idx, err := newIndex(conntrackorder.Plan{{Protocol: conntrackorder.UDP, ReplySrc: ep4b}})
	require.NoError(t, err)
	j := &judge{idx: idx, desired: tr.Desired(), onNode: true, verdicts: map[verdictKey]bool{}}
	for round := 0; round < 2; round++ {
		for i := 0; i < 2*maxVerdicts; i++ {
			// Distinct reply ports: the served endpoint's port 53 is kept, every other
			// reply source of the service IP contradicts it, and the filter's
			// endpoint is deleted on any destination.
			reply := ap(ep4, uint16(53+i%3))
			if i%7 == 0 {
				reply = ap(ep4b, 53)
			}
			dst := ap(svc, 53)
			if i%2 == 1 {
				dst = ap(netip.AddrFrom4([4]byte{198, 20, byte(i >> 8), byte(i)}), 53)
			}
			e, ok := parseEntry(encodeEntry(func() *netlink.ConntrackFlow {
				f := entry(unix.IPPROTO_UDP, ap(cli4, 40000), dst, reply.Addr())
				f.Reverse.SrcPort = reply.Port()
				return f
			}()))
			require.True(t, ok)
			require.Equal(t, j.decide(e), j.stale(e), "entry %+v", e)
		}
	}
	assert.Equal(t, maxVerdicts, len(j.verdicts))
}

// Two entries with the same destination and reply source are different entries when only one
// was DNATed: a filter on the reply source selects that one alone.
func TestRememberedVerdictsTellDNATFromNot(t *testing.T) {
	idx, err := newIndex(conntrackorder.Plan{{Protocol: conntrackorder.UDP, ReplySrc: ep4b}})
	require.NoError(t, err)
	j := &judge{idx: idx, onNode: true, verdicts: map[verdictKey]bool{}}
	f := entry(unix.IPPROTO_UDP, ap(cli4, 40000), ap(svc4, 53), ep4b)
	const confirmed = 0x8 // IPS_CONFIRMED, not DNATed: an entry made with its reply tuple given
	for _, c := range []struct {
		msg   []byte
		stale bool
	}{
		{encodeEntry(f), true},
		{encodeEntryStatus(f, confirmed), false},
		{encodeEntry(f), true},
	} {
		e, ok := parseEntry(c.msg)
		require.True(t, ok)
		assert.Equal(t, c.stale, j.stale(e), "entry %+v", e)
	}
}

// BenchmarkJudge measures what a reconcile does in user space for each UDP entry of an
// IPv4-only node's table at a million entries (its 100,000 UDP entries, the ones the kernel
// sends, 1,000 stale): read the message and judge it, remembering verdicts as a pass does, and
// in full each time, as passes did before they remembered. Per op: one entry.
func BenchmarkJudge(b *testing.B) {
	passes := nodePasses(b, netnstest.NodeTableSpec{Services: 500, UDP: 100000, Stale: 1000, Stack: netnstest.IPv4Only})
	require.Len(b, passes, 1)
	p := passes[0]
	for _, c := range []struct {
		name  string
		judge func(*judge, ctEntry) bool
	}{
		{"remembered", (*judge).stale},
		{"full", (*judge).decide},
	} {
		b.Run(c.name, func(b *testing.B) {
			clear(p.verdicts)
			j := p.judge()
			stale := 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				k := i % len(p.msgs)
				if k == 0 {
					clear(p.verdicts) // a pass
				}
				e, ok := parseEntry(p.msgs[k])
				if !ok {
					b.Fatal("unreadable")
				}
				if c.judge(j, e) {
					stale++
				}
			}
			b.StopTimer()
			if want := b.N / len(p.msgs) * 1000; stale < want {
				b.Fatalf("%d stale entries judged, want at least %d", stale, want)
			}
		})
	}
}

// judgeAll judges each message with j, in order, and requires every verdict to be the full
// judgment's and the one wanted.
func judgeAll(t *testing.T, j *judge, msgs [][]byte, want []bool) {
	t.Helper()
	for i, msg := range msgs {
		e, ok := parseEntry(msg)
		require.True(t, ok, "message %d", i)
		require.Equal(t, j.decide(e), j.stale(e), "message %d: entry %+v", i, e)
		assert.Equal(t, want[i], j.stale(e), "message %d: entry %+v", i, e)
	}
}

// An IPv4 entry and an IPv6 entry of the IPv4-mapped forms of its addresses are different
// entries ("Addresses of an IPv4 entry must be IPv4, not IPv4-mapped IPv6"): a flow NATed to
// a serving endpoint through the NodePort is kept, the IPv6 one of the mapped addresses is
// not served by it, and a filter for an IPv4 address selects the IPv4 entry only. In either
// order.
func TestRememberedVerdictsTellIPv4FromIPv4MappedIPv6(t *testing.T) {
	mapped := func(a netip.Addr) netip.Addr { return netip.AddrFrom16(a.As16()) }
	dns4 := netip.MustParseAddr("198.18.9.53")
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: conntrackorder.UDP, Port: 80,
		ClusterIPs: []netip.Addr{svc4}, NodePort: 30080}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{ap(ep4, 8080)}))
	idx, err := newIndex(conntrackorder.Plan{{Protocol: conntrackorder.UDP, OrigDst: dns4, DstPort: 53}})
	require.NoError(t, err)
	v4node := encodeEntry(udpEntry(ap(node4, 30080), ap(ep4, 8080)))
	v6node := encodeEntry(entryReply(ap(mapped(cli4), 40000), ap(mapped(node4), 30080), ap(mapped(ep4), 8080)))
	v4dns := encodeEntry(udpEntry(ap(dns4, 53), ap(dns4, 53)))
	v6dns := encodeEntry(entryReply(ap(mapped(cli4), 40000), ap(mapped(dns4), 53), ap(mapped(dns4), 53)))
	for _, c := range []struct {
		name string
		msgs [][]byte
		want []bool
	}{
		{"ipv4 first", [][]byte{v4node, v6node, v4dns, v6dns, v4node, v6node, v4dns, v6dns}, []bool{false, true, true, false, false, true, true, false}},
		{"mapped first", [][]byte{v6node, v4node, v6dns, v4dns, v6node, v4node, v6dns, v4dns}, []bool{true, false, false, true, true, false, false, true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := &judge{idx: idx, desired: tr.Desired(), onNode: true, verdicts: map[verdictKey]bool{}}
			judgeAll(t, j, c.msgs, c.want)
		})
	}
}

// entryReply is a UDP entry from src to dst whose reply comes from reply.
func entryReply(src, dst, reply netip.AddrPort) *netlink.ConntrackFlow {
	f := entry(unix.IPPROTO_UDP, src, dst, reply.Addr())
	f.Reverse.SrcPort = reply.Port()
	return f
}

// Entries with the same destination and reply source, one of each protocol, are judged each by
// its own: the desired state judges UDP only, Keeps keeps UDP only, and a filter selects its
// protocol only. Whichever protocol comes first.
func TestRememberedVerdictsTellProtocolsApart(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: conntrackorder.UDP, Port: 80,
		ClusterIPs: []netip.Addr{svc4}, NodePort: 30080}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{ap(ep4, 8080)}))
	idx, err := newIndex(conntrackorder.Plan{{Protocol: conntrackorder.SCTP, OrigDst: svc4, DstPort: 80}})
	require.NoError(t, err)
	msg := func(proto uint8, reply netip.Addr) []byte {
		f := entry(proto, ap(cli4, 40000), ap(svc4, 80), reply)
		f.Reverse.SrcPort = 8080
		return encodeEntry(f)
	}
	// Served by ep4: kept if UDP, selected by the SCTP filter if SCTP. Served by ep4b:
	// contradicts if UDP, selected if SCTP. TCP: neither.
	type judged struct {
		msg   []byte
		stale bool
	}
	cases := map[string][]judged{
		"tcp":  {{msg(unix.IPPROTO_TCP, ep4), false}, {msg(unix.IPPROTO_TCP, ep4b), false}},
		"udp":  {{msg(unix.IPPROTO_UDP, ep4), false}, {msg(unix.IPPROTO_UDP, ep4b), true}},
		"sctp": {{msg(unix.IPPROTO_SCTP, ep4), true}, {msg(unix.IPPROTO_SCTP, ep4b), true}},
	}
	for _, order := range [][]string{{"tcp", "udp", "sctp"}, {"udp", "sctp", "tcp"}, {"sctp", "tcp", "udp"}} {
		t.Run(fmt.Sprint(order), func(t *testing.T) {
			j := &judge{idx: idx, desired: tr.Desired(), onNode: true, verdicts: map[verdictKey]bool{}}
			var msgs [][]byte
			var want []bool
			for round := 0; round < 2; round++ {
				for _, p := range order {
					for _, c := range cases[p] {
						msgs = append(msgs, c.msg)
						want = append(want, c.stale)
					}
				}
			}
			judgeAll(t, j, msgs, want)
		})
	}
}

// An entry not DNATed judged before a DNATed one of the same tuples: a filter on the reply
// source selects the DNATed one only, whichever comes first, and an entry created with its
// NATed reply tuple (IPS_DST_NAT_DONE, reply from another address) counts as DNATed.
func TestRememberedVerdictsTellDNATFromNotInEitherOrder(t *testing.T) {
	idx, err := newIndex(conntrackorder.Plan{{Protocol: conntrackorder.UDP, DstPort: 30080, ReplySrc: ep4b}})
	require.NoError(t, err)
	f := udpEntry(ap(node4, 30080), ap(ep4b, 8080))
	const (
		confirmed = 0x8   // IPS_CONFIRMED
		natDone   = 0x188 // IPS_CONFIRMED | IPS_SRC_NAT_DONE | IPS_DST_NAT_DONE
		dnat      = 0x1a8 // and IPS_DST_NAT
	)
	for _, c := range []struct {
		name   string
		status []uint32
		want   []bool
	}{
		{"not DNATed first", []uint32{confirmed, dnat, confirmed, natDone, confirmed}, []bool{false, true, false, true, false}},
		{"DNAT done first", []uint32{natDone, confirmed, dnat, confirmed}, []bool{true, false, true, false}},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := &judge{idx: idx, onNode: true, verdicts: map[verdictKey]bool{}}
			var msgs [][]byte
			for _, s := range c.status {
				msgs = append(msgs, encodeEntryStatus(f, s))
			}
			judgeAll(t, j, msgs, c.want)
		})
	}
}
