package conntrackorder_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/conntrackorder/conntrackordertest"
)

// The state TestDesiredContradicts judges flows against.
var (
	dnsIP4   = netip.MustParseAddr("172.30.0.10")
	dnsIP6   = netip.MustParseAddr("fd00:30::10")
	dnsExt   = netip.MustParseAddr("192.168.99.10")
	dnsLB    = netip.MustParseAddr("203.0.113.10")
	dnsEp1   = netip.MustParseAddrPort("10.180.0.7:5353")
	dnsEp2   = netip.MustParseAddrPort("10.180.0.8:5353")
	dnsEp6   = netip.MustParseAddrPort("[fd00:180::7]:5353")
	emptyIP  = netip.MustParseAddr("172.30.0.20")
	tcpIP    = netip.MustParseAddr("172.30.0.30")
	sctpIP   = netip.MustParseAddr("172.30.0.40")
	sharedIP = netip.MustParseAddr("192.168.99.50")
	sharedA  = netip.MustParseAddrPort("10.1.0.1:500")
	sharedB  = netip.MustParseAddrPort("10.2.0.1:500")
	highIP   = netip.MustParseAddr("172.30.0.60")
	highEp   = netip.MustParseAddrPort("10.3.0.1:30053")
	earlyIP  = netip.MustParseAddr("172.30.0.70")
	earlyEp  = netip.MustParseAddrPort("10.4.0.1:53")
	nodeIP4  = netip.MustParseAddr("198.18.0.1")
	nodeIP4b = netip.MustParseAddr("10.0.0.99")
	nodeIP6  = netip.MustParseAddr("fd00:18::1")
)

// desiredState is a Tracker holding:
//   - ns/dns:dns, UDP 53 on a dual-stack ClusterIP, an external IP and a load balancer IP,
//     NodePort 30053, serving on port 5353 of two IPv4 and one IPv6 endpoint;
//   - ns/empty:dns, UDP 53 with NodePort 30054 and no serving endpoints;
//   - ns/web:http (TCP) and ns/diameter:sctp (SCTP), with endpoints;
//   - ns/a:p and ns/b:p, UDP 500, both given the external IP sharedIP;
//   - ns/high:p, UDP on port 30053, which is also ns/dns's NodePort;
//   - ns/early:dns, whose endpoints were reported before the service;
//   - endpoints for ns/gone:dns, a name no service port has.
func desiredState(t *testing.T) *conntrackorder.Tracker {
	t.Helper()
	tr := conntrackorder.NewTracker()
	u := conntrackorder.UDP
	require.NoError(t, tr.SetEndpoints("ns/early:dns", []netip.AddrPort{earlyEp}))
	require.NoError(t, tr.SetEndpoints("ns/gone:dns", []netip.AddrPort{netip.MustParseAddrPort("10.9.0.1:53")}))
	for _, sp := range []conntrackorder.ServicePort{
		{Name: "ns/dns:dns", Protocol: u, Port: 53, ClusterIPs: []netip.Addr{dnsIP4, dnsIP6},
			ExternalIPs: []netip.Addr{dnsExt}, LoadBalancerIPs: []netip.Addr{dnsLB}, NodePort: 30053},
		{Name: "ns/empty:dns", Protocol: u, Port: 53, ClusterIPs: []netip.Addr{emptyIP}, NodePort: 30054},
		{Name: "ns/web:http", Protocol: conntrackorder.TCP, Port: 80, ClusterIPs: []netip.Addr{tcpIP}, NodePort: 30080},
		{Name: "ns/diameter:sctp", Protocol: conntrackorder.SCTP, Port: 3868, ClusterIPs: []netip.Addr{sctpIP}, NodePort: 30868},
		{Name: "ns/a:p", Protocol: u, Port: 500, ExternalIPs: []netip.Addr{sharedIP}},
		{Name: "ns/b:p", Protocol: u, Port: 500, ExternalIPs: []netip.Addr{sharedIP}},
		{Name: "ns/high:p", Protocol: u, Port: 30053, ClusterIPs: []netip.Addr{highIP}},
		{Name: "ns/early:dns", Protocol: u, Port: 53, ClusterIPs: []netip.Addr{earlyIP}},
	} {
		require.NoError(t, tr.SetService(sp))
	}
	require.NoError(t, tr.SetEndpoints("ns/dns:dns", []netip.AddrPort{dnsEp1, dnsEp2, dnsEp6}))
	require.NoError(t, tr.SetEndpoints("ns/web:http", []netip.AddrPort{netip.MustParseAddrPort("10.5.0.1:8080")}))
	require.NoError(t, tr.SetEndpoints("ns/diameter:sctp", []netip.AddrPort{netip.MustParseAddrPort("10.6.0.1:3868")}))
	require.NoError(t, tr.SetEndpoints("ns/a:p", []netip.AddrPort{sharedA}))
	require.NoError(t, tr.SetEndpoints("ns/b:p", []netip.AddrPort{sharedB}))
	require.NoError(t, tr.SetEndpoints("ns/high:p", []netip.AddrPort{highEp}))
	return tr
}

// udpFlow is a UDP flow to dst NATed to replySrc; pass dst again for a flow that was not NATed.
func udpFlow(dst, replySrc netip.AddrPort) conntrackorder.Flow {
	return conntrackorder.Flow{Protocol: conntrackorder.UDP, OrigDst: dst, ReplySrc: replySrc}
}

func TestDesiredContradicts(t *testing.T) {
	ap := netip.AddrPortFrom
	tests := []struct {
		name string
		give conntrackorder.Flow
		want bool
	}{
		// Healthy flows: NATed to a serving endpoint, through every kind of address.
		{name: "cluster IP to a serving endpoint", give: udpFlow(ap(dnsIP4, 53), dnsEp1)},
		{name: "cluster IP to the other serving endpoint", give: udpFlow(ap(dnsIP4, 53), dnsEp2)},
		{name: "external IP to a serving endpoint", give: udpFlow(ap(dnsExt, 53), dnsEp2)},
		{name: "load balancer IP to a serving endpoint", give: udpFlow(ap(dnsLB, 53), dnsEp1)},
		{name: "ipv6 cluster IP to the ipv6 endpoint", give: udpFlow(ap(dnsIP6, 53), dnsEp6)},
		{name: "NodePort on one node address", give: udpFlow(ap(nodeIP4, 30053), dnsEp1)},
		{name: "NodePort on another node address", give: udpFlow(ap(nodeIP4b, 30053), dnsEp2)},
		{name: "NodePort on an ipv6 node address", give: udpFlow(ap(nodeIP6, 30053), dnsEp6)},
		{name: "endpoints reported before their service count", give: udpFlow(ap(earlyIP, 53), earlyEp)},

		// Stale flows.
		{name: "NATed to an endpoint that has gone", give: udpFlow(ap(dnsIP4, 53), netip.MustParseAddrPort("10.180.0.9:5353")), want: true},
		{name: "NATed to an endpoint whose port changed", give: udpFlow(ap(dnsIP4, 53), netip.MustParseAddrPort("10.180.0.7:53")), want: true},
		{name: "NodePort NATed to an endpoint that has gone", give: udpFlow(ap(nodeIP4, 30053), netip.MustParseAddrPort("10.180.0.9:5353")), want: true},
		{name: "not NATed, to the cluster IP", give: udpFlow(ap(dnsIP4, 53), ap(dnsIP4, 53)), want: true},
		{name: "not NATed, to the ipv6 cluster IP", give: udpFlow(ap(dnsIP6, 53), ap(dnsIP6, 53)), want: true},
		{name: "not NATed, to the load balancer IP", give: udpFlow(ap(dnsLB, 53), ap(dnsLB, 53)), want: true},
		{name: "not NATed, to the NodePort", give: udpFlow(ap(nodeIP4, 30053), ap(nodeIP4, 30053)), want: true},
		{name: "not NATed, to the NodePort on ipv6", give: udpFlow(ap(nodeIP6, 30053), ap(nodeIP6, 30053)), want: true},
		{name: "ipv6 cluster IP NATed to an ipv6 endpoint that has gone", give: udpFlow(ap(dnsIP6, 53), netip.MustParseAddrPort("[fd00:180::9]:5353")), want: true},
		{name: "service without endpoints, NATed", give: udpFlow(ap(emptyIP, 53), dnsEp1), want: true},
		{name: "service without endpoints, not NATed", give: udpFlow(ap(emptyIP, 53), ap(emptyIP, 53)), want: true},
		{name: "NodePort of a service without endpoints", give: udpFlow(ap(nodeIP4, 30054), dnsEp1), want: true},

		// Two services claim one destination: either one's endpoints serve it.
		{name: "shared external IP to the first service's endpoint", give: udpFlow(ap(sharedIP, 500), sharedA)},
		{name: "shared external IP to the second service's endpoint", give: udpFlow(ap(sharedIP, 500), sharedB)},
		{name: "shared external IP, not NATed", give: udpFlow(ap(sharedIP, 500), ap(sharedIP, 500)), want: true},

		// A service IP is judged by its service, even when its port is a NodePort.
		{name: "service port equal to a NodePort, its own endpoint", give: udpFlow(ap(highIP, 30053), highEp)},
		{name: "service port equal to a NodePort, the NodePort's endpoint", give: udpFlow(ap(highIP, 30053), dnsEp1), want: true},
		{name: "NodePort, an endpoint of the service whose port it equals", give: udpFlow(ap(nodeIP4, 30053), highEp), want: true},

		// Never judged.
		{name: "tcp to a udp service", give: conntrackorder.Flow{Protocol: conntrackorder.TCP, OrigDst: ap(dnsIP4, 53), ReplySrc: ap(dnsIP4, 53)}},
		{name: "tcp service", give: conntrackorder.Flow{Protocol: conntrackorder.TCP, OrigDst: ap(tcpIP, 80), ReplySrc: ap(tcpIP, 80)}},
		{name: "tcp NodePort", give: conntrackorder.Flow{Protocol: conntrackorder.TCP, OrigDst: ap(nodeIP4, 30080), ReplySrc: ap(nodeIP4, 30080)}},
		{name: "udp to a tcp service's address", give: udpFlow(ap(tcpIP, 80), ap(tcpIP, 80))},
		{name: "udp to a tcp service's NodePort", give: udpFlow(ap(nodeIP4, 30080), ap(nodeIP4, 30080))},
		{name: "sctp service", give: conntrackorder.Flow{Protocol: conntrackorder.SCTP, OrigDst: ap(sctpIP, 3868), ReplySrc: ap(sctpIP, 3868)}},
		{name: "other port of a service IP", give: udpFlow(ap(dnsIP4, 54), ap(dnsIP4, 54))},
		{name: "unknown address", give: udpFlow(ap(netip.MustParseAddr("8.8.8.8"), 53), ap(netip.MustParseAddr("8.8.8.8"), 53))},
		{name: "endpoints of a name without service port", give: udpFlow(ap(netip.MustParseAddr("10.9.0.1"), 53), ap(netip.MustParseAddr("10.9.0.1"), 53))},
		{name: "unknown protocol", give: conntrackorder.Flow{Protocol: 9, OrigDst: ap(dnsIP4, 53), ReplySrc: ap(dnsIP4, 53)}},
		{name: "zero flow", give: conntrackorder.Flow{}},
		{name: "port without address", give: udpFlow(ap(netip.Addr{}, 30053), ap(netip.Addr{}, 30053))},
	}
	d := desiredState(t).Desired()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, d.Contradicts(tt.give))
		})
	}
}

func TestDesiredNilAndZeroContradictNothing(t *testing.T) {
	f := udpFlow(netip.MustParseAddrPort("198.18.0.1:30053"), netip.MustParseAddrPort("198.18.0.1:30053"))
	var nilDesired *conntrackorder.Desired
	assert.False(t, nilDesired.Contradicts(f))
	assert.False(t, new(conntrackorder.Desired).Contradicts(f))
	assert.False(t, conntrackorder.NewTracker().Desired().Contradicts(f))
}

// TestDesiredKeepsAnotherServicesFlow: service a has NodePort 31000, service b has port
// 31000. Once a is deleted, the filter for its lost NodePort, {udp dport 31000}, selects b's
// healthy flow too; the desired state keeps that flow, and only flows like it.
func TestDesiredKeepsAnotherServicesFlow(t *testing.T) {
	svcA, svcB := netip.MustParseAddr("198.18.30.10"), netip.MustParseAddr("198.18.30.20")
	epA, epB := netip.MustParseAddrPort("198.18.2.10:53"), netip.MustParseAddrPort("198.18.2.20:31000")
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: conntrackorder.UDP, Port: 53,
		ClusterIPs: []netip.Addr{svcA}, NodePort: 31000}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{epA}))
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "b", Protocol: conntrackorder.UDP, Port: 31000,
		ClusterIPs: []netip.Addr{svcB}}))
	require.NoError(t, tr.SetEndpoints("b", []netip.AddrPort{epB}))
	tr.DeleteService("a")
	d := tr.Desired()

	tests := []struct {
		name                string
		give                conntrackorder.Flow
		wantKeeps, wantCont bool
	}{
		{name: "b's flow NATed to b's endpoint", give: udpFlow(netip.AddrPortFrom(svcB, 31000), epB), wantKeeps: true},
		{name: "b's flow NATed to a's old endpoint", give: udpFlow(netip.AddrPortFrom(svcB, 31000), epA), wantCont: true},
		{name: "b's flow not NATed", give: udpFlow(netip.AddrPortFrom(svcB, 31000), netip.AddrPortFrom(svcB, 31000)), wantCont: true},
		{name: "a's NodePort flow, left to the filter", give: udpFlow(netip.AddrPortFrom(nodeIP4, 31000), epA)},
		{name: "a NodePort-numbered flow to b's endpoint on a node address", give: udpFlow(netip.AddrPortFrom(nodeIP4, 31000), epB)},
		{name: "a's ClusterIP flow, left to the filter", give: udpFlow(netip.AddrPortFrom(svcA, 53), epA)},
		{name: "tcp is never kept", give: conntrackorder.Flow{Protocol: conntrackorder.TCP, OrigDst: netip.AddrPortFrom(svcB, 31000), ReplySrc: epB}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.wantKeeps, d.Keeps(tt.give), "Keeps")
			assert.Equal(t, tt.wantCont, d.Contradicts(tt.give), "Contradicts")
		})
	}
	assert.False(t, (*conntrackorder.Desired)(nil).Keeps(udpFlow(netip.AddrPortFrom(svcB, 31000), epB)))
	assert.Contains(t, tr.Pending(), conntrackorder.Filter{Protocol: conntrackorder.UDP, DstPort: 31000},
		"a's lost NodePort is still flushed, in flush mode as in reconcile mode")
}

func TestDesiredFamilies(t *testing.T) {
	u := conntrackorder.UDP
	tests := []struct {
		name         string
		give         []conntrackorder.ServicePort
		want4, want6 bool
	}{
		{name: "no service"},
		{name: "tcp and sctp only", give: []conntrackorder.ServicePort{
			{Name: "t", Protocol: conntrackorder.TCP, Port: 80, ClusterIPs: []netip.Addr{dnsIP4}, NodePort: 30080},
			{Name: "s", Protocol: conntrackorder.SCTP, Port: 80, ClusterIPs: []netip.Addr{dnsIP6}, NodePort: 30081},
		}},
		{name: "udp without address or NodePort", give: []conntrackorder.ServicePort{{Name: "u", Protocol: u, Port: 53}}},
		{name: "ipv4 cluster IP", give: []conntrackorder.ServicePort{{Name: "u", Protocol: u, Port: 53, ClusterIPs: []netip.Addr{dnsIP4}}}, want4: true},
		{name: "ipv6 external IP", give: []conntrackorder.ServicePort{{Name: "u", Protocol: u, Port: 53, ExternalIPs: []netip.Addr{dnsIP6}}}, want6: true},
		{name: "NodePort is both", give: []conntrackorder.ServicePort{{Name: "u", Protocol: u, Port: 53, ClusterIPs: []netip.Addr{dnsIP4}, NodePort: 30053}}, want4: true, want6: true},
		{name: "dual-stack", give: []conntrackorder.ServicePort{{Name: "u", Protocol: u, Port: 53, ClusterIPs: []netip.Addr{dnsIP6, dnsIP4}}}, want4: true, want6: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := conntrackorder.NewTracker()
			for _, sp := range tt.give {
				require.NoError(t, tr.SetService(sp))
			}
			v4, v6 := tr.Desired().Families()
			assert.Equal(t, tt.want4, v4, "ipv4")
			assert.Equal(t, tt.want6, v6, "ipv6")
		})
	}
	var nilDesired *conntrackorder.Desired
	v4, v6 := nilDesired.Families()
	assert.False(t, v4 || v6, "nil")
}

// A NodePort is open only on the node's families: on a single-stack node a flow of the other
// family is never judged by its NodePort, and the NodePort makes only the node's family worth
// reading. Service IPs count for their family on any node.
func TestSetNodeFamiliesJudgesNodePortsOfTheNodesFamilies(t *testing.T) {
	u := conntrackorder.UDP
	ep4, ep6 := netip.MustParseAddrPort("10.180.0.7:53"), netip.MustParseAddrPort("[fd00:180::7]:53")
	stale4 := udpFlow(netip.AddrPortFrom(nodeIP4, 30053), netip.MustParseAddrPort("10.180.0.99:53"))
	stale6 := udpFlow(netip.AddrPortFrom(nodeIP6, 30053), netip.MustParseAddrPort("[fd00:180::99]:53"))
	staleSvc6 := udpFlow(netip.AddrPortFrom(dnsIP6, 53), netip.MustParseAddrPort("[fd00:180::99]:53"))
	tests := []struct {
		name         string
		ipv4, ipv6   bool
		svc6         bool // the service has an IPv6 ClusterIP too
		only6        bool // the service has only an IPv6 ClusterIP
		want4, want6 bool // Families
		cont4, cont6 bool // Contradicts the stale NodePort flows
		contSvc6     bool // Contradicts the stale flow to the IPv6 ClusterIP
		node4, node6 bool // NodeFamilies
	}{
		{name: "ipv4", ipv4: true, want4: true, cont4: true, node4: true},
		{name: "ipv6", ipv6: true, only6: true, want6: true, cont6: true, contSvc6: true, node6: true},
		{name: "ipv6 node, ipv4 service IP", ipv6: true, want4: true, want6: true, cont6: true, node6: true},
		{name: "dual", ipv4: true, ipv6: true, want4: true, want6: true, cont4: true, cont6: true, node4: true, node6: true},
		{name: "ipv4 node, dual-stack service", ipv4: true, svc6: true, want4: true, want6: true, cont4: true, contSvc6: true, node4: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := conntrackorder.NewTracker()
			require.NoError(t, tr.SetNodeFamilies(tt.ipv4, tt.ipv6))
			ips := []netip.Addr{dnsIP4}
			if tt.svc6 {
				ips = append(ips, dnsIP6)
			}
			if tt.only6 {
				ips = []netip.Addr{dnsIP6}
			}
			require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "ns/dns:dns", Protocol: u, Port: 53, ClusterIPs: ips, NodePort: 30053}))
			require.NoError(t, tr.SetEndpoints("ns/dns:dns", []netip.AddrPort{ep4, ep6}))
			d := tr.Desired()
			v4, v6 := d.Families()
			assert.Equal(t, [2]bool{tt.want4, tt.want6}, [2]bool{v4, v6}, "Families")
			n4, n6 := d.NodeFamilies()
			assert.Equal(t, [2]bool{tt.node4, tt.node6}, [2]bool{n4, n6}, "NodeFamilies")
			assert.Equal(t, tt.cont4, d.Contradicts(stale4), "stale IPv4 NodePort flow")
			assert.Equal(t, tt.cont6, d.Contradicts(stale6), "stale IPv6 NodePort flow")
			assert.Equal(t, tt.contSvc6, d.Contradicts(staleSvc6), "stale flow to the IPv6 ClusterIP")
			assert.False(t, d.Contradicts(udpFlow(netip.AddrPortFrom(nodeIP4, 30053), ep4)), "healthy IPv4 NodePort flow")
		})
	}
}

// SetNodeFamilies refuses a node without families and changes nothing; a change of families
// makes a new snapshot, and setting the families the Tracker has keeps the old one. A Tracker
// told nothing, a zero Desired and a nil one are dual-stack.
func TestSetNodeFamiliesRefusesNoFamily(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "ns/dns:dns", Protocol: conntrackorder.UDP, Port: 53,
		ClusterIPs: []netip.Addr{dnsIP4}, NodePort: 30053}))
	dual := tr.Desired()
	n4, n6 := dual.NodeFamilies()
	assert.True(t, n4 && n6, "told nothing: dual-stack")

	assert.EqualError(t, tr.SetNodeFamilies(false, false), "conntrackorder: node families: a node has IPv4, IPv6 or both")
	assert.Same(t, dual, tr.Desired(), "a refused call changes nothing")

	require.NoError(t, tr.SetNodeFamilies(true, true))
	assert.Same(t, dual, tr.Desired(), "the families it had: the same snapshot")

	require.NoError(t, tr.SetNodeFamilies(true, false))
	v4 := tr.Desired()
	assert.NotSame(t, dual, v4)
	_, v6 := v4.Families()
	assert.False(t, v6, "an IPv4 node with an IPv4 service reads no IPv6 table")
	_, v6 = dual.Families()
	assert.True(t, v6, "the old snapshot changed")
	assert.Empty(t, tr.Pending(), "families collect no filter")

	for _, d := range []*conntrackorder.Desired{nil, new(conntrackorder.Desired)} {
		n4, n6 := d.NodeFamilies()
		assert.True(t, n4 && n6, "nil or zero Desired: dual-stack")
	}
}

// TestDesiredIsASnapshot: a Desired never changes, reflects every change before it was made,
// and is made again only after a change.
func TestDesiredIsASnapshot(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(staleUDPService()))
	require.NoError(t, tr.SetEndpoints(svcName, []netip.AddrPort{epA}))
	toA := udpFlow(netip.AddrPortFrom(svcIP, svcPort), epA)
	toB := udpFlow(netip.AddrPortFrom(svcIP, svcPort), epB)

	before := tr.Desired()
	assert.Same(t, before, tr.Desired(), "no change: the same snapshot")
	assert.False(t, before.Contradicts(toA))
	assert.True(t, before.Contradicts(toB))

	require.NoError(t, tr.SetEndpoints(svcName, []netip.AddrPort{epB}))
	after := tr.Desired()
	assert.NotSame(t, before, after)
	assert.True(t, after.Contradicts(toA))
	assert.False(t, after.Contradicts(toB))
	assert.False(t, before.Contradicts(toA), "the old snapshot changed")
	assert.True(t, before.Contradicts(toB), "the old snapshot changed")

	tr.DeleteService(svcName)
	assert.False(t, tr.Desired().Contradicts(toA), "a deleted service is not in the desired state")
	assert.False(t, after.Contradicts(toB), "the old snapshot changed")
}

// TestDesiredConcurrentUse reads snapshots while another goroutine updates the Tracker; run
// with -race.
func TestDesiredConcurrentUse(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(staleUDPService()))
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := 0; i < 200; i++ {
			eps := []netip.AddrPort{epA}
			if i%2 == 1 {
				eps = []netip.AddrPort{epB}
			}
			assert.NoError(t, tr.SetEndpoints(svcName, eps))
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; i < 200; i++ {
			d := tr.Desired()
			a := d.Contradicts(udpFlow(netip.AddrPortFrom(svcIP, svcPort), epA))
			b := d.Contradicts(udpFlow(netip.AddrPortFrom(svcIP, svcPort), epB))
			// Before the first SetEndpoints the service has none, and both contradict.
			assert.True(t, a || b, "a snapshot holds one of the states set")
		}
	}()
	wg.Wait()
}

// reconcileHarness is a reconcile-mode Syncer over a Tracker, with a recording Reconciler.
type reconcileHarness struct {
	tracker    *conntrackorder.Tracker
	syncer     *conntrackorder.Syncer
	rec        *conntrackordertest.Flusher
	programErr error
	programs   int
}

func newReconcileHarness() *reconcileHarness {
	h := &reconcileHarness{tracker: conntrackorder.NewTracker(), rec: conntrackordertest.New()}
	h.syncer = conntrackorder.NewReconcileSyncer(h.tracker, func(context.Context) error {
		h.programs++
		err := h.programErr
		h.programErr = nil
		return err
	}, h.rec)
	return h
}

// TestReconcileSyncerPrunesCoveredFilters checks which of the Tracker's filters a
// reconcile-mode Sync hands the Reconciler: only those for what the desired state cannot see.
func TestReconcileSyncerPrunesCoveredFilters(t *testing.T) {
	udp := staleUDPService()
	noExternal := udp
	noExternal.ExternalIPs = nil
	movedNodePort := udp
	movedNodePort.NodePort = 31202
	movedPort := udp
	movedPort.Port = 8080
	sctp := udp
	sctp.Name = "ns1/sctp:p"
	sctp.Protocol = conntrackorder.SCTP
	tcp := udp
	tcp.Name = "ns1/tcp:p"
	tcp.Protocol = conntrackorder.TCP
	reuser := conntrackorder.ServicePort{Name: "ns2/reuser:p", Protocol: conntrackorder.UDP, Port: svcPort,
		ClusterIPs: []netip.Addr{svcIP}}

	type step func(tr *conntrackorder.Tracker) error
	setSvc := func(sp conntrackorder.ServicePort) step {
		return func(tr *conntrackorder.Tracker) error { return tr.SetService(sp) }
	}
	setEps := func(name string, eps ...netip.AddrPort) step {
		return func(tr *conntrackorder.Tracker) error { return tr.SetEndpoints(name, eps) }
	}
	del := func(name string) step {
		return func(tr *conntrackorder.Tracker) error { tr.DeleteService(name); return nil }
	}

	tests := []struct {
		name      string
		before    []step // applied and synced first
		give      []step
		want      conntrackorder.Plan
		wantCalls int // Reconcile calls of the Sync after give
	}{
		{
			// kubernetes#122740: event mode would flush fSvcIP, fExtIP, fLBIP, fNodePort.
			name:      "fresh process: every service from none to some, nothing flushed",
			give:      []step{setSvc(udp), setEps(svcName, epA)},
			wantCalls: 1,
		},
		{
			name:      "endpoint gone: the desired state covers it",
			before:    []step{setSvc(udp), setEps(svcName, epA, epB)},
			give:      []step{setEps(svcName, epA)},
			wantCalls: 1,
		},
		{
			name:      "last endpoint gone: covered too",
			before:    []step{setSvc(udp), setEps(svcName, epA)},
			give:      []step{setEps(svcName)},
			wantCalls: 1,
		},
		{
			name:      "deleted service: every address and the NodePort flushed",
			before:    []step{setSvc(udp), setEps(svcName, epA)},
			give:      []step{del(svcName)},
			want:      conntrackorder.Plan{fSvcIP, fExtIP, fLBIP, fNodePort},
			wantCalls: 1,
		},
		{
			name:      "lost external IP",
			before:    []step{setSvc(udp), setEps(svcName, epA)},
			give:      []step{setSvc(noExternal)},
			want:      conntrackorder.Plan{fExtIP},
			wantCalls: 1,
		},
		{
			name:      "moved NodePort: the old one flushed, the new one covered",
			before:    []step{setSvc(udp), setEps(svcName, epA)},
			give:      []step{setSvc(movedNodePort)},
			want:      conntrackorder.Plan{fNodePort},
			wantCalls: 1,
		},
		{
			name:   "moved service port: the old address and port pairs flushed",
			before: []step{setSvc(udp), setEps(svcName, epA)},
			give:   []step{setSvc(movedPort)},
			want: conntrackorder.Plan{
				{Protocol: conntrackorder.UDP, OrigDst: svcIP, DstPort: svcPort},
				{Protocol: conntrackorder.UDP, OrigDst: extIP, DstPort: svcPort},
				{Protocol: conntrackorder.UDP, OrigDst: lbIP, DstPort: svcPort},
			},
			wantCalls: 1,
		},
		{
			name:      "deleted service whose address another service has now",
			before:    []step{setSvc(udp), setEps(svcName, epA)},
			give:      []step{del(svcName), setSvc(reuser), setEps(reuser.Name, epB)},
			want:      conntrackorder.Plan{fExtIP, fLBIP, fNodePort},
			wantCalls: 1,
		},
		{
			name: "sctp filters are kept",
			give: []step{setSvc(sctp), setEps(sctp.Name, epA)},
			want: conntrackorder.Plan{
				{Protocol: conntrackorder.SCTP, OrigDst: svcIP, DstPort: svcPort},
				{Protocol: conntrackorder.SCTP, OrigDst: extIP, DstPort: svcPort},
				{Protocol: conntrackorder.SCTP, OrigDst: lbIP, DstPort: svcPort},
				{Protocol: conntrackorder.SCTP, DstPort: nodePort},
			},
			wantCalls: 1,
		},
		{
			name: "tcp only: nothing to reconcile, no call",
			give: []step{setSvc(tcp), setEps(tcp.Name, epA)},
		},
		{
			name: "no service: no call",
			give: []step{setEps(svcName, epA)},
		},
		{
			name:      "unchanged state: a call every Sync",
			before:    []step{setSvc(udp), setEps(svcName, epA)},
			wantCalls: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newReconcileHarness()
			ctx := context.Background()
			for _, s := range tt.before {
				require.NoError(t, s(h.tracker))
			}
			require.NoError(t, h.syncer.Sync(ctx))
			h.rec.Reset()
			for _, s := range tt.give {
				require.NoError(t, s(h.tracker))
			}
			desired := h.tracker.Desired()

			require.NoError(t, h.syncer.Sync(ctx))

			calls := h.rec.Calls()
			require.Len(t, calls, tt.wantCalls)
			if tt.wantCalls > 0 {
				if diff := cmp.Diff(tt.want, calls[0].Plan); diff != "" {
					t.Errorf("plan (-want +got):\n%s", diff)
				}
				assert.Same(t, desired, calls[0].Desired, "the desired state of the moment of the Sync")
			}
			assert.Empty(t, h.tracker.Pending(), "covered and flushed filters are done")
		})
	}
}

// TestReconcileSyncerFailureLosesNothing: a failed program or reconcile keeps every filter
// pending, also those the desired state covered, and the next Sync hands over the remaining
// ones again.
func TestReconcileSyncerFailureLosesNothing(t *testing.T) {
	h := newReconcileHarness()
	ctx := context.Background()
	require.NoError(t, h.tracker.SetService(staleUDPService()))
	require.NoError(t, h.tracker.SetEndpoints(svcName, []netip.AddrPort{epA}))
	require.NoError(t, h.syncer.Sync(ctx))
	h.tracker.DeleteService(svcName)
	require.NoError(t, h.tracker.SetService(conntrackorder.ServicePort{Name: "ns2/other:p", Protocol: conntrackorder.UDP,
		Port: 53, ClusterIPs: []netip.Addr{dnsIP4}}))
	require.NoError(t, h.tracker.SetEndpoints("ns2/other:p", []netip.AddrPort{dnsEp1}))
	pending := h.tracker.Pending()
	require.NotEmpty(t, pending)
	h.rec.Reset()

	errRestore := errors.New("iptables-restore: line 7 failed")
	h.programErr = errRestore
	err := h.syncer.Sync(ctx)
	require.ErrorIs(t, err, errRestore)
	assert.Empty(t, h.rec.Calls(), "no reconcile without rules")
	assert.Equal(t, pending, h.tracker.Pending())

	errNetlink := errors.New("ctnetlink: reconcile ipv4 table: no buffer space available")
	h.rec.FailNext(1, errNetlink)
	err = h.syncer.Sync(ctx)
	require.ErrorIs(t, err, errNetlink)
	assert.EqualError(t, err, "conntrackorder: reconcile: ctnetlink: reconcile ipv4 table: no buffer space available")
	assert.Equal(t, pending, h.tracker.Pending(), "a failed reconcile keeps everything, the covered filters too")

	require.NoError(t, h.syncer.Sync(ctx))
	assert.Empty(t, h.tracker.Pending())
	calls := h.rec.Calls()
	require.Len(t, calls, 2)
	assert.Equal(t, calls[0].Plan, calls[1].Plan, "the retry hands over the same filters")
	assert.Equal(t, conntrackorder.Plan{fSvcIP, fExtIP, fLBIP, fNodePort}, calls[1].Plan)
	assert.Equal(t, 4, h.programs, "programmed before every attempt")
}

// TestReconcileSyncerUpdatesDuringSyncGoToTheNext: a change during a Sync is neither in its
// plan nor in its desired state; the next Sync has both.
func TestReconcileSyncerUpdatesDuringSyncGoToTheNext(t *testing.T) {
	tr := conntrackorder.NewTracker()
	rec := conntrackordertest.New()
	ctx := context.Background()
	require.NoError(t, tr.SetService(staleUDPService()))
	require.NoError(t, tr.SetEndpoints(svcName, []netip.AddrPort{epA}))
	first := true
	s := conntrackorder.NewReconcileSyncer(tr, func(context.Context) error {
		if first {
			first = false
			tr.DeleteService(svcName) // reported after the snapshot
		}
		return nil
	}, rec)

	require.NoError(t, s.Sync(ctx))
	require.NoError(t, s.Sync(ctx))

	calls := rec.Calls()
	require.Len(t, calls, 2)
	toA := udpFlow(netip.AddrPortFrom(svcIP, svcPort), epA)
	stale := udpFlow(netip.AddrPortFrom(svcIP, svcPort), netip.AddrPortFrom(svcIP, svcPort))
	assert.Empty(t, calls[0].Plan)
	assert.True(t, calls[0].Desired.Contradicts(stale), "the first Sync reconciles the state of its snapshot")
	assert.False(t, calls[0].Desired.Contradicts(toA))
	assert.Equal(t, conntrackorder.Plan{fSvcIP, fExtIP, fLBIP, fNodePort}, calls[1].Plan, "the deletion's filters, next time")
	assert.False(t, calls[1].Desired.Contradicts(stale), "the service is gone from the second desired state")
	assert.Empty(t, tr.Pending())
}

func TestReconcileSyncerCallsAreSerialized(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(staleUDPService()))
	var mu sync.Mutex
	running, overlaps := 0, 0
	rec := conntrackordertest.New()
	s := conntrackorder.NewReconcileSyncer(tr, func(context.Context) error {
		mu.Lock()
		running++
		if running > 1 {
			overlaps++
		}
		mu.Unlock()
		_ = tr.Desired()
		mu.Lock()
		running--
		mu.Unlock()
		return nil
	}, rec)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				assert.NoError(t, tr.SetEndpoints(svcName, []netip.AddrPort{netip.AddrPortFrom(epA.Addr(), uint16(1000+i))}))
				assert.NoError(t, s.Sync(context.Background()))
			}
		}(i)
	}
	wg.Wait()
	assert.Zero(t, overlaps)
	assert.Len(t, rec.Calls(), 160)
}

func TestNewReconcileSyncerPanicsOnNil(t *testing.T) {
	tr := conntrackorder.NewTracker()
	program := func(context.Context) error { return nil }
	r := conntrackordertest.New()
	const msg = "conntrackorder: NewReconcileSyncer needs a tracker, a program function and a reconciler"
	assert.PanicsWithValue(t, msg, func() { conntrackorder.NewReconcileSyncer(nil, program, r) })
	assert.PanicsWithValue(t, msg, func() { conntrackorder.NewReconcileSyncer(tr, nil, r) })
	assert.PanicsWithValue(t, msg, func() { conntrackorder.NewReconcileSyncer(tr, program, nil) })
}

// BenchmarkDesired measures building the desired state of many UDP services with two
// endpoints each (the first 2,000 with a NodePort, as the NodePort range allows) after one
// endpoint change, and judging one flow against it.
func BenchmarkDesired(b *testing.B) {
	for _, services := range []int{100, 10000} {
		tr := conntrackorder.NewTracker()
		for i := 0; i < services; i++ {
			name := fmt.Sprintf("ns/svc%d:dns", i)
			var np uint16
			if i < 2000 {
				np = uint16(30000 + i)
			}
			if err := tr.SetService(conntrackorder.ServicePort{
				Name:       name,
				Protocol:   conntrackorder.UDP,
				Port:       53,
				ClusterIPs: []netip.Addr{netip.AddrFrom4([4]byte{172, 30, byte(i >> 8), byte(i)})},
				NodePort:   np,
			}); err != nil {
				b.Fatal(err)
			}
			eps := []netip.AddrPort{
				netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 180, byte(i >> 8), byte(i)}), 53),
				netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 181, byte(i >> 8), byte(i)}), 53),
			}
			if err := tr.SetEndpoints(name, eps); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(fmt.Sprintf("build/services=%d", services), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				tr.DeleteService("absent") // no change
				if err := tr.SetEndpoints("ns/svc7:dns", []netip.AddrPort{netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 182, 0, byte(i)}), 53)}); err != nil {
					b.Fatal(err)
				}
				_ = tr.Desired()
			}
		})
		b.Run(fmt.Sprintf("contradicts/services=%d", services), func(b *testing.B) {
			d := tr.Desired()
			healthy := udpFlow(netip.MustParseAddrPort("172.30.0.9:53"), netip.MustParseAddrPort("10.180.0.9:53"))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if d.Contradicts(healthy) {
					b.Fatal("a healthy flow contradicts")
				}
			}
		})
	}
}

// TestLostNodePortIsAnotherServicesPortAndExternalIP: service A's lost NodePort is service B's
// port, reached through B's ExternalIP and LoadBalancerIP as well as its ClusterIP: "It never
// deletes ... a UDP flow to a
// service IP and port NATed to one of its serving endpoints, even when a filter selects it".
func TestLostNodePortIsAnotherServicesPortAndExternalIP(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{
		Name: "a", Protocol: protoUDP, Port: 53, ClusterIPs: []netip.Addr{addrOf("198.18.30.10")}, NodePort: 31000,
	}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{addrPortOf("198.18.2.10:53")}))
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{
		Name: "b", Protocol: protoUDP, Port: 31000,
		ClusterIPs:      []netip.Addr{addrOf("198.18.30.20"), addrOf("2001:db8:30::20")},
		ExternalIPs:     []netip.Addr{addrOf("198.18.40.20")},
		LoadBalancerIPs: []netip.Addr{addrOf("198.18.50.20")},
	}))
	require.NoError(t, tr.SetEndpoints("b", []netip.AddrPort{addrPortOf("198.18.2.20:31000"), addrPortOf("[2001:db8:2::20]:31000")}))
	rec := conntrackordertest.New()
	s := conntrackorder.NewReconcileSyncer(tr, programNothing, rec)
	require.NoError(t, s.Sync(context.Background()))

	tr.DeleteService("a")
	require.NoError(t, s.Sync(context.Background()))
	calls := rec.Calls()
	require.Len(t, calls, 2)
	last := calls[1]
	assert.Contains(t, last.Plan, conntrackorder.Filter{Protocol: protoUDP, DstPort: 31000}, "A's lost NodePort must be cleared")
	for _, f := range []conntrackorder.Flow{
		udpFlowTo("198.18.30.20:31000", "198.18.2.20:31000"),
		udpFlowTo("198.18.40.20:31000", "198.18.2.20:31000"),
		udpFlowTo("198.18.50.20:31000", "198.18.2.20:31000"),
		udpFlowTo("[2001:db8:30::20]:31000", "[2001:db8:2::20]:31000"),
	} {
		assert.True(t, last.Desired.Keeps(f), "B's healthy flow %v must be kept", f)
		assert.False(t, last.Desired.Contradicts(f), "B's healthy flow %v must not contradict", f)
	}
	// A's own old flow to the node's address on 31000 is not kept.
	assert.False(t, last.Desired.Keeps(udpFlowTo("198.18.1.1:31000", "198.18.2.10:53")))
}

// TestServiceIPJudgedByItsServicePortAlone: "A destination that is a service IP and port
// is judged by that service port alone, even if the port is also a NodePort".
func TestServiceIPJudgedByItsServicePortAlone(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: protoUDP, Port: 31000, ClusterIPs: []netip.Addr{addrOf("198.18.30.10")}}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{addrPortOf("198.18.2.10:31000")}))
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "b", Protocol: protoUDP, Port: 80, ClusterIPs: []netip.Addr{addrOf("198.18.30.20")}, NodePort: 31000}))
	require.NoError(t, tr.SetEndpoints("b", []netip.AddrPort{addrPortOf("198.18.2.20:80")}))
	d := tr.Desired()
	tests := []struct {
		give        conntrackorder.Flow
		contradicts bool
		keeps       bool
	}{
		{give: udpFlowTo("198.18.30.10:31000", "198.18.2.10:31000"), keeps: true},
		{give: udpFlowTo("198.18.30.10:31000", "198.18.2.20:80"), contradicts: true},
		{give: udpFlowTo("198.18.1.1:31000", "198.18.2.20:80")},
		{give: udpFlowTo("198.18.1.1:31000", "198.18.2.10:31000"), contradicts: true},
		{give: udpFlowTo("[2001:db8:1::1]:31000", "[2001:db8:1::1]:31000"), contradicts: true}, // un-NATed v6 to the NodePort
		{give: udpFlowTo("198.18.30.10:31000", "198.18.30.10:31000"), contradicts: true},       // [UNREPLIED]
		{give: conntrackorder.Flow{Protocol: conntrackorder.TCP, OrigDst: addrPortOf("198.18.30.10:31000"), ReplySrc: addrPortOf("198.18.30.10:31000")}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.contradicts, d.Contradicts(tt.give), "Contradicts(%v)", tt.give)
		assert.Equal(t, tt.keeps, d.Keeps(tt.give), "Keeps(%v)", tt.give)
	}
}

// TestZeroTrackerAndNilDesiredContradictNothing: "The zero value is an empty Tracker, ready to use" and
// "The zero value and a nil *Desired hold no service and contradict nothing."
func TestZeroTrackerAndNilDesiredContradictNothing(t *testing.T) {
	var tr conntrackorder.Tracker
	assert.Nil(t, tr.Pending())
	d := tr.Desired()
	f := udpFlowTo("198.18.30.10:53", "198.18.30.10:53")
	assert.False(t, d.Contradicts(f))
	var nilD *conntrackorder.Desired
	assert.False(t, nilD.Contradicts(f))
	assert.False(t, nilD.Keeps(f))
	var zeroD conntrackorder.Desired
	assert.False(t, zeroD.Contradicts(f))
	v4, v6 := nilD.Families()
	assert.False(t, v4 || v6)
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: protoUDP, Port: 53, ClusterIPs: []netip.Addr{addrOf("2001:db8:30::10")}, NodePort: 31000}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{addrPortOf("[2001:db8:2::10]:53")}))
	v4, v6 = tr.Desired().Families()
	assert.True(t, v4 && v6, "a NodePort counts for both families")
	assert.NotEmpty(t, tr.Pending())
}

// TestSharedExternalIPServesEither: "When two service ports claim the same destination, for
// example one external IP given to two services, a flow to it contradicts only if it serves
// neither", also when one of them has no endpoints, and Keeps agrees.
func TestSharedExternalIPServesEither(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: protoUDP, Port: 53, ExternalIPs: []netip.Addr{addrOf("198.18.40.1")}}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{addrPortOf("198.18.2.10:53")}))
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "b", Protocol: protoUDP, Port: 53, ExternalIPs: []netip.Addr{addrOf("198.18.40.1")}}))
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "c", Protocol: protoUDP, Port: 53, LoadBalancerIPs: []netip.Addr{addrOf("198.18.40.1")}}))
	require.NoError(t, tr.SetEndpoints("c", []netip.AddrPort{addrPortOf("198.18.2.30:53")}))
	d := tr.Desired()
	for _, ep := range []string{"198.18.2.10:53", "198.18.2.30:53"} {
		f := udpFlowTo("198.18.40.1:53", ep)
		assert.False(t, d.Contradicts(f), "%v", f)
		assert.True(t, d.Keeps(f), "%v", f)
	}
	assert.True(t, d.Contradicts(udpFlowTo("198.18.40.1:53", "198.18.2.99:53")))
	assert.True(t, d.Contradicts(udpFlowTo("198.18.40.1:53", "198.18.40.1:53")))

	// A's deletion collects {198.18.40.1, 53}; the destination is still b's and c's, so
	// reconcile mode judges it by the desired state: c's flow stays, a's goes.
	rec := conntrackordertest.New()
	s := conntrackorder.NewReconcileSyncer(tr, programNothing, rec)
	require.NoError(t, s.Sync(context.Background()))
	tr.DeleteService("a")
	require.NoError(t, s.Sync(context.Background()))
	last := rec.Calls()[len(rec.Calls())-1]
	assert.True(t, last.Desired.Contradicts(udpFlowTo("198.18.40.1:53", "198.18.2.10:53")))
	assert.True(t, last.Desired.Keeps(udpFlowTo("198.18.40.1:53", "198.18.2.30:53")))
}

// TestDesiredAllocatesNothing: "Contradicts costs at most three map lookups and
// allocates nothing", "Keeps ... allocates nothing".
func TestDesiredAllocatesNothing(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: protoUDP, Port: 53, ClusterIPs: []netip.Addr{addrOf("198.18.30.10"), addrOf("2001:db8:30::10")}, NodePort: 31000}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{addrPortOf("198.18.2.10:53"), addrPortOf("[2001:db8:2::10]:53")}))
	d := tr.Desired()
	flows := []conntrackorder.Flow{
		udpFlowTo("198.18.30.10:53", "198.18.2.10:53"),
		udpFlowTo("[2001:db8:30::10]:53", "[2001:db8:30::10]:53"),
		udpFlowTo("198.18.1.1:31000", "198.18.2.99:53"),
		udpFlowTo("198.18.99.1:9", "198.18.99.1:9"),
	}
	var sink bool
	allocs := testing.AllocsPerRun(100, func() {
		for _, f := range flows {
			sink = sink != d.Contradicts(f)
			sink = sink != d.Keeps(f)
		}
	})
	assert.Zero(t, allocs)
}
