//go:build linux

package conntrackorder_test

import (
	"context"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/conntrackorder/ctexec"
	"github.com/safereconcile/safereconcile/conntrackorder/ctnetlink"
	"github.com/safereconcile/safereconcile/internal/netnstest"
)

// The real-kernel test of REFERENCE.md's scenario (kubernetes#98305): a client keeps sending
// to a UDP NodePort from one source port; the first datagram arrives before the DNAT rule and
// leaves an un-NATed [UNREPLIED] entry that catches every later datagram. Only deleting that
// entry after the rule exists brings replies.

const (
	kernelNodePort = 30080
	kernelPodPort  = 8080
	kernelSvcPort  = 80
	kernelSvcName  = "kernel/echo:udp"
	// kernelDarkWait is how long one datagram waits for a reply that must not come. A reply
	// through a veth takes well under a millisecond; a late one can only hide a reply, and so
	// cannot make a dark NodePort look served.
	kernelDarkWait = 300 * time.Millisecond
	// kernelReplyWait is how long one datagram waits for a reply that must come, generous for
	// a loaded CI machine.
	kernelReplyWait = 2 * time.Second
)

// kernelBackend makes a Flusher that acts on a namespace's conntrack table.
type kernelBackend struct {
	name string
	new  func(tb testing.TB, ns *netnstest.Namespace) conntrackorder.Flusher
}

var kernelBackends = []kernelBackend{
	{name: "ctexec", new: func(tb testing.TB, ns *netnstest.Namespace) conntrackorder.Flusher {
		// conntrack(8) works on the namespace of the thread that starts it.
		return inNamespace{ns: ns, f: ctexec.New()}
	}},
	{name: "ctnetlink", new: func(tb testing.TB, ns *netnstest.Namespace) conntrackorder.Flusher {
		// The netlink socket stays in the namespace it was opened in.
		var f *ctnetlink.Flusher
		require.NoError(tb, ns.Do(func() error {
			var err error
			f, err = ctnetlink.New()
			return err
		}))
		tb.Cleanup(func() { assert.NoError(tb, f.Close()) })
		return f
	}},
}

// inNamespace runs a Flusher's Flush on a thread inside ns.
type inNamespace struct {
	ns *netnstest.Namespace
	f  conntrackorder.Flusher
}

func (f inNamespace) Flush(ctx context.Context, plan conntrackorder.Plan) error {
	return f.ns.Do(func() error { return f.f.Flush(ctx, plan) })
}

// kernelScenario is one node with a UDP NodePort service whose pod is up but not yet an
// endpoint, a client that has already sent to the NodePort, and the program function a proxy
// would run: it installs the DNAT rule for the endpoints it has been told about.
type kernelScenario struct {
	topo     *netnstest.Topology
	addrs    netnstest.Addrs
	tracker  *conntrackorder.Tracker
	client   *netnstest.UDPClient
	nodePort netip.AddrPort
	backend  netip.AddrPort

	mu        sync.Mutex
	endpoints []netip.AddrPort // what program installs
}

func newKernelScenario(t *testing.T, ipv6 bool) *kernelScenario {
	t.Helper()
	topo := netnstest.NewTopology(t)
	s := &kernelScenario{topo: topo, addrs: topo.IPv4, tracker: conntrackorder.NewTracker()}
	clusterIP := netip.MustParseAddr("198.18.3.10")
	if ipv6 {
		s.addrs = topo.IPv6
		clusterIP = netip.MustParseAddr("2001:db8:3::10")
	}
	s.nodePort = netip.AddrPortFrom(s.addrs.Node, kernelNodePort)
	s.backend = netip.AddrPortFrom(s.addrs.Pod, kernelPodPort)
	topo.Pod.StartUDPEcho(t, s.backend)
	s.client = topo.Client.ListenUDP(t, netip.AddrPortFrom(s.addrs.Client, 40000))

	require.NoError(t, s.tracker.SetService(conntrackorder.ServicePort{
		Name:       kernelSvcName,
		Protocol:   conntrackorder.UDP,
		Port:       kernelSvcPort,
		ClusterIPs: []netip.Addr{clusterIP},
		NodePort:   kernelNodePort,
	}))
	return s
}

// program installs the DNAT rule for the first known endpoint, if any.
func (s *kernelScenario) program(ctx context.Context) error {
	s.mu.Lock()
	eps := s.endpoints
	s.mu.Unlock()
	if len(eps) == 0 {
		return nil
	}
	return s.topo.Node.EnsureDNAT(ctx, netnstest.DNAT{Protocol: "udp", Port: kernelNodePort, To: eps[0]})
}

// endpointArrives records the pod as the service's endpoint: first in the state program reads,
// then in the Tracker, the order NewSyncer asks for.
func (s *kernelScenario) endpointArrives(t *testing.T) {
	t.Helper()
	s.mu.Lock()
	s.endpoints = []netip.AddrPort{s.backend}
	s.mu.Unlock()
	require.NoError(t, s.tracker.SetEndpoints(kernelSvcName, []netip.AddrPort{s.backend}))
}

// requireDark sends three datagrams from the client's one source port and requires that none
// is answered.
func (s *kernelScenario) requireDark(t *testing.T, why string) {
	t.Helper()
	for i := 0; i < 3; i++ {
		replied, err := s.client.Exchange(s.nodePort, kernelDarkWait)
		require.NoError(t, err)
		require.False(t, replied, "%s: the NodePort answered\n%s", why, s.conntrack(t))
	}
}

// requireReplies requires a reply to one of a few datagrams from the same source port. A
// stale entry catches every one of them, so retrying does not weaken the test; it only
// tolerates a loaded machine.
func (s *kernelScenario) requireReplies(t *testing.T, why string) {
	t.Helper()
	for i := 0; i < 3; i++ {
		replied, err := s.client.Exchange(s.nodePort, kernelReplyWait)
		require.NoError(t, err)
		if replied {
			return
		}
	}
	t.Fatalf("%s: no reply from the NodePort\n%s", why, s.conntrack(t))
}

// requireStaleEntry requires the un-NATed entry the client's datagrams leave while the node
// has no rule. Without it the dark NodePort would prove nothing: the test would pass with
// conntrack off.
func (s *kernelScenario) requireStaleEntry(t *testing.T) {
	t.Helper()
	entries, err := s.topo.Node.Conntrack(context.Background())
	require.NoError(t, err)
	for _, e := range entries {
		if strings.HasPrefix(e, "udp") && strings.Contains(e, "dport=30080 [UNREPLIED]") &&
			strings.Contains(e, "src="+s.addrs.Node.String()+" dst="+s.addrs.Client.String()+" sport=30080") {
			return
		}
	}
	t.Fatalf("no un-NATed [UNREPLIED] entry for the NodePort:\n%s", strings.Join(entries, "\n"))
}

// conntrack returns the node's table, for failure messages.
func (s *kernelScenario) conntrack(t *testing.T) string {
	entries, err := s.topo.Node.Conntrack(context.Background())
	if err != nil {
		return err.Error()
	}
	return "node conntrack table:\n" + strings.Join(entries, "\n")
}

func TestKernelNodePortStaleUDP(t *testing.T) {
	netnstest.Require(t)
	for _, backend := range kernelBackends {
		backend := backend
		for _, family := range []struct {
			name string
			ipv6 bool
		}{{"ipv4", false}, {"ipv6", true}} {
			family := family
			t.Run(backend.name+"/"+family.name, func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				s := newKernelScenario(t, family.ipv6)
				syncer := conntrackorder.NewSyncer(s.tracker, s.program, backend.new(t, s.topo.Node))

				// Before endpoints: a Sync programs nothing and flushes nothing; the client's
				// datagrams reach the node's own port, where nothing listens.
				require.NoError(t, syncer.Sync(ctx))
				s.requireDark(t, "before endpoints")
				s.requireStaleEntry(t)

				// The endpoint arrives; one Sync installs the DNAT rule, then flushes.
				s.endpointArrives(t)
				require.NoError(t, syncer.Sync(ctx))
				assert.Empty(t, s.tracker.Pending(), "Sync left filters pending")

				s.requireReplies(t, "after the endpoint arrived and one Sync")
			})
		}
	}
}

// TestKernelFlushBeforeProgramStaysDark is the control: kube-proxy's order before
// kubernetes#98305, flush first and program after, with one datagram in between. It proves
// that TestKernelNodePortStaleUDP can fail.
func TestKernelFlushBeforeProgramStaysDark(t *testing.T) {
	netnstest.Require(t)
	for _, backend := range kernelBackends {
		backend := backend
		for _, family := range []struct {
			name string
			ipv6 bool
		}{{"ipv4", false}, {"ipv6", true}} {
			family := family
			t.Run(backend.name+"/"+family.name, func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				s := newKernelScenario(t, family.ipv6)
				flusher := backend.new(t, s.topo.Node)

				s.requireDark(t, "before endpoints")
				s.requireStaleEntry(t)

				s.endpointArrives(t)
				plan := s.tracker.Pending()
				require.NotEmpty(t, plan)
				require.NoError(t, flusher.Flush(ctx, plan)) // wrong: before the rule exists
				require.NoError(t, s.client.Send(s.nodePort))
				require.NoError(t, s.program(ctx))

				s.requireDark(t, "flushed before programming")
				s.requireStaleEntry(t)

				// The right order still repairs it: the plan is pending, and a Sync flushes
				// it after programming.
				syncer := conntrackorder.NewSyncer(s.tracker, s.program, flusher)
				require.NoError(t, syncer.Sync(ctx))
				s.requireReplies(t, "after a Sync")
			})
		}
	}
}

// TestKernelSCTPNodePort checks each backend against an SCTP NodePort on a real kernel. This
// kernel may lack SCTP sockets, so the entry a first packet would leave before the DNAT rule
// is created over netlink instead. ctexec deletes it by port; ctnetlink cannot see SCTP ports
// and refuses the plan, leaving the entry and the plan in place rather than pretend.
func TestKernelSCTPNodePort(t *testing.T) {
	netnstest.Require(t)
	const nodePort = 30868
	tests := []struct {
		backend       kernelBackend
		wantErrIs     error // nil: Sync succeeds
		wantEntryGone bool
	}{
		{backend: kernelBackends[0], wantEntryGone: true},
		{backend: kernelBackends[1], wantErrIs: ctnetlink.ErrSCTPPort},
	}
	for _, tt := range tests {
		tt := tt
		t.Run(tt.backend.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			topo := netnstest.NewTopology(t)
			backend := netip.AddrPortFrom(topo.IPv4.Pod, 3868)
			stale := netnstest.Flow{Protocol: "sctp",
				Src: netip.AddrPortFrom(topo.IPv4.Client, 40000), Dst: netip.AddrPortFrom(topo.IPv4.Node, nodePort)}
			require.NoError(t, topo.Node.Table(t).Insert(stale))

			tracker := conntrackorder.NewTracker()
			require.NoError(t, tracker.SetService(conntrackorder.ServicePort{
				Name: "kernel/diameter:sctp", Protocol: conntrackorder.SCTP, Port: 3868,
				ClusterIPs: []netip.Addr{netip.MustParseAddr("198.18.3.11")}, NodePort: nodePort,
			}))
			require.NoError(t, tracker.SetEndpoints("kernel/diameter:sctp", []netip.AddrPort{backend}))
			program := func(ctx context.Context) error {
				return topo.Node.EnsureDNAT(ctx, netnstest.DNAT{Protocol: "sctp", Port: nodePort, To: backend})
			}
			syncer := conntrackorder.NewSyncer(tracker, program, tt.backend.new(t, topo.Node))

			err := syncer.Sync(ctx)

			if tt.wantErrIs != nil {
				require.ErrorIs(t, err, tt.wantErrIs)
				assert.NotEmpty(t, tracker.Pending(), "a refused plan must stay pending")
			} else {
				require.NoError(t, err)
				assert.Empty(t, tracker.Pending())
			}
			entries, err := topo.Node.Conntrack(ctx)
			require.NoError(t, err)
			found := false
			for _, e := range entries {
				found = found || (strings.HasPrefix(e, "sctp") && strings.Contains(e, "dport=30868"))
			}
			assert.Equal(t, !tt.wantEntryGone, found, "stale sctp entry present; table:\n%s", strings.Join(entries, "\n"))
		})
	}
}
