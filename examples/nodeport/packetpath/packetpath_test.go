package packetpath_test

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/examples/nodeport/packetpath"
)

var (
	client    = netip.MustParseAddrPort("198.18.1.2:40000")
	client2   = netip.MustParseAddrPort("198.18.1.2:40001")
	nodePort  = netip.MustParseAddrPort("198.18.1.1:30080")
	clusterIP = netip.MustParseAddrPort("198.18.3.10:80")
	pod       = netip.MustParseAddrPort("198.18.2.2:8080")
	pod2      = netip.MustParseAddrPort("198.18.2.3:8080")

	nodePortRule  = packetpath.Rule{Protocol: conntrackorder.UDP, Dst: nodePort, To: pod}
	clusterIPRule = packetpath.Rule{Protocol: conntrackorder.UDP, Dst: clusterIP, To: pod}
)

const udp = conntrackorder.UDP

func newNode() *packetpath.Node {
	n := packetpath.NewNode()
	n.AddPod(pod)
	return n
}

// sendEverySecond advances the clock by a second and sends, count times, and returns how many
// datagrams were answered.
func sendEverySecond(n *packetpath.Node, src, dst netip.AddrPort, count int) int {
	answered := 0
	for range count {
		n.Advance(time.Second)
		if n.Send(udp, src, dst).Answered {
			answered++
		}
	}
	return answered
}

func TestFirstDatagramBindsTheNATDecision(t *testing.T) {
	n := newNode()

	early := n.Send(udp, client, nodePort)
	assert.True(t, early.New)
	assert.False(t, early.Answered, "answered without a rule")
	assert.False(t, early.Entry.NATed())

	n.SetRules(nodePortRule)
	assert.Equal(t, 0, sendEverySecond(n, client, nodePort, 100),
		"the rule reached a flow whose entry was created before it")
	require.Len(t, n.Entries(), 1, "the client's datagrams did not keep the entry alive")
	assert.Equal(t, []string{
		"udp      17 30 src=198.18.1.2 dst=198.18.1.1 sport=40000 dport=30080 [UNREPLIED] src=198.18.1.1 dst=198.18.1.2 sport=30080 dport=40000",
	}, n.Conntrack())

	// Another source port is another flow: the rule decides it.
	fresh := n.Send(udp, client2, nodePort)
	assert.True(t, fresh.New)
	assert.True(t, fresh.Answered)
	assert.Equal(t, pod, fresh.Entry.Reply.Src)
}

func TestUnrepliedEntryExpiresAfterThirtySecondsOfSilence(t *testing.T) {
	for _, tt := range []struct {
		name         string
		give         time.Duration // silence after the last datagram
		wantAnswered bool
	}{
		{name: "29s keeps the stale entry", give: 29 * time.Second, wantAnswered: false},
		{name: "30s expires it", give: 30 * time.Second, wantAnswered: true},
		{name: "31s expires it", give: 31 * time.Second, wantAnswered: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := newNode()
			n.Send(udp, client, nodePort)
			n.SetRules(nodePortRule)
			n.Advance(tt.give)
			got := n.Send(udp, client, nodePort)
			assert.Equal(t, tt.wantAnswered, got.Answered)
			assert.Equal(t, tt.wantAnswered, got.New)
		})
	}
}

func TestRepliedFlowBecomesAnAssuredStream(t *testing.T) {
	n := newNode()
	n.SetRules(clusterIPRule)

	first := n.Send(udp, client, clusterIP)
	require.True(t, first.Answered)
	assert.True(t, first.Entry.SeenReply)
	assert.False(t, first.Entry.Assured, "assured before the flow lived StreamAfter")
	assert.Equal(t, packetpath.UnrepliedTimeout, first.Entry.Expires-n.Now())

	n.Advance(packetpath.StreamAfter) // exactly StreamAfter: not after it yet
	assert.False(t, n.Send(udp, client, clusterIP).Entry.Assured)
	n.Advance(time.Second)
	stream := n.Send(udp, client, clusterIP)
	assert.True(t, stream.Entry.Assured)
	assert.Equal(t, packetpath.StreamTimeout, stream.Entry.Expires-n.Now())
	assert.Equal(t, []string{
		"udp      17 120 src=198.18.1.2 dst=198.18.3.10 sport=40000 dport=80 src=198.18.2.2 dst=198.18.1.2 sport=8080 dport=40000 [ASSURED]",
	}, n.Conntrack())

	n.Advance(packetpath.StreamTimeout - time.Second)
	assert.Len(t, n.Entries(), 1, "an assured entry expired before StreamTimeout")
	n.Advance(time.Second)
	assert.Empty(t, n.Entries())
}

func TestRulesApplyOnlyToTheirDestination(t *testing.T) {
	n := newNode()
	n.SetRules(nodePortRule)
	got := n.Send(udp, client, netip.MustParseAddrPort("198.18.1.1:30081"))
	assert.False(t, got.Answered)
	assert.False(t, got.Entry.NATed())
	got = n.Send(conntrackorder.TCP, client, nodePort)
	assert.False(t, got.Entry.NATed(), "a udp rule NATed a tcp flow")
	assert.Equal(t, []packetpath.Rule{nodePortRule}, n.Rules())
	assert.Equal(t, "-d 198.18.1.1/32 -p udp --dport 30080 -j DNAT --to-destination 198.18.2.2:8080", nodePortRule.String())
}

func TestAdvanceRefusesToGoBack(t *testing.T) {
	assert.PanicsWithValue(t, "packetpath: Advance with a negative duration", func() {
		packetpath.NewNode().Advance(-time.Second)
	})
}

func TestZeroNodeIsUsable(t *testing.T) {
	var n packetpath.Node
	assert.Empty(t, n.Entries())
	assert.False(t, n.Send(udp, client, nodePort).Answered)
	assert.Len(t, n.Entries(), 1)
}

// table fills a node with four flows: the stale NodePort entry, a NodePort flow and a ClusterIP
// flow NATed to pod, and a ClusterIP flow NATed to pod2.
func table() *packetpath.Node {
	n := newNode()
	n.AddPod(pod2)
	n.Send(udp, client, nodePort) // before any rule: stale
	n.SetRules(nodePortRule, clusterIPRule)
	n.Send(udp, client2, nodePort)
	n.Send(udp, client, clusterIP)
	n.SetRules(packetpath.Rule{Protocol: udp, Dst: clusterIP, To: pod2})
	n.Send(udp, netip.MustParseAddrPort("198.18.1.3:40000"), clusterIP)
	return n
}

// flow names an entry by its original source and destination, for comparisons.
func flow(src, dst netip.AddrPort) string { return src.String() + " > " + dst.String() }

func flows(entries []packetpath.Entry) []string {
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, flow(e.Orig.Src, e.Orig.Dst))
	}
	return out
}

func TestFlusherDeletesWhatTheFilterSelects(t *testing.T) {
	var (
		stale      = flow(client, nodePort)
		nodePortOK = flow(client2, nodePort)
		clusterOK  = flow(client, clusterIP)
		cluster2   = flow(netip.MustParseAddrPort("198.18.1.3:40000"), clusterIP)
	)
	for _, tt := range []struct {
		name string
		give conntrackorder.Filter
		want []string // left in the table, in the order of Entries: by source, then destination
	}{
		{
			name: "nodeport by dport",
			give: conntrackorder.Filter{Protocol: udp, DstPort: 30080},
			want: []string{clusterOK, cluster2},
		},
		{
			name: "service ip and port",
			give: conntrackorder.Filter{Protocol: udp, OrigDst: clusterIP.Addr(), DstPort: 80},
			want: []string{stale, nodePortOK},
		},
		{
			name: "flows NATed to one endpoint",
			give: conntrackorder.Filter{Protocol: udp, OrigDst: clusterIP.Addr(), DstPort: 80, ReplySrc: pod2.Addr()},
			want: []string{stale, clusterOK, nodePortOK},
		},
		{
			name: "nodeport flows NATed to an endpoint leave the stale one",
			give: conntrackorder.Filter{Protocol: udp, DstPort: 30080, ReplySrc: pod.Addr()},
			want: []string{stale, clusterOK, cluster2},
		},
		{
			name: "other protocol",
			give: conntrackorder.Filter{Protocol: conntrackorder.TCP, DstPort: 30080},
			want: []string{stale, clusterOK, nodePortOK, cluster2},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := table()
			require.NoError(t, packetpath.NewFlusher(n).Flush(context.Background(), conntrackorder.Plan{tt.give}))
			if diff := cmp.Diff(tt.want, flows(n.Entries())); diff != "" {
				t.Errorf("entries left (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFlusherRefusesABadPlanWhole(t *testing.T) {
	ctx := context.Background()
	n := table()
	before := n.Entries()

	err := packetpath.NewFlusher(n).Flush(ctx, conntrackorder.Plan{
		{Protocol: udp, DstPort: 30080},
		{Protocol: udp}, // would delete every udp flow
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "packetpath: refusing filter")
	assert.Equal(t, before, n.Entries(), "a refused plan deleted entries")

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	err = packetpath.NewFlusher(n).Flush(cancelled, conntrackorder.Plan{{Protocol: udp, DstPort: 30080}})
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, before, n.Entries())
}

// TestSyncerClearsTheStaleEntryAfterProgramming runs the library's Syncer against the model:
// the NodePort filter the Tracker collects for the endpoint's arrival is flushed after the
// rule is installed, so the next datagram of the same flow starts a NATed one.
func TestSyncerClearsTheStaleEntryAfterProgramming(t *testing.T) {
	ctx := context.Background()
	n := newNode()
	var rules []packetpath.Rule
	tracker := conntrackorder.NewTracker()
	syncer := conntrackorder.NewSyncer(tracker, func(context.Context) error {
		n.SetRules(rules...)
		return nil
	}, packetpath.NewFlusher(n))

	require.NoError(t, tracker.SetService(conntrackorder.ServicePort{
		Name: "default/echo:udp", Protocol: udp, Port: 80,
		ClusterIPs: []netip.Addr{clusterIP.Addr()}, NodePort: nodePort.Port(),
	}))
	require.NoError(t, syncer.Sync(ctx))
	assert.Equal(t, 0, sendEverySecond(n, client, nodePort, 5))

	rules = []packetpath.Rule{clusterIPRule, nodePortRule}
	require.NoError(t, tracker.SetEndpoints("default/echo:udp", []netip.AddrPort{pod}))
	require.NoError(t, syncer.Sync(ctx))
	assert.Equal(t, 5, sendEverySecond(n, client, nodePort, 5))
}
