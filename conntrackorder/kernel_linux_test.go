//go:build linux

package conntrackorder_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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
		return ns.Flusher(ctexec.New())
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

// kernelScenario is one node with a UDP NodePort service whose pod is up but not yet an
// endpoint, a client that has already sent to the NodePort, and the program function a proxy
// would run: it installs the DNAT rule for the endpoints it has been told about.
type kernelScenario struct {
	topo      *netnstest.Topology
	addrs     netnstest.Addrs
	tracker   *conntrackorder.Tracker
	client    *netnstest.UDPClient
	nodePort  netip.AddrPort
	backend   netip.AddrPort
	clusterIP netip.Addr

	mu        sync.Mutex
	endpoints []netip.AddrPort // what program installs
}

func newKernelScenario(t *testing.T, ipv6 bool) *kernelScenario {
	t.Helper()
	topo := netnstest.NewTopology(t)
	s := &kernelScenario{topo: topo, addrs: topo.IPv4, tracker: conntrackorder.NewTracker()}
	s.clusterIP = netip.MustParseAddr("198.18.3.10")
	if ipv6 {
		s.addrs = topo.IPv6
		s.clusterIP = netip.MustParseAddr("2001:db8:3::10")
	}
	s.nodePort = netip.AddrPortFrom(s.addrs.Node, kernelNodePort)
	s.backend = netip.AddrPortFrom(s.addrs.Pod, kernelPodPort)
	topo.Pod.StartUDPEcho(t, s.backend)
	s.client = topo.Client.ListenUDP(t, netip.AddrPortFrom(s.addrs.Client, 40000))

	require.NoError(t, s.tracker.SetService(s.servicePort()))
	return s
}

// servicePort is the scenario's service as a proxy reports it to a Tracker.
func (s *kernelScenario) servicePort() conntrackorder.ServicePort {
	return conntrackorder.ServicePort{
		Name:       kernelSvcName,
		Protocol:   conntrackorder.UDP,
		Port:       kernelSvcPort,
		ClusterIPs: []netip.Addr{s.clusterIP},
		NodePort:   kernelNodePort,
	}
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
	s.requireDarkFrom(t, s.client, why)
}

// requireDarkFrom is requireDark for another client.
func (s *kernelScenario) requireDarkFrom(t *testing.T, c *netnstest.UDPClient, why string) {
	t.Helper()
	for i := 0; i < 3; i++ {
		replied, err := c.Exchange(s.nodePort, kernelDarkWait)
		require.NoError(t, err)
		require.False(t, replied, "%s: the NodePort answered\n%s", why, s.conntrack(t))
	}
}

// requireReplies requires a reply to one of a few datagrams from the same source port. A
// stale entry catches every one of them, so retrying does not weaken the test; it only
// tolerates a loaded machine.
func (s *kernelScenario) requireReplies(t *testing.T, why string) {
	t.Helper()
	s.requireRepliesFrom(t, s.client, why)
}

// requireRepliesFrom is requireReplies for another client.
func (s *kernelScenario) requireRepliesFrom(t *testing.T, c *netnstest.UDPClient, why string) {
	t.Helper()
	for i := 0; i < 3; i++ {
		replied, err := c.Exchange(s.nodePort, kernelReplyWait)
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
		for _, family := range kernelFamilies {
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
		for _, family := range kernelFamilies {
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

// TestKernelSCTPNodePort syncs a node with an SCTP NodePort and a UDP NodePort, each with a
// stale entry a first packet left before its DNAT rule, with each backend and with ctnetlink
// in reconcile mode. This kernel may have no SCTP sockets (EPROTONOSUPPORT), so the entries
// are created over netlink instead, ports included. One Sync must delete the stale SCTP
// entries of both families by port, and the stale UDP entry, and leave an SCTP entry to
// another port and a UDP entry to the SCTP NodePort's number. While ctnetlink refused SCTP
// filters with a port, the SCTP service made every Sync of this plan fail, and the stale UDP
// entry stayed for good.
func TestKernelSCTPNodePort(t *testing.T) {
	netnstest.Require(t)
	const sctpNodePort, udpNodePort = 30868, 30080
	modes := []struct {
		name      string
		newSyncer func(t *testing.T, ns *netnstest.Namespace, tr *conntrackorder.Tracker, program func(context.Context) error) *conntrackorder.Syncer
	}{
		{name: "ctexec", newSyncer: func(t *testing.T, ns *netnstest.Namespace, tr *conntrackorder.Tracker, program func(context.Context) error) *conntrackorder.Syncer {
			return conntrackorder.NewSyncer(tr, program, kernelBackends[0].new(t, ns))
		}},
		{name: "ctnetlink", newSyncer: func(t *testing.T, ns *netnstest.Namespace, tr *conntrackorder.Tracker, program func(context.Context) error) *conntrackorder.Syncer {
			return conntrackorder.NewSyncer(tr, program, kernelBackends[1].new(t, ns))
		}},
		{name: "ctnetlink reconcile", newSyncer: func(t *testing.T, ns *netnstest.Namespace, tr *conntrackorder.Tracker, program func(context.Context) error) *conntrackorder.Syncer {
			return conntrackorder.NewReconcileSyncer(tr, program, kernelBackends[1].new(t, ns).(conntrackorder.Reconciler))
		}},
	}
	for _, mode := range modes {
		mode := mode
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			topo := netnstest.NewTopology(t)
			cli4, node4 := topo.IPv4.Client, topo.IPv4.Node
			cli6, node6 := topo.IPv6.Client, topo.IPv6.Node
			sctpBackend := netip.AddrPortFrom(topo.IPv4.Pod, 3868)
			udpBackend := netip.AddrPortFrom(topo.IPv4.Pod, kernelPodPort)
			stale := []netnstest.Flow{
				{Protocol: "sctp", Src: netip.AddrPortFrom(cli4, 40000), Dst: netip.AddrPortFrom(node4, sctpNodePort)},
				{Protocol: "sctp", Src: netip.AddrPortFrom(cli6, 40000), Dst: netip.AddrPortFrom(node6, sctpNodePort)},
				{Protocol: "udp", Src: netip.AddrPortFrom(cli4, 40000), Dst: netip.AddrPortFrom(node4, udpNodePort)},
			}
			kept := []netnstest.Flow{
				{Protocol: "sctp", Src: netip.AddrPortFrom(cli4, 40001), Dst: netip.AddrPortFrom(node4, sctpNodePort+1)},
				{Protocol: "udp", Src: netip.AddrPortFrom(cli4, 40002), Dst: netip.AddrPortFrom(node4, sctpNodePort)},
			}
			table := topo.Node.Table(t)
			require.NoError(t, table.Insert(stale...))
			require.NoError(t, table.Insert(kept...))
			before, err := table.List()
			require.NoError(t, err)
			require.Subset(t, before, append(stale, kept...), "entries were not created with their ports")

			tracker := conntrackorder.NewTracker()
			require.NoError(t, tracker.SetService(conntrackorder.ServicePort{
				Name: "kernel/diameter:sctp", Protocol: conntrackorder.SCTP, Port: 3868,
				ClusterIPs: []netip.Addr{netip.MustParseAddr("198.18.3.11")}, NodePort: sctpNodePort,
			}))
			require.NoError(t, tracker.SetService(conntrackorder.ServicePort{
				Name: kernelSvcName, Protocol: conntrackorder.UDP, Port: kernelSvcPort,
				ClusterIPs: []netip.Addr{netip.MustParseAddr("198.18.3.10")}, NodePort: udpNodePort,
			}))
			require.NoError(t, tracker.SetEndpoints("kernel/diameter:sctp", []netip.AddrPort{sctpBackend}))
			require.NoError(t, tracker.SetEndpoints(kernelSvcName, []netip.AddrPort{udpBackend}))
			program := func(ctx context.Context) error {
				return errors.Join(
					topo.Node.EnsureDNAT(ctx, netnstest.DNAT{Protocol: "sctp", Port: sctpNodePort, To: sctpBackend}),
					topo.Node.EnsureDNAT(ctx, netnstest.DNAT{Protocol: "udp", Port: udpNodePort, To: udpBackend}))
			}
			syncer := mode.newSyncer(t, topo.Node, tracker, program)

			require.NoError(t, syncer.Sync(ctx))

			assert.Empty(t, tracker.Pending())
			got, err := table.List()
			require.NoError(t, err)
			in := map[netnstest.Flow]bool{}
			for _, f := range got {
				in[f] = true
			}
			entries, err := topo.Node.Conntrack(ctx)
			require.NoError(t, err)
			for _, f := range stale {
				assert.False(t, in[f], "stale entry left: %+v; table:\n%s", f, strings.Join(entries, "\n"))
			}
			for _, f := range kept {
				assert.True(t, in[f], "entry deleted: %+v; table:\n%s", f, strings.Join(entries, "\n"))
			}
		})
	}
}

// The real-kernel tests of reconcile mode. Besides the datagrams of real clients, they create
// entries directly in the node's table: flows to the ClusterIP, which the client namespace
// cannot route to, to the NodePort on the node's other address, and flows NATed to an
// endpoint where nothing runs any more.

// kernelFamilies are the address families each scenario runs in.
var kernelFamilies = []struct {
	name string
	ipv6 bool
}{{"ipv4", false}, {"ipv6", true}}

// netlinkFlusher opens a ctnetlink Flusher on the node's table.
func (s *kernelScenario) netlinkFlusher(t *testing.T) *ctnetlink.Flusher {
	t.Helper()
	var f *ctnetlink.Flusher
	require.NoError(t, s.topo.Node.Do(func() error {
		var err error
		f, err = ctnetlink.New()
		return err
	}))
	t.Cleanup(func() { assert.NoError(t, f.Close()) })
	return f
}

// goneBackend is an endpoint in the pod's subnet where nothing runs: one that has left.
func (s *kernelScenario) goneBackend() netip.AddrPort {
	a := netip.MustParseAddr("198.18.2.3")
	if s.addrs.Pod.Is6() {
		a = netip.MustParseAddr("2001:db8:2::3")
	}
	return netip.AddrPortFrom(a, kernelPodPort)
}

// entry is a UDP entry from the client's address and port to dst, NATed to replySrc (zero:
// not NATed), as Table.List shows it.
func (s *kernelScenario) entry(port uint16, dst, replySrc netip.AddrPort) netnstest.Flow {
	return netnstest.Flow{Protocol: "udp", Src: netip.AddrPortFrom(s.addrs.Client, port), Dst: dst, ReplySrc: replySrc}
}

// requireTable checks which of the given entries the node's table holds.
func (s *kernelScenario) requireTable(t *testing.T, present, absent []netnstest.Flow) {
	t.Helper()
	got, err := s.topo.Node.Table(t).List()
	require.NoError(t, err)
	in := map[netnstest.Flow]bool{}
	for _, f := range got {
		in[f] = true
	}
	for _, f := range present {
		assert.True(t, in[f], "entry deleted: %+v\n%s", f, s.conntrack(t))
	}
	for _, f := range absent {
		assert.False(t, in[f], "entry left: %+v\n%s", f, s.conntrack(t))
	}
}

// TestKernelReconcileRestart restarts the proxy on a node whose table holds healthy flows and
// stale ones: a fresh Tracker and Syncer with the same state sync once. In reconcile mode the
// healthy flows survive; in flush mode every flow of the service goes (kubernetes#122740),
// which shows that the test can fail. The stale flows go in both: an [UNREPLIED] entry left
// by a datagram that arrived before the rule, and a flow NATed to an endpoint that left while
// no proxy ran.
func TestKernelReconcileRestart(t *testing.T) {
	netnstest.Require(t)
	for _, family := range kernelFamilies {
		family := family
		for _, mode := range []struct {
			name        string
			reconcile   bool
			keepHealthy bool
		}{{"reconcile", true, true}, {"flush", false, false}} {
			mode := mode
			t.Run(mode.name+"/"+family.name, func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				s := newKernelScenario(t, family.ipv6)
				table := s.topo.Node.Table(t)

				// A client whose first datagram arrives before any rule.
				late := s.topo.Client.ListenUDP(t, netip.AddrPortFrom(s.addrs.Client, 40001))
				s.requireDarkFrom(t, late, "before the rule")
				s.requireStaleEntry(t)

				// The old proxy programs the rule and dies before it flushes. The first
				// client's flow is NATed to the pod.
				s.endpointArrives(t)
				require.NoError(t, s.program(ctx))
				s.requireReplies(t, "through the old proxy's rule")
				s.requireDarkFrom(t, late, "the late client's entry is stale")

				toPod := func(port uint16, dst netip.AddrPort) netnstest.Flow { return s.entry(port, dst, s.backend) }
				healthy := []netnstest.Flow{
					toPod(40000, s.nodePort), // the first client's, made by the kernel
					toPod(41000, netip.AddrPortFrom(s.clusterIP, kernelSvcPort)),
					toPod(41001, netip.AddrPortFrom(s.addrs.Gateway, kernelNodePort)),
				}
				stale := []netnstest.Flow{
					s.entry(40001, s.nodePort, netip.AddrPort{}), // the late client's [UNREPLIED]
					s.entry(41002, netip.AddrPortFrom(s.clusterIP, kernelSvcPort), s.goneBackend()),
				}
				require.NoError(t, table.Insert(healthy[1:]...))
				require.NoError(t, table.Insert(stale[1:]...))
				s.requireTable(t, append(healthy, stale...), nil)

				// The new proxy reports the whole state, then syncs once.
				tracker := conntrackorder.NewTracker()
				require.NoError(t, tracker.SetService(s.servicePort()))
				require.NoError(t, tracker.SetEndpoints(kernelSvcName, []netip.AddrPort{s.backend}))
				var syncer *conntrackorder.Syncer
				if mode.reconcile {
					syncer = conntrackorder.NewReconcileSyncer(tracker, s.program, s.netlinkFlusher(t))
				} else {
					syncer = conntrackorder.NewSyncer(tracker, s.program, s.netlinkFlusher(t))
				}
				require.NoError(t, syncer.Sync(ctx))

				if mode.keepHealthy {
					s.requireTable(t, healthy, stale)
				} else {
					s.requireTable(t, nil, append(healthy, stale...))
				}
				s.requireRepliesFrom(t, late, "after the restart")
				s.requireReplies(t, "after the restart")
			})
		}
	}
}

// TestKernelReconcileMissedEvent loses the rule for a while without the Tracker hearing of it,
// as when another agent rebuilds the nat table: a client's first datagram in that window
// leaves an [UNREPLIED] entry, and no event asks for it to be cleared. Reconcile mode deletes
// it on the next Sync because it contradicts the state; flush mode has nothing pending and
// leaves the client dark, which shows that the test can fail.
func TestKernelReconcileMissedEvent(t *testing.T) {
	netnstest.Require(t)
	for _, family := range kernelFamilies {
		family := family
		for _, mode := range []struct {
			name      string
			reconcile bool
		}{{"reconcile", true}, {"flush", false}} {
			mode := mode
			t.Run(mode.name+"/"+family.name, func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				s := newKernelScenario(t, family.ipv6)
				var syncer *conntrackorder.Syncer
				if mode.reconcile {
					syncer = conntrackorder.NewReconcileSyncer(s.tracker, s.program, s.netlinkFlusher(t))
				} else {
					syncer = conntrackorder.NewSyncer(s.tracker, s.program, s.netlinkFlusher(t))
				}
				s.endpointArrives(t)
				require.NoError(t, syncer.Sync(ctx))
				s.requireReplies(t, "after the endpoint arrived")

				require.NoError(t, s.topo.Node.DeleteDNAT(ctx, netnstest.DNAT{Protocol: "udp", Port: kernelNodePort, To: s.backend}))
				late := s.topo.Client.ListenUDP(t, netip.AddrPortFrom(s.addrs.Client, 40001))
				s.requireDarkFrom(t, late, "while the rule is missing")
				s.requireStaleEntry(t)

				require.NoError(t, syncer.Sync(ctx)) // programs the rule again; no event came
				assert.Empty(t, s.tracker.Pending())

				if mode.reconcile {
					s.requireRepliesFrom(t, late, "after a reconcile")
				} else {
					s.requireDarkFrom(t, late, "flush mode had no event to clear it")
				}
				s.requireReplies(t, "the first client's flow was left alone")
			})
		}
	}
}

// TestKernelReconcileEndpointLeft removes one of two endpoints: the flows NATed to it go, the
// flows NATed to the other stay, whether the proxy saw the endpoint leave or started after it
// had left.
func TestKernelReconcileEndpointLeft(t *testing.T) {
	netnstest.Require(t)
	for _, family := range kernelFamilies {
		family := family
		for _, restart := range []bool{false, true} {
			restart := restart
			name := "reported"
			if restart {
				name = "while no proxy ran"
			}
			t.Run(name+"/"+family.name, func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				s := newKernelScenario(t, family.ipv6)
				gone := s.goneBackend()
				s.mu.Lock()
				s.endpoints = []netip.AddrPort{s.backend, gone} // program NATs to the first
				s.mu.Unlock()
				require.NoError(t, s.tracker.SetEndpoints(kernelSvcName, []netip.AddrPort{s.backend, gone}))
				flusher := s.netlinkFlusher(t)
				syncer := conntrackorder.NewReconcileSyncer(s.tracker, s.program, flusher)
				require.NoError(t, syncer.Sync(ctx))
				s.requireReplies(t, "with two endpoints")

				svc := netip.AddrPortFrom(s.clusterIP, kernelSvcPort)
				gw := netip.AddrPortFrom(s.addrs.Gateway, kernelNodePort)
				kept := []netnstest.Flow{
					s.entry(40000, s.nodePort, s.backend), // the client's, made by the kernel
					s.entry(41000, svc, s.backend),
					s.entry(41001, gw, s.backend),
				}
				leaving := []netnstest.Flow{
					s.entry(41002, svc, gone),
					s.entry(41003, s.nodePort, gone),
					s.entry(41004, gw, gone),
				}
				require.NoError(t, s.topo.Node.Table(t).Insert(append(kept[1:], leaving...)...))
				require.NoError(t, syncer.Sync(ctx))
				s.requireTable(t, append(kept, leaving...), nil) // both endpoints serve

				s.mu.Lock()
				s.endpoints = []netip.AddrPort{s.backend}
				s.mu.Unlock()
				tracker := s.tracker
				if restart {
					tracker = conntrackorder.NewTracker()
					require.NoError(t, tracker.SetService(s.servicePort()))
					syncer = conntrackorder.NewReconcileSyncer(tracker, s.program, flusher)
				}
				require.NoError(t, tracker.SetEndpoints(kernelSvcName, []netip.AddrPort{s.backend}))
				require.NoError(t, syncer.Sync(ctx))

				s.requireTable(t, kept, leaving)
				s.requireReplies(t, "after the other endpoint left")
			})
		}
	}
}

// TestKernelReplySrcMatchesOnlyDNATedFlows runs the same endpoint filters through both
// backends on the same real table: a filter's ReplySrc is the backend a flow was DNATed to,
// so a client that sent to the endpoint's address directly, on the NodePort's number, keeps
// its flow, and the flows DNATed to the endpoint go. conntrack(8) --dst-nat has always kept
// the direct flow; ctnetlink deleted it because its reply source is the endpoint's address.
func TestKernelReplySrcMatchesOnlyDNATedFlows(t *testing.T) {
	netnstest.Require(t)
	for _, family := range kernelFamilies {
		for _, backend := range kernelBackends {
			family, backend := family, backend
			t.Run(family.name+"/"+backend.name, func(t *testing.T) {
				t.Parallel()
				ns := netnstest.New(t, "replysrc")
				cli, node, svc, ep := mustAddr("198.18.1.2"), mustAddr("198.18.1.1"), mustAddr("198.18.30.10"), mustAddr("198.18.2.20")
				if family.ipv6 {
					cli, node, svc, ep = mustAddr("2001:db8:1::2"), mustAddr("2001:db8:1::1"), mustAddr("2001:db8:30::10"), mustAddr("2001:db8:2::20")
				}
				at := netip.AddrPortFrom
				dnated := []netnstest.Flow{
					{Protocol: "udp", Src: at(cli, 40000), Dst: at(node, 31000), ReplySrc: at(ep, 53)},
					{Protocol: "udp", Src: at(cli, 40001), Dst: at(svc, 53), ReplySrc: at(ep, 53)},
				}
				direct := []netnstest.Flow{
					{Protocol: "udp", Src: at(cli, 40002), Dst: at(ep, 31000)},
					{Protocol: "udp", Src: at(cli, 40003), Dst: at(ep, 53)},
				}
				table := ns.Table(t)
				require.NoError(t, table.Insert(append(dnated, direct...)...))
				// An entry created the way conntrack(8) creates a NATed one, with its reply
				// tuple given: its status says DNAT done but not DNAT, and conntrack(8)
				// --dst-nat still counts it as DNATed, so ctnetlink must too.
				ns.Exec(t, "conntrack", "-I", "-p", "udp", "-s", cli.String(), "-d", node.String(),
					"--sport", "40004", "--dport", "31000", "-r", ep.String(), "-q", cli.String(),
					"--reply-port-src", "53", "--reply-port-dst", "40004", "-t", "600", "--dst-nat", ep.String())
				plan := conntrackorder.Plan{
					{Protocol: conntrackorder.UDP, OrigDst: svc, DstPort: 53, ReplySrc: ep},
					{Protocol: conntrackorder.UDP, DstPort: 31000, ReplySrc: ep},
				}

				require.NoError(t, backend.new(t, ns).Flush(context.Background(), plan))

				got, err := table.List()
				require.NoError(t, err)
				assert.ElementsMatch(t, direct, got, "the direct flows must stay and the DNATed ones go")
			})
		}
	}
}

// TestKernelLostNodePortIsAnotherServicesPort deletes service A, whose NodePort 31000 is the
// service port of service B, and syncs: the filter for A's lost NodePort, {udp dport 31000},
// also selects B's healthy flow to its ClusterIP and port 31000.
//
// In reconcile mode the desired state judges B's destination, and B's flow is NATed to B's
// serving endpoint: it stays, while the flow to A's NodePort goes. In flush mode the filter is
// all a backend gets, so B's flow goes too: flushing after programming costs it one datagram
// re-NATed through B's rules, where keeping the NodePort's flows would leave A's clients on
// A's old backends.
func TestKernelLostNodePortIsAnotherServicesPort(t *testing.T) {
	netnstest.Require(t)
	modes := []struct {
		name      string
		reconcile bool
		backend   kernelBackend
	}{
		{name: "reconcile ctnetlink", reconcile: true, backend: kernelBackends[1]},
		{name: "flush ctexec", backend: kernelBackends[0]},
		{name: "flush ctnetlink", backend: kernelBackends[1]},
	}
	for _, mode := range modes {
		mode := mode
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			ns := netnstest.New(t, "lostnp")
			cli, node := mustAddr("198.18.1.2"), mustAddr("198.18.1.1")
			at := netip.AddrPortFrom
			epA, epB := at(mustAddr("198.18.2.10"), 53), at(mustAddr("198.18.2.20"), 31000)
			svcA, svcB := mustAddr("198.18.30.10"), mustAddr("198.18.30.20")
			healthyB := netnstest.Flow{Protocol: "udp", Src: at(cli, 40000), Dst: at(svcB, 31000), ReplySrc: epB}
			nodePortA := netnstest.Flow{Protocol: "udp", Src: at(cli, 40001), Dst: at(node, 31000), ReplySrc: epA}
			clusterA := netnstest.Flow{Protocol: "udp", Src: at(cli, 40002), Dst: at(svcA, 53), ReplySrc: epA}
			table := ns.Table(t)
			require.NoError(t, table.Insert(healthyB, nodePortA, clusterA))

			tracker := conntrackorder.NewTracker()
			require.NoError(t, tracker.SetService(conntrackorder.ServicePort{Name: "a", Protocol: conntrackorder.UDP,
				Port: 53, ClusterIPs: []netip.Addr{svcA}, NodePort: 31000}))
			require.NoError(t, tracker.SetEndpoints("a", []netip.AddrPort{epA}))
			require.NoError(t, tracker.SetService(conntrackorder.ServicePort{Name: "b", Protocol: conntrackorder.UDP,
				Port: 31000, ClusterIPs: []netip.Addr{svcB}}))
			require.NoError(t, tracker.SetEndpoints("b", []netip.AddrPort{epB}))
			program := func(context.Context) error { return nil } // the entries are made by hand
			var syncer *conntrackorder.Syncer
			if mode.reconcile {
				syncer = conntrackorder.NewReconcileSyncer(tracker, program, mode.backend.new(t, ns).(conntrackorder.Reconciler))
				// The first Sync of a reconcile syncer keeps every healthy flow.
				require.NoError(t, syncer.Sync(ctx))
				got, err := table.List()
				require.NoError(t, err)
				require.ElementsMatch(t, []netnstest.Flow{healthyB, nodePortA, clusterA}, got)
			} else {
				syncer = conntrackorder.NewSyncer(tracker, program, mode.backend.new(t, ns))
				require.NoError(t, syncer.Sync(ctx))
				require.NoError(t, table.Insert(healthyB, nodePortA, clusterA)) // the first flush cleared them
			}

			tracker.DeleteService("a")
			require.Contains(t, tracker.Pending(), conntrackorder.Filter{Protocol: conntrackorder.UDP, DstPort: 31000})
			require.NoError(t, syncer.Sync(ctx))

			got, err := table.List()
			require.NoError(t, err)
			if mode.reconcile {
				assert.ElementsMatch(t, []netnstest.Flow{healthyB}, got, "B's healthy flow must stay, A's flows go")
			} else {
				assert.Empty(t, got, "flush mode deletes every flow the filters select")
			}
		})
	}
}

func mustAddr(s string) netip.Addr { return netip.MustParseAddr(s) }

type kernelFlusherCase struct {
	name string
	new  func(t *testing.T, ns *netnstest.Namespace) conntrackorder.Flusher
}

func openNetlinkFlusher(t *testing.T, ns *netnstest.Namespace) *ctnetlink.Flusher {
	var f *ctnetlink.Flusher
	require.NoError(t, ns.Do(func() error {
		var err error
		f, err = ctnetlink.New()
		return err
	}))
	t.Cleanup(func() { assert.NoError(t, f.Close()) })
	return f
}

var kernelFlusherCases = []kernelFlusherCase{
	{name: "ctexec", new: func(t *testing.T, ns *netnstest.Namespace) conntrackorder.Flusher { return ns.Flusher(ctexec.New()) }},
	{name: "ctnetlink", new: func(t *testing.T, ns *netnstest.Namespace) conntrackorder.Flusher { return openNetlinkFlusher(t, ns) }},
}

// TestKernelReplySrcBackendsAgree: "ReplySrc selects only flows that were DNATed, to
// that backend ... Both backends match it so", for IPv4 and IPv6 UDP and SCTP, and a DNAT to
// the same address on another port: the same plan on the same table must leave the same
// entries with both backends, and the direct flows must stay.
func TestKernelReplySrcBackendsAgree(t *testing.T) {
	netnstest.Require(t)
	at := netip.AddrPortFrom
	cli4, node4, ep4 := addrOf("198.18.1.2"), addrOf("198.18.1.1"), addrOf("198.18.2.20")
	cli6, node6, ep6 := addrOf("2001:db8:1::2"), addrOf("2001:db8:1::1"), addrOf("2001:db8:2::20")
	dnated := []netnstest.Flow{
		{Protocol: "udp", Src: at(cli4, 40000), Dst: at(node4, 31000), ReplySrc: at(ep4, 53)},
		{Protocol: "udp", Src: at(cli6, 40000), Dst: at(node6, 31000), ReplySrc: at(ep6, 53)},
		{Protocol: "sctp", Src: at(cli4, 40001), Dst: at(node4, 31000), ReplySrc: at(ep4, 53)},
		{Protocol: "sctp", Src: at(cli6, 40002), Dst: at(node6, 31000), ReplySrc: at(ep6, 53)},
	}
	direct := []netnstest.Flow{
		{Protocol: "udp", Src: at(cli4, 40010), Dst: at(ep4, 31000)},
		{Protocol: "udp", Src: at(cli6, 40010), Dst: at(ep6, 31000)},
		{Protocol: "sctp", Src: at(cli4, 40011), Dst: at(ep4, 31000)},
		{Protocol: "sctp", Src: at(cli6, 40012), Dst: at(ep6, 31000)},
		// Another backend, or another port: not selected.
		{Protocol: "udp", Src: at(cli4, 40013), Dst: at(node4, 31000), ReplySrc: at(addrOf("198.18.2.21"), 53)},
		{Protocol: "udp", Src: at(cli4, 40014), Dst: at(node4, 31001), ReplySrc: at(ep4, 53)},
	}
	plan := conntrackorder.Plan{
		{Protocol: conntrackorder.UDP, DstPort: 31000, ReplySrc: ep4},
		{Protocol: conntrackorder.UDP, DstPort: 31000, ReplySrc: ep6},
		{Protocol: conntrackorder.SCTP, DstPort: 31000, ReplySrc: ep4},
		{Protocol: conntrackorder.SCTP, DstPort: 31000, ReplySrc: ep6},
	}
	for _, b := range kernelFlusherCases {
		b := b
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			ns := netnstest.New(t, "hreplysrc")
			table := ns.Table(t)
			require.NoError(t, table.Insert(append(append([]netnstest.Flow(nil), dnated...), direct...)...))
			require.NoError(t, b.new(t, ns).Flush(context.Background(), plan))
			requireTableHolds(t, table, direct, "the direct flows must stay and the DNATed ones go")
		})
	}
}

// TestKernelReplySrcIPv6SelectsOnlyThatBackend: "ReplySrc selects only flows that were
// DNATed, to that backend" and "Both backends match it so, ctexec through conntrack(8)
// --dst-nat". With IPv6, conntrack-tools 1.4.7's --dst-nat checks that the entry was DNATed
// but not to which address: the filter for one gone IPv6 endpoint deletes the healthy flows
// NATed to every other IPv6 endpoint of the NodePort too. ctexec's doc states that limit, and
// the test holds ctexec to it and ctnetlink to the filter's promise.
func TestKernelReplySrcIPv6SelectsOnlyThatBackend(t *testing.T) {
	netnstest.Require(t)
	at := netip.AddrPortFrom
	cli6, node6, svc6 := addrOf("2001:db8:1::2"), addrOf("2001:db8:1::1"), addrOf("2001:db8:30::10")
	gone6, other6 := addrOf("2001:db8:2::20"), addrOf("2001:db8:2::21")
	dnated := []netnstest.Flow{
		{Protocol: "udp", Src: at(cli6, 40000), Dst: at(node6, 31000), ReplySrc: at(gone6, 53)},
		{Protocol: "udp", Src: at(cli6, 40001), Dst: at(svc6, 53), ReplySrc: at(gone6, 53)},
	}
	healthy := []netnstest.Flow{
		{Protocol: "udp", Src: at(cli6, 40010), Dst: at(node6, 31000), ReplySrc: at(other6, 53)},
		{Protocol: "udp", Src: at(cli6, 40011), Dst: at(svc6, 53), ReplySrc: at(other6, 53)},
		{Protocol: "sctp", Src: at(cli6, 40012), Dst: at(node6, 31000), ReplySrc: at(other6, 53)},
	}
	plan := conntrackorder.Plan{
		{Protocol: conntrackorder.UDP, OrigDst: svc6, DstPort: 53, ReplySrc: gone6},
		{Protocol: conntrackorder.UDP, DstPort: 31000, ReplySrc: gone6},
		{Protocol: conntrackorder.SCTP, DstPort: 31000, ReplySrc: gone6},
	}
	for _, b := range kernelFlusherCases {
		b := b
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			ns := netnstest.New(t, "hreplysrc6")
			table := ns.Table(t)
			require.NoError(t, table.Insert(append(append([]netnstest.Flow(nil), dnated...), healthy...)...))
			require.NoError(t, b.new(t, ns).Flush(context.Background(), plan))
			if b.name == "ctexec" {
				// ctexec's documented limit: conntrack(8) ignores an IPv6 --dst-nat address,
				// so the DNATed flows of the other endpoint go too; the direct ones stay.
				requireTableHolds(t, table, nil, "ctexec deletes every DNATed flow the filter's other fields select")
				return
			}
			requireTableHolds(t, table, healthy, "only the flows NATed to the gone endpoint may go")
		})
	}
}

// TestKernelReplySrcHostNetworkEndpoint: a hostNetwork endpoint has the node's own
// address, so a NodePort flow to node:31000 is DNATed to node:53, the same address on another
// port. "ReplySrc selects only flows that were DNATed, to that backend ... Both backends match
// it so": when the endpoint goes, its filter {udp dport 31000 dst-nat node} must delete that
// flow with both backends. ctnetlink does; conntrack(8) --dst-nat keeps it, so with ctexec the
// client keeps sending to the gone endpoint. ctexec's doc states that limit, and the test holds
// each backend to what its doc says.
func TestKernelReplySrcHostNetworkEndpoint(t *testing.T) {
	netnstest.Require(t)
	at := netip.AddrPortFrom
	cli4, node4 := addrOf("198.18.1.2"), addrOf("198.18.1.1")
	stale := netnstest.Flow{Protocol: "udp", Src: at(cli4, 40000), Dst: at(node4, 31000), ReplySrc: at(node4, 53)}
	direct := netnstest.Flow{Protocol: "udp", Src: at(cli4, 40001), Dst: at(node4, 53)}
	plan := conntrackorder.Plan{{Protocol: conntrackorder.UDP, DstPort: 31000, ReplySrc: node4}}
	for _, b := range kernelFlusherCases {
		b := b
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			ns := netnstest.New(t, "hhostnet")
			table := ns.Table(t)
			require.NoError(t, table.Insert(stale, direct))
			require.NoError(t, b.new(t, ns).Flush(context.Background(), plan))
			if b.name == "ctexec" {
				// ctexec's documented limit: conntrack(8) does not select a flow DNATed to
				// the node's own address on another port.
				requireTableHolds(t, table, []netnstest.Flow{stale, direct}, "ctexec keeps the hostNetwork flow")
				return
			}
			requireTableHolds(t, table, []netnstest.Flow{direct}, "the flow NATed to the gone hostNetwork endpoint must go")
		})
	}
}

// TestKernelNodePortFilterDeletesBothFamilies: "the NodePort filter {Protocol: UDP,
// DstPort: 31201} selects IPv4 and IPv6 flows alike, and a backend must delete both", NATed or
// not, and nothing else.
func TestKernelNodePortFilterDeletesBothFamilies(t *testing.T) {
	netnstest.Require(t)
	at := netip.AddrPortFrom
	gone := []netnstest.Flow{
		{Protocol: "udp", Src: at(addrOf("198.18.1.2"), 40000), Dst: at(addrOf("198.18.1.1"), 31201)},
		{Protocol: "udp", Src: at(addrOf("2001:db8:1::2"), 40000), Dst: at(addrOf("2001:db8:1::1"), 31201)},
		{Protocol: "udp", Src: at(addrOf("2001:db8:1::2"), 40001), Dst: at(addrOf("2001:db8:1::1"), 31201), ReplySrc: at(addrOf("2001:db8:2::20"), 53)},
	}
	stay := []netnstest.Flow{
		{Protocol: "tcp", Src: at(addrOf("198.18.1.2"), 40002), Dst: at(addrOf("198.18.1.1"), 31201)},
		{Protocol: "sctp", Src: at(addrOf("2001:db8:1::2"), 40003), Dst: at(addrOf("2001:db8:1::1"), 31201)},
		{Protocol: "udp", Src: at(addrOf("2001:db8:1::2"), 40004), Dst: at(addrOf("2001:db8:1::1"), 31202)},
		// The client's source port is the NodePort's number: only the destination port counts.
		{Protocol: "udp", Src: at(addrOf("198.18.1.2"), 31201), Dst: at(addrOf("198.18.1.1"), 53)},
	}
	for _, b := range kernelFlusherCases {
		b := b
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			ns := netnstest.New(t, "hnp")
			table := ns.Table(t)
			require.NoError(t, table.Insert(append(append([]netnstest.Flow(nil), gone...), stay...)...))
			require.NoError(t, b.new(t, ns).Flush(context.Background(), conntrackorder.Plan{{Protocol: conntrackorder.UDP, DstPort: 31201}}))
			requireTableHolds(t, table, stay, "")
		})
	}
}

// TestKernelReconcileReadsTheFamilyThePlanNeeds: "It reads each address family's table
// once, for the plan and the desired state together, and only the families either needs".
// The desired state is IPv6 only (B), so Families reports no IPv4; the deleted service A's
// ClusterIP is IPv4: its filter needs the IPv4 table all the same. B's healthy IPv6 flow on
// A's old NodePort number stays.
func TestKernelReconcileReadsTheFamilyThePlanNeeds(t *testing.T) {
	netnstest.Require(t)
	ctx := context.Background()
	at := netip.AddrPortFrom
	ns := netnstest.New(t, "hfam")
	table := ns.Table(t)
	cli4, svcA, epA := addrOf("198.18.1.2"), addrOf("198.18.30.10"), addrOf("198.18.2.10")
	cli6, svcB, epB := addrOf("2001:db8:1::2"), addrOf("2001:db8:30::20"), addrOf("2001:db8:2::20")
	aFlow := netnstest.Flow{Protocol: "udp", Src: at(cli4, 40000), Dst: at(svcA, 53), ReplySrc: at(epA, 53)}
	bFlow := netnstest.Flow{Protocol: "udp", Src: at(cli6, 40001), Dst: at(svcB, 31000), ReplySrc: at(epB, 31000)}
	bStale := netnstest.Flow{Protocol: "udp", Src: at(cli6, 40002), Dst: at(svcB, 31000)} // [UNREPLIED]
	require.NoError(t, table.Insert(aFlow, bFlow, bStale))

	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: conntrackorder.UDP, Port: 53, ClusterIPs: []netip.Addr{svcA}}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{at(epA, 53)}))
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "b", Protocol: conntrackorder.UDP, Port: 31000, ClusterIPs: []netip.Addr{svcB}}))
	require.NoError(t, tr.SetEndpoints("b", []netip.AddrPort{at(epB, 31000)}))
	// Everything so far has been flushed by an earlier process life; start from A's deletion.
	s := conntrackorder.NewSyncer(tr, programNothing, conntrackorder.Flusher(discardFlusher{}))
	require.NoError(t, s.Sync(ctx))
	tr.DeleteService("a")
	v4, _ := tr.Desired().Families()
	require.False(t, v4, "precondition: the desired state alone needs no IPv4")

	rs := conntrackorder.NewReconcileSyncer(tr, programNothing, openNetlinkFlusher(t, ns))
	require.NoError(t, rs.Sync(ctx))
	requireTableHolds(t, table, []netnstest.Flow{bFlow}, "A's IPv4 flow and B's un-NATed flow must go, B's healthy flow stay")
}

// describeFlows renders flows for a readable comparison.
func describeFlows(flows []netnstest.Flow) []string {
	out := make([]string, 0, len(flows))
	for _, f := range flows {
		out = append(out, fmt.Sprintf("%s %v>%v reply %v", f.Protocol, f.Src, f.Dst, f.ReplySrc))
	}
	return out
}

// requireTableHolds checks, through conntrack(8), that the table holds exactly want.
func requireTableHolds(t *testing.T, table *netnstest.Table, want []netnstest.Flow, msg string) {
	t.Helper()
	got, err := table.List()
	require.NoError(t, err)
	assert.ElementsMatch(t, describeFlows(want), describeFlows(got), msg)
}

type discardFlusher struct{}

// TestKernelReconcileDeletesOnlyContradictions: a restart in reconcile mode with a
// dual-stack UDP service, an SCTP service and TCP on the same ports. "It never deletes TCP
// flows, or a UDP flow to a service IP and port NATed to one of its serving endpoints", while
// an endpoint whose port changed, an un-NATed entry and a NodePort flow to a gone endpoint go.
// SCTP is cleared by its filters, "ports included". "It must not delete any other entry."
func TestKernelReconcileDeletesOnlyContradictions(t *testing.T) {
	netnstest.Require(t)
	ctx := context.Background()
	at := netip.AddrPortFrom
	ns := netnstest.New(t, "hrestart")
	table := ns.Table(t)
	cli4, node4, svc4, ep4 := addrOf("198.18.1.2"), addrOf("198.18.1.1"), addrOf("198.18.30.10"), addrOf("198.18.2.10")
	cli6, node6, svc6, ep6 := addrOf("2001:db8:1::2"), addrOf("2001:db8:1::1"), addrOf("2001:db8:30::10"), addrOf("2001:db8:2::10")
	keep := []netnstest.Flow{
		{Protocol: "udp", Src: at(cli4, 40000), Dst: at(svc4, 53), ReplySrc: at(ep4, 5353)},
		{Protocol: "udp", Src: at(cli6, 40000), Dst: at(svc6, 53), ReplySrc: at(ep6, 5353)},
		{Protocol: "udp", Src: at(cli4, 40001), Dst: at(node4, 31000), ReplySrc: at(ep4, 5353)},
		{Protocol: "udp", Src: at(cli6, 40001), Dst: at(node6, 31000), ReplySrc: at(ep6, 5353)},
		{Protocol: "tcp", Src: at(cli4, 40002), Dst: at(svc4, 53)},
		{Protocol: "tcp", Src: at(cli4, 40003), Dst: at(svc4, 53), ReplySrc: at(addrOf("198.18.2.99"), 5353)},
		{Protocol: "sctp", Src: at(cli4, 40004), Dst: at(svc4, 54), ReplySrc: at(ep4, 5454)}, // SCTP on another port
		{Protocol: "udp", Src: at(cli4, 40005), Dst: at(addrOf("198.18.99.1"), 53)},          // not a service
		{Protocol: "udp", Src: at(cli4, 40006), Dst: at(svc4, 54)},                           // not a service port
	}
	gone := []netnstest.Flow{
		{Protocol: "udp", Src: at(cli4, 40010), Dst: at(svc4, 53), ReplySrc: at(ep4, 53)},                         // the endpoint's port changed
		{Protocol: "udp", Src: at(cli6, 40011), Dst: at(svc6, 53)},                                                // [UNREPLIED]
		{Protocol: "udp", Src: at(cli4, 40012), Dst: at(node4, 31000), ReplySrc: at(addrOf("198.18.2.99"), 5353)}, // gone endpoint
		{Protocol: "udp", Src: at(cli6, 40013), Dst: at(node6, 31000)},                                            // [UNREPLIED] on the NodePort
		{Protocol: "sctp", Src: at(cli4, 40014), Dst: at(svc4, 7777), ReplySrc: at(ep4, 7777)},                    // SCTP service's IP and port
		{Protocol: "sctp", Src: at(cli6, 40015), Dst: at(node6, 32000), ReplySrc: at(ep6, 7777)},                  // SCTP NodePort
	}
	require.NoError(t, table.Insert(append(append([]netnstest.Flow(nil), keep...), gone...)...))

	tr := conntrackorder.NewTracker() // a restart: no history
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "u", Protocol: conntrackorder.UDP, Port: 53, ClusterIPs: []netip.Addr{svc4, svc6}, NodePort: 31000}))
	require.NoError(t, tr.SetEndpoints("u", []netip.AddrPort{at(ep4, 5353), at(ep6, 5353)}))
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "t", Protocol: conntrackorder.TCP, Port: 53, ClusterIPs: []netip.Addr{svc4}}))
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "s", Protocol: conntrackorder.SCTP, Port: 7777, ClusterIPs: []netip.Addr{svc4}, NodePort: 32000}))
	require.NoError(t, tr.SetEndpoints("s", []netip.AddrPort{at(ep4, 7777)}))

	rs := conntrackorder.NewReconcileSyncer(tr, programNothing, openNetlinkFlusher(t, ns))
	require.NoError(t, rs.Sync(ctx))
	requireTableHolds(t, table, keep, "")
	assert.Nil(t, tr.Pending())
}

// TestKernelReconcileKeepsOnlyUDP: Keeps is about "a UDP flow to a service IP and port
// of the desired state". A service with a UDP and an SCTP port on the same ClusterIP, port
// and pod: when the pod stops serving SCTP, the SCTP flow NATed to it goes, and the UDP flow
// NATed to the same address and port stays.
func TestKernelReconcileKeepsOnlyUDP(t *testing.T) {
	netnstest.Require(t)
	ctx := context.Background()
	at := netip.AddrPortFrom
	ns := netnstest.New(t, "hmulti")
	table := ns.Table(t)
	cli, node, svc, ep := addrOf("198.18.1.2"), addrOf("198.18.1.1"), addrOf("198.18.30.10"), addrOf("198.18.2.10")
	udpFlow := netnstest.Flow{Protocol: "udp", Src: at(cli, 40000), Dst: at(svc, 53), ReplySrc: at(ep, 53)}
	udpNodePort := netnstest.Flow{Protocol: "udp", Src: at(cli, 40001), Dst: at(node, 31000), ReplySrc: at(ep, 53)}
	sctpFlow := netnstest.Flow{Protocol: "sctp", Src: at(cli, 40002), Dst: at(svc, 53), ReplySrc: at(ep, 53)}
	sctpNodePort := netnstest.Flow{Protocol: "sctp", Src: at(cli, 40003), Dst: at(node, 31001), ReplySrc: at(ep, 53)}

	tr := conntrackorder.NewTracker()
	ips := []netip.Addr{svc}
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "ns/a:udp", Protocol: conntrackorder.UDP, Port: 53, ClusterIPs: ips, NodePort: 31000}))
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "ns/a:sctp", Protocol: conntrackorder.SCTP, Port: 53, ClusterIPs: ips, NodePort: 31001}))
	require.NoError(t, tr.SetEndpoints("ns/a:udp", []netip.AddrPort{at(ep, 53)}))
	require.NoError(t, tr.SetEndpoints("ns/a:sctp", []netip.AddrPort{at(ep, 53)}))
	rs := conntrackorder.NewReconcileSyncer(tr, programNothing, openNetlinkFlusher(t, ns))
	require.NoError(t, rs.Sync(ctx)) // the restart's clearing, before the flows exist
	require.NoError(t, table.Insert(udpFlow, udpNodePort, sctpFlow, sctpNodePort))

	require.NoError(t, tr.SetEndpoints("ns/a:sctp", nil))
	require.NoError(t, rs.Sync(ctx))
	requireTableHolds(t, table, []netnstest.Flow{udpFlow, udpNodePort}, "")
}

// TestKernelReconcileZeroAddressFilterReadsBothFamilies: "A zero OrigDst and ReplySrc
// match entries of either address family ... and a backend must delete both", also in a
// Reconcile whose desired state is IPv4 only: a deleted SCTP service's NodePort filter
// clears its IPv6 flows.
func TestKernelReconcileZeroAddressFilterReadsBothFamilies(t *testing.T) {
	netnstest.Require(t)
	ctx := context.Background()
	at := netip.AddrPortFrom
	ns := netnstest.New(t, "hzero")
	table := ns.Table(t)
	v6flow := netnstest.Flow{Protocol: "sctp", Src: at(addrOf("2001:db8:1::2"), 40000), Dst: at(addrOf("2001:db8:1::1"), 31001), ReplySrc: at(addrOf("2001:db8:2::10"), 7777)}
	udp4 := netnstest.Flow{Protocol: "udp", Src: at(addrOf("198.18.1.2"), 40001), Dst: at(addrOf("198.18.30.10"), 53), ReplySrc: at(addrOf("198.18.2.10"), 53)}
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "u", Protocol: conntrackorder.UDP, Port: 53, ClusterIPs: []netip.Addr{addrOf("198.18.30.10")}}))
	require.NoError(t, tr.SetEndpoints("u", []netip.AddrPort{at(addrOf("198.18.2.10"), 53)}))
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "s", Protocol: conntrackorder.SCTP, Port: 7777, ClusterIPs: []netip.Addr{addrOf("2001:db8:30::10")}, NodePort: 31001}))
	rs := conntrackorder.NewReconcileSyncer(tr, programNothing, openNetlinkFlusher(t, ns))
	require.NoError(t, rs.Sync(ctx))
	require.NoError(t, table.Insert(v6flow, udp4))
	tr.DeleteService("s")
	require.Empty(t, cmp.Diff(conntrackorder.Plan{
		{Protocol: conntrackorder.SCTP, OrigDst: addrOf("2001:db8:30::10"), DstPort: 7777},
		{Protocol: conntrackorder.SCTP, DstPort: 31001},
	}, tr.Pending()))
	v4, v6 := tr.Desired().Families()
	require.True(t, v4)
	require.False(t, v6, "precondition: the desired state alone needs no IPv6")
	require.NoError(t, rs.Sync(ctx))
	requireTableHolds(t, table, []netnstest.Flow{udp4}, "the IPv6 SCTP flow to the lost NodePort must go")
}

// TestTypedNilNetlinkFlusherIsRefused: NewReconcileSyncer panics "r also when it is an interface
// holding a nil pointer", with the package's prefix.
func TestTypedNilNetlinkFlusherIsRefused(t *testing.T) {
	var nilNetlink *ctnetlink.Flusher
	for name, fn := range map[string]func(){
		"NewReconcileSyncer": func() { conntrackorder.NewReconcileSyncer(conntrackorder.NewTracker(), programNothing, nilNetlink) },
		"NewSyncer":          func() { conntrackorder.NewSyncer(conntrackorder.NewTracker(), programNothing, nilNetlink) },
	} {
		func() {
			defer func() {
				r := recover()
				require.NotNil(t, r, name)
				assert.True(t, strings.HasPrefix(fmt.Sprint(r), "conntrackorder: "), "%s panicked with %v", name, r)
			}()
			fn()
		}()
	}
}
func (discardFlusher) Flush(context.Context, conntrackorder.Plan) error { return nil }
