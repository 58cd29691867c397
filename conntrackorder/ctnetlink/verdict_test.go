//go:build linux

package ctnetlink

import (
	"context"
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
