package conntrackorder_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/conntrackorder/conntrackordertest"
)

// The addresses of kube-proxy's TestProxierDeleteNodePortStaleUDP.
var (
	svcIP  = netip.MustParseAddr("172.30.0.41")
	extIP  = netip.MustParseAddr("192.168.99.11")
	lbIP   = netip.MustParseAddr("1.2.3.4")
	svcIP6 = netip.MustParseAddr("fd00:30::41")
	epA    = netip.MustParseAddrPort("10.180.0.1:80")
	epB    = netip.MustParseAddrPort("10.180.0.2:80")
	epA6   = netip.MustParseAddrPort("[fd00:180::1]:80")
)

const (
	svcName  = "ns1/svc1:p80"
	svcPort  = 80
	nodePort = 31201
)

// staleUDPService is the Service of TestProxierDeleteNodePortStaleUDP: UDP, with a ClusterIP,
// an ExternalIP, a LoadBalancer IP and a NodePort.
func staleUDPService() conntrackorder.ServicePort {
	return conntrackorder.ServicePort{
		Name:            svcName,
		Protocol:        conntrackorder.UDP,
		Port:            svcPort,
		ClusterIPs:      []netip.Addr{svcIP},
		ExternalIPs:     []netip.Addr{extIP},
		LoadBalancerIPs: []netip.Addr{lbIP},
		NodePort:        nodePort,
	}
}

// The filters of staleUDPService.
var (
	fSvcIP    = conntrackorder.Filter{Protocol: conntrackorder.UDP, OrigDst: svcIP, DstPort: svcPort}
	fExtIP    = conntrackorder.Filter{Protocol: conntrackorder.UDP, OrigDst: extIP, DstPort: svcPort}
	fLBIP     = conntrackorder.Filter{Protocol: conntrackorder.UDP, OrigDst: lbIP, DstPort: svcPort}
	fNodePort = conntrackorder.Filter{Protocol: conntrackorder.UDP, DstPort: nodePort}
)

// endpointFilters returns the filters for ep of staleUDPService gone.
func endpointFilters(ep netip.AddrPort) conntrackorder.Plan {
	a := ep.Addr()
	return conntrackorder.Plan{
		{Protocol: conntrackorder.UDP, OrigDst: svcIP, DstPort: svcPort, ReplySrc: a},
		{Protocol: conntrackorder.UDP, OrigDst: extIP, DstPort: svcPort, ReplySrc: a},
		{Protocol: conntrackorder.UDP, OrigDst: lbIP, DstPort: svcPort, ReplySrc: a},
		{Protocol: conntrackorder.UDP, DstPort: nodePort, ReplySrc: a},
	}
}

func concat(plans ...conntrackorder.Plan) conntrackorder.Plan {
	var all conntrackorder.Plan
	for _, p := range plans {
		all = append(all, p...)
	}
	return all
}

// syncHarness is a Syncer over a Tracker whose program function and flusher log, in order,
// what happened.
type syncHarness struct {
	tracker    *conntrackorder.Tracker
	syncer     *conntrackorder.Syncer
	flusher    *conntrackordertest.Flusher
	mu         sync.Mutex
	events     []string
	programErr error // returned by the next program call, then cleared
	onProgram  func()
}

func newSyncHarness() *syncHarness {
	h := &syncHarness{tracker: conntrackorder.NewTracker(), flusher: conntrackordertest.New()}
	h.flusher.FailWith(func(_ context.Context, plan conntrackorder.Plan) error {
		h.log(fmt.Sprintf("flush %d", len(plan)))
		return nil
	})
	h.syncer = conntrackorder.NewSyncer(h.tracker, h.program, h.flusher)
	return h
}

func (h *syncHarness) program(context.Context) error {
	if h.onProgram != nil {
		h.onProgram()
	}
	h.log("program")
	err := h.programErr
	h.programErr = nil
	return err
}

func (h *syncHarness) log(e string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, e)
}

// takeEvents returns the events since the last call.
func (h *syncHarness) takeEvents() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	e := h.events
	h.events = nil
	return e
}

// flushed returns the plans flushed since the last call.
func (h *syncHarness) flushed() []conntrackorder.Plan {
	p := h.flusher.Flushed()
	h.flusher.Reset()
	return p
}

// TestProxierDeleteNodePortStaleUDP is kube-proxy's regression test for kubernetes#98305: no
// flush while the service has no serving endpoints, and once it has one, exactly the service
// IPs and the NodePort, after the rules are programmed.
func TestProxierDeleteNodePortStaleUDP(t *testing.T) {
	h := newSyncHarness()
	ctx := context.Background()

	require.NoError(t, h.tracker.SetService(staleUDPService()))
	require.NoError(t, h.tracker.SetEndpoints(svcName, nil))
	require.NoError(t, h.syncer.Sync(ctx))
	assert.Equal(t, []string{"program"}, h.takeEvents(), "no endpoints: no flush")

	// The endpoint exists but is not ready: the caller passes only serving endpoints.
	require.NoError(t, h.tracker.SetEndpoints(svcName, []netip.AddrPort{}))
	require.NoError(t, h.syncer.Sync(ctx))
	assert.Equal(t, []string{"program"}, h.takeEvents(), "not-ready endpoint: no flush")

	require.NoError(t, h.tracker.SetEndpoints(svcName, []netip.AddrPort{epA}))
	require.NoError(t, h.syncer.Sync(ctx))
	assert.Equal(t, []string{"program", "flush 4"}, h.takeEvents(), "flush after programming")
	want := []conntrackorder.Plan{{fSvcIP, fExtIP, fLBIP, fNodePort}}
	if diff := cmp.Diff(want, h.flushed()); diff != "" {
		t.Errorf("flushed (-want +got):\n%s", diff)
	}
	assert.Empty(t, h.tracker.Pending())

	require.NoError(t, h.syncer.Sync(ctx))
	assert.Equal(t, []string{"program"}, h.takeEvents(), "nothing left to flush")
}

func TestTracker(t *testing.T) {
	udp := staleUDPService()
	noNodePort := udp
	noNodePort.NodePort = 0
	tcp := udp
	tcp.Protocol = conntrackorder.TCP
	sctp := udp
	sctp.Protocol = conntrackorder.SCTP
	dualStack := udp
	dualStack.ClusterIPs = []netip.Addr{svcIP, svcIP6}
	dualStack.ExternalIPs, dualStack.LoadBalancerIPs = nil, nil
	duplicates := udp
	duplicates.ExternalIPs = []netip.Addr{extIP, svcIP, extIP}
	movedPort := udp
	movedPort.Port = 8080
	movedTCP := tcp
	movedTCP.Port = 8080
	movedNodePort := udp
	movedNodePort.NodePort = 31202
	lostExternal := udp
	lostExternal.ExternalIPs = nil
	newLB := udp
	newLB.LoadBalancerIPs = []netip.Addr{lbIP, netip.MustParseAddr("1.2.3.5")}

	type step struct {
		service *conntrackorder.ServicePort
		delete  bool
		eps     []netip.AddrPort // with setEps
		setEps  bool
		flush   bool // drain what is pending, as a successful Sync does
	}
	svc := func(sp conntrackorder.ServicePort) step { return step{service: &sp} }
	setEps := func(e ...netip.AddrPort) step { return step{setEps: true, eps: e} }
	flush := step{flush: true}
	del := step{delete: true}

	tests := []struct {
		name string
		give []step
		want conntrackorder.Plan
	}{
		{
			name: "no endpoints",
			give: []step{svc(udp), setEps()},
		},
		{
			name: "none to some: every service IP, then the NodePort",
			give: []step{svc(udp), setEps(epA)},
			want: conntrackorder.Plan{fSvcIP, fExtIP, fLBIP, fNodePort},
		},
		{
			name: "none to some without NodePort",
			give: []step{svc(noNodePort), setEps(epA, epB)},
			want: conntrackorder.Plan{fSvcIP, fExtIP, fLBIP},
		},
		{
			name: "some to more: nothing",
			give: []step{svc(udp), setEps(epA), flush, setEps(epA, epB)},
		},
		{
			name: "TCP never produces filters",
			give: []step{svc(tcp), setEps(epA), setEps(), svc(movedTCP), svc(tcp), del},
		},
		{
			name: "SCTP like UDP",
			give: []step{svc(sctp), setEps(epA)},
			want: conntrackorder.Plan{
				{Protocol: conntrackorder.SCTP, OrigDst: svcIP, DstPort: svcPort},
				{Protocol: conntrackorder.SCTP, OrigDst: extIP, DstPort: svcPort},
				{Protocol: conntrackorder.SCTP, OrigDst: lbIP, DstPort: svcPort},
				{Protocol: conntrackorder.SCTP, DstPort: nodePort},
			},
		},
		{
			name: "endpoints before the service",
			give: []step{setEps(epA), svc(udp)},
			want: conntrackorder.Plan{fSvcIP, fExtIP, fLBIP, fNodePort},
		},
		{
			name: "endpoints before the service, gone before it arrived",
			give: []step{setEps(epA), setEps(), svc(udp)},
		},
		{
			name: "endpoint gone",
			give: []step{svc(udp), setEps(epA, epB), flush, setEps(epB)},
			want: endpointFilters(epA),
		},
		{
			name: "endpoints gone in address order",
			give: []step{svc(udp), setEps(epB, epA), flush, setEps()},
			want: concat(endpointFilters(epA), endpointFilters(epB)),
		},
		{
			name: "endpoint port changed",
			give: []step{svc(udp), setEps(epA), flush, setEps(netip.AddrPortFrom(epA.Addr(), 8080))},
			want: endpointFilters(epA),
		},
		{
			name: "re-set unchanged",
			give: []step{svc(udp), setEps(epA), flush, svc(udp), setEps(epA), setEps(epA, epA), svc(duplicates)},
		},
		{
			name: "duplicates are collected once",
			give: []step{svc(duplicates), setEps(epA, epA)},
			want: conntrackorder.Plan{fSvcIP, fExtIP, fLBIP, fNodePort},
		},
		{
			name: "the same filter again is collected once",
			give: []step{svc(udp), setEps(epA), setEps(), setEps(epA), setEps()},
			want: concat(conntrackorder.Plan{fSvcIP, fExtIP, fLBIP, fNodePort}, endpointFilters(epA)),
		},
		{
			name: "service deleted",
			give: []step{svc(udp), setEps(epA), flush, del},
			want: conntrackorder.Plan{fSvcIP, fExtIP, fLBIP, fNodePort},
		},
		{
			name: "service without endpoints deleted",
			give: []step{svc(udp), del},
			want: conntrackorder.Plan{fSvcIP, fExtIP, fLBIP, fNodePort},
		},
		{
			name: "unknown service deleted",
			give: []step{setEps(epA), del},
		},
		{
			name: "endpoints of a deleted service gone: nothing",
			give: []step{svc(udp), setEps(epA), del, flush, setEps()},
		},
		{
			name: "deleted service re-created keeps its endpoints",
			give: []step{svc(udp), setEps(epA), del, flush, svc(udp)},
			want: conntrackorder.Plan{fSvcIP, fExtIP, fLBIP, fNodePort},
		},
		{
			name: "external IP lost",
			give: []step{svc(udp), setEps(epA), flush, svc(lostExternal)},
			want: conntrackorder.Plan{fExtIP},
		},
		{
			name: "external IP lost without endpoints",
			give: []step{svc(udp), svc(lostExternal)},
			want: conntrackorder.Plan{fExtIP},
		},
		{
			name: "port changed: only what it lost",
			give: []step{svc(udp), setEps(epA), flush, svc(movedPort)},
			want: conntrackorder.Plan{fSvcIP, fExtIP, fLBIP},
		},
		{
			name: "port changed without endpoints: only lost",
			give: []step{svc(udp), svc(movedPort)},
			want: conntrackorder.Plan{fSvcIP, fExtIP, fLBIP},
		},
		{
			name: "NodePort changed",
			give: []step{svc(udp), setEps(epA), flush, svc(movedNodePort)},
			want: conntrackorder.Plan{fNodePort},
		},
		{
			name: "NodePort removed",
			give: []step{svc(udp), setEps(epA), flush, svc(noNodePort)},
			want: conntrackorder.Plan{fNodePort},
		},
		{
			// Only the reconcile mode clears what reached an address before its rule existed.
			name: "load balancer IP gained with endpoints",
			give: []step{svc(udp), setEps(epA), flush, svc(newLB)},
		},
		{
			name: "load balancer IP gained without endpoints",
			give: []step{svc(udp), svc(newLB)},
		},
		{
			name: "UDP to TCP",
			give: []step{svc(udp), setEps(epA), flush, svc(tcp)},
			want: conntrackorder.Plan{fSvcIP, fExtIP, fLBIP, fNodePort},
		},
		{
			name: "TCP to UDP with endpoints",
			give: []step{svc(tcp), setEps(epA), svc(udp)},
			want: conntrackorder.Plan{fSvcIP, fExtIP, fLBIP, fNodePort},
		},
		{
			name: "UDP to SCTP",
			give: []step{svc(udp), setEps(epA), flush, svc(sctp)},
			want: conntrackorder.Plan{
				fSvcIP, fExtIP, fLBIP,
				{Protocol: conntrackorder.SCTP, OrigDst: svcIP, DstPort: svcPort},
				{Protocol: conntrackorder.SCTP, OrigDst: extIP, DstPort: svcPort},
				{Protocol: conntrackorder.SCTP, OrigDst: lbIP, DstPort: svcPort},
				fNodePort,
				{Protocol: conntrackorder.SCTP, DstPort: nodePort},
			},
		},
		{
			name: "dual-stack: none to some in both families",
			give: []step{svc(dualStack), setEps(epA, epA6)},
			want: conntrackorder.Plan{fSvcIP, {Protocol: conntrackorder.UDP, OrigDst: svcIP6, DstPort: svcPort}, fNodePort},
		},
		{
			name: "dual-stack: first IPv6 endpoint clears the IPv6 service IP and the NodePort",
			give: []step{svc(dualStack), setEps(epA), flush, setEps(epA, epA6)},
			want: conntrackorder.Plan{{Protocol: conntrackorder.UDP, OrigDst: svcIP6, DstPort: svcPort}, fNodePort},
		},
		{
			name: "dual-stack: an endpoint gone is cleared in its own family",
			give: []step{svc(dualStack), setEps(epA, epA6), flush, setEps(epA)},
			want: conntrackorder.Plan{
				{Protocol: conntrackorder.UDP, OrigDst: svcIP6, DstPort: svcPort, ReplySrc: epA6.Addr()},
				{Protocol: conntrackorder.UDP, DstPort: nodePort, ReplySrc: epA6.Addr()},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newSyncHarness()
			for _, s := range tt.give {
				switch {
				case s.service != nil:
					require.NoError(t, h.tracker.SetService(*s.service))
				case s.delete:
					h.tracker.DeleteService(svcName)
				case s.setEps:
					require.NoError(t, h.tracker.SetEndpoints(svcName, s.eps))
				case s.flush:
					require.NoError(t, h.syncer.Sync(context.Background()))
					require.Empty(t, h.tracker.Pending())
				}
			}
			if diff := cmp.Diff(tt.want, h.tracker.Pending()); diff != "" {
				t.Errorf("Pending (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPendingOrder(t *testing.T) {
	tr := conntrackorder.NewTracker()
	other := conntrackorder.ServicePort{
		Name: "ns1/svc2:p53", Protocol: conntrackorder.UDP, Port: 53,
		ClusterIPs: []netip.Addr{netip.MustParseAddr("172.30.0.10")}, NodePort: 30053,
	}
	require.NoError(t, tr.SetService(staleUDPService()))
	require.NoError(t, tr.SetService(other))
	require.NoError(t, tr.SetEndpoints(svcName, []netip.AddrPort{epB}))
	require.NoError(t, tr.SetEndpoints(other.Name, []netip.AddrPort{epA}))
	require.NoError(t, tr.SetEndpoints(svcName, nil))

	fOther := conntrackorder.Filter{Protocol: conntrackorder.UDP, OrigDst: other.ClusterIPs[0], DstPort: 53}
	fOtherNodePort := conntrackorder.Filter{Protocol: conntrackorder.UDP, DstPort: 30053}
	// Service IPs, then NodePorts, then endpoints; within each group in collection order.
	want := concat(
		conntrackorder.Plan{fSvcIP, fExtIP, fLBIP, fOther},
		conntrackorder.Plan{fNodePort, fOtherNodePort},
		endpointFilters(epB),
	)
	if diff := cmp.Diff(want, tr.Pending()); diff != "" {
		t.Errorf("Pending (-want +got):\n%s", diff)
	}
}

func TestPendingIsACopy(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(staleUDPService()))
	tr.DeleteService(svcName)
	p := tr.Pending()
	p[0].DstPort = 1
	assert.Equal(t, fSvcIP, tr.Pending()[0])
}

// The bugs kube-proxy had after kubernetes#98305, one test each.

// TestLoadBalancerIPsAreCleared: kubernetes#103857 left LoadBalancer IPs out of the clears
// (fixed in #104009).
func TestLoadBalancerIPsAreCleared(t *testing.T) {
	tr := conntrackorder.NewTracker()
	sp := staleUDPService()
	sp.ClusterIPs, sp.ExternalIPs, sp.NodePort = []netip.Addr{svcIP}, nil, 0
	sp.LoadBalancerIPs = []netip.Addr{lbIP, netip.MustParseAddr("2.3.4.5")}
	require.NoError(t, tr.SetService(sp))
	require.NoError(t, tr.SetEndpoints(svcName, []netip.AddrPort{epA}))
	want := conntrackorder.Plan{fSvcIP, fLBIP, {Protocol: conntrackorder.UDP, OrigDst: netip.MustParseAddr("2.3.4.5"), DstPort: svcPort}}
	if diff := cmp.Diff(want, tr.Pending()); diff != "" {
		t.Errorf("Pending (-want +got):\n%s", diff)
	}
}

// TestNotReadyEndpointsDoNotCount: kubernetes#105657 counted not-ready endpoints as endpoints
// and cleared before any rule sent traffic anywhere (fixed in #106163). The Tracker takes only
// serving endpoints, so a service whose endpoints are all not ready has none, and the clear
// waits for the first ready one.
func TestNotReadyEndpointsDoNotCount(t *testing.T) {
	h := newSyncHarness()
	require.NoError(t, h.tracker.SetService(staleUDPService()))
	notReady := []netip.AddrPort{} // epA exists but is not ready: not passed
	require.NoError(t, h.tracker.SetEndpoints(svcName, notReady))
	require.NoError(t, h.syncer.Sync(context.Background()))
	assert.Empty(t, h.flushed())

	require.NoError(t, h.tracker.SetEndpoints(svcName, []netip.AddrPort{epA})) // now ready
	require.NoError(t, h.syncer.Sync(context.Background()))
	if diff := cmp.Diff([]conntrackorder.Plan{{fSvcIP, fExtIP, fLBIP, fNodePort}}, h.flushed()); diff != "" {
		t.Errorf("flushed (-want +got):\n%s", diff)
	}
}

// TestServingToNotServingClears: kubernetes#125467 stopped clearing flows to an endpoint that
// turned from serving to not serving while it still existed (fixed in #127780).
func TestServingToNotServingClears(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(staleUDPService()))
	require.NoError(t, tr.SetEndpoints(svcName, []netip.AddrPort{epA, epB}))
	drain(t, tr)
	// epA still exists, terminating and not serving: it is no longer passed.
	require.NoError(t, tr.SetEndpoints(svcName, []netip.AddrPort{epB}))
	if diff := cmp.Diff(endpointFilters(epA), tr.Pending()); diff != "" {
		t.Errorf("Pending (-want +got):\n%s", diff)
	}
}

// TestSCTPIsNotSilentlyDropped: kube-proxy's SCTP clearing was a no-op for years and was
// dropped (kubernetes#115299). SCTP service ports get the same filters as UDP; both backends
// apply them, ports included, and TestKernelSCTPNodePort proves they delete entries.
func TestSCTPIsNotSilentlyDropped(t *testing.T) {
	h := newSyncHarness()
	sp := staleUDPService()
	sp.Protocol = conntrackorder.SCTP
	require.NoError(t, h.tracker.SetService(sp))
	require.NoError(t, h.tracker.SetEndpoints(svcName, []netip.AddrPort{epA}))
	require.NoError(t, h.tracker.SetEndpoints(svcName, []netip.AddrPort{epB}))
	require.NoError(t, h.syncer.Sync(context.Background()))
	plans := h.flushed()
	require.Len(t, plans, 1)
	assert.Len(t, plans[0], 8)
	for _, f := range plans[0] {
		assert.Equal(t, conntrackorder.SCTP, f.Protocol, "%v", f)
	}
}

// TestFailedProgramLosesNothing: when iptables-restore failed, kube-proxy dropped the changes
// it had collected, and nothing cleared those entries later (kubernetes#112604).
func TestFailedProgramLosesNothing(t *testing.T) {
	h := newSyncHarness()
	require.NoError(t, h.tracker.SetService(staleUDPService()))
	require.NoError(t, h.tracker.SetEndpoints(svcName, []netip.AddrPort{epA}))
	errRestore := errors.New("iptables-restore: line 7 failed")
	h.programErr = errRestore

	err := h.syncer.Sync(context.Background())
	require.ErrorIs(t, err, errRestore)
	assert.EqualError(t, err, "conntrackorder: program: iptables-restore: line 7 failed")
	assert.Equal(t, []string{"program"}, h.takeEvents(), "no flush without rules")
	want := conntrackorder.Plan{fSvcIP, fExtIP, fLBIP, fNodePort}
	if diff := cmp.Diff(want, h.tracker.Pending()); diff != "" {
		t.Errorf("Pending (-want +got):\n%s", diff)
	}

	require.NoError(t, h.syncer.Sync(context.Background()))
	assert.Equal(t, []string{"program", "flush 4"}, h.takeEvents())
	if diff := cmp.Diff([]conntrackorder.Plan{want}, h.flushed()); diff != "" {
		t.Errorf("flushed (-want +got):\n%s", diff)
	}
}

// TestFailedFlushLosesNothing: a flush that fails leaves its plan pending, merged with what
// arrived since, each filter once and in flush order.
func TestFailedFlushLosesNothing(t *testing.T) {
	h := newSyncHarness()
	require.NoError(t, h.tracker.SetService(staleUDPService()))
	require.NoError(t, h.tracker.SetEndpoints(svcName, []netip.AddrPort{epA}))
	errFlush := errors.New("conntrack: operation not permitted")
	h.flusher.FailNext(1, errFlush)

	err := h.syncer.Sync(context.Background())
	require.ErrorIs(t, err, errFlush)
	assert.EqualError(t, err, "conntrackorder: flush: conntrack: operation not permitted")

	// Meanwhile epA goes and comes back, and the service is deleted.
	require.NoError(t, h.tracker.SetEndpoints(svcName, nil))
	require.NoError(t, h.tracker.SetEndpoints(svcName, []netip.AddrPort{epA}))
	h.tracker.DeleteService(svcName)

	require.NoError(t, h.syncer.Sync(context.Background()))
	want := []conntrackorder.Plan{concat(conntrackorder.Plan{fSvcIP, fExtIP, fLBIP, fNodePort}, endpointFilters(epA))}
	if diff := cmp.Diff(want, h.flushed()); diff != "" {
		t.Errorf("flushed (-want +got):\n%s", diff)
	}
	assert.Empty(t, h.tracker.Pending())
}

// TestDeletedServiceIsCleaned: kube-proxy never cleared the flows of a deleted service
// (kubernetes#141371); they kept reaching its old backends, or a service that reused the
// address.
func TestDeletedServiceIsCleaned(t *testing.T) {
	h := newSyncHarness()
	require.NoError(t, h.tracker.SetService(staleUDPService()))
	require.NoError(t, h.tracker.SetEndpoints(svcName, []netip.AddrPort{epA}))
	require.NoError(t, h.syncer.Sync(context.Background()))
	h.flushed()

	h.tracker.DeleteService(svcName)
	require.NoError(t, h.syncer.Sync(context.Background()))
	if diff := cmp.Diff([]conntrackorder.Plan{{fSvcIP, fExtIP, fLBIP, fNodePort}}, h.flushed()); diff != "" {
		t.Errorf("flushed (-want +got):\n%s", diff)
	}
}

// TestZeroEndpointServiceIsNotSkipped: kube-proxy skipped services without endpoints when it
// cleared, so the flows to the last endpoint of a service stayed (kubernetes#139629).
func TestZeroEndpointServiceIsNotSkipped(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(staleUDPService()))
	require.NoError(t, tr.SetEndpoints(svcName, []netip.AddrPort{epA}))
	drain(t, tr)
	require.NoError(t, tr.SetEndpoints(svcName, nil))
	if diff := cmp.Diff(endpointFilters(epA), tr.Pending()); diff != "" {
		t.Errorf("Pending (-want +got):\n%s", diff)
	}
}

// TestNewTrackerClearsEveryServiceWithEndpoints documents the cost of knowing no history: a
// new Tracker, as after a restart, treats every service with endpoints as new
// (kubernetes#122740). It never misses a stale entry, and costs UDP clients one re-created
// flow.
func TestNewTrackerClearsEveryServiceWithEndpoints(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetEndpoints(svcName, []netip.AddrPort{epA}))
	require.NoError(t, tr.SetService(staleUDPService()))
	if diff := cmp.Diff(conntrackorder.Plan{fSvcIP, fExtIP, fLBIP, fNodePort}, tr.Pending()); diff != "" {
		t.Errorf("Pending (-want +got):\n%s", diff)
	}
}

// drain empties the pending plan with a successful Sync.
func drain(t *testing.T, tr *conntrackorder.Tracker) {
	t.Helper()
	s := conntrackorder.NewSyncer(tr, func(context.Context) error { return nil }, conntrackordertest.New())
	require.NoError(t, s.Sync(context.Background()))
	require.Empty(t, tr.Pending())
}

func TestBadInputChangesNothing(t *testing.T) {
	valid := staleUDPService()
	with := func(edit func(sp *conntrackorder.ServicePort)) conntrackorder.ServicePort {
		sp := staleUDPService()
		edit(&sp)
		return sp
	}
	tests := []struct {
		name string
		give func(tr *conntrackorder.Tracker) error
		want string
	}{
		{
			name: "empty service name",
			give: func(tr *conntrackorder.Tracker) error {
				return tr.SetService(with(func(sp *conntrackorder.ServicePort) { sp.Name = "" }))
			},
			want: "conntrackorder: service port has no name",
		},
		{
			name: "zero protocol",
			give: func(tr *conntrackorder.Tracker) error {
				return tr.SetService(with(func(sp *conntrackorder.ServicePort) { sp.Protocol = 0 }))
			},
			want: `conntrackorder: service port "ns1/svc1:p80": unknown protocol protocol(0)`,
		},
		{
			name: "unknown protocol",
			give: func(tr *conntrackorder.Tracker) error {
				return tr.SetService(with(func(sp *conntrackorder.ServicePort) { sp.Protocol = 4 }))
			},
			want: `conntrackorder: service port "ns1/svc1:p80": unknown protocol protocol(4)`,
		},
		{
			name: "zero port",
			give: func(tr *conntrackorder.Tracker) error {
				return tr.SetService(with(func(sp *conntrackorder.ServicePort) { sp.Port = 0 }))
			},
			want: `conntrackorder: service port "ns1/svc1:p80": port 0`,
		},
		{
			name: "invalid cluster IP",
			give: func(tr *conntrackorder.Tracker) error {
				return tr.SetService(with(func(sp *conntrackorder.ServicePort) { sp.ClusterIPs = []netip.Addr{svcIP, {}} }))
			},
			want: `conntrackorder: service port "ns1/svc1:p80": cluster IP 1: invalid address`,
		},
		{
			name: "unspecified external IP",
			give: func(tr *conntrackorder.Tracker) error {
				return tr.SetService(with(func(sp *conntrackorder.ServicePort) { sp.ExternalIPs = []netip.Addr{netip.IPv4Unspecified()} }))
			},
			want: `conntrackorder: service port "ns1/svc1:p80": external IP: address 0.0.0.0 is unspecified`,
		},
		{
			name: "unspecified IPv6 load balancer IP",
			give: func(tr *conntrackorder.Tracker) error {
				return tr.SetService(with(func(sp *conntrackorder.ServicePort) { sp.LoadBalancerIPs = []netip.Addr{netip.IPv6Unspecified()} }))
			},
			want: `conntrackorder: service port "ns1/svc1:p80": load balancer IP: address :: is unspecified`,
		},
		{
			name: "IPv4-mapped IPv6 load balancer IP",
			give: func(tr *conntrackorder.Tracker) error {
				return tr.SetService(with(func(sp *conntrackorder.ServicePort) {
					sp.LoadBalancerIPs = []netip.Addr{netip.MustParseAddr("::ffff:1.2.3.4")}
				}))
			},
			want: `conntrackorder: service port "ns1/svc1:p80": load balancer IP: address ::ffff:1.2.3.4 is IPv4-mapped; pass it as IPv4`,
		},
		{
			name: "zoned cluster IP",
			give: func(tr *conntrackorder.Tracker) error {
				return tr.SetService(with(func(sp *conntrackorder.ServicePort) {
					sp.ClusterIPs = []netip.Addr{netip.MustParseAddr("fe80::1%eth0")}
				}))
			},
			want: `conntrackorder: service port "ns1/svc1:p80": cluster IP: address fe80::1%eth0 has a zone`,
		},
		{
			name: "empty endpoints name",
			give: func(tr *conntrackorder.Tracker) error {
				return tr.SetEndpoints("", []netip.AddrPort{epA})
			},
			want: "conntrackorder: endpoints have no service port name",
		},
		{
			name: "invalid endpoint",
			give: func(tr *conntrackorder.Tracker) error {
				return tr.SetEndpoints(svcName, []netip.AddrPort{epB, {}})
			},
			want: `conntrackorder: endpoints of "ns1/svc1:p80": invalid address`,
		},
		{
			name: "unspecified endpoint",
			give: func(tr *conntrackorder.Tracker) error {
				return tr.SetEndpoints(svcName, []netip.AddrPort{netip.MustParseAddrPort("0.0.0.0:80")})
			},
			want: `conntrackorder: endpoints of "ns1/svc1:p80": address 0.0.0.0 is unspecified`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Two trackers in the same state; one gets the bad input. Both must then behave
			// the same.
			bad, good := conntrackorder.NewTracker(), conntrackorder.NewTracker()
			for _, tr := range []*conntrackorder.Tracker{bad, good} {
				require.NoError(t, tr.SetService(valid))
				require.NoError(t, tr.SetEndpoints(svcName, []netip.AddrPort{epA}))
				drain(t, tr)
			}
			require.EqualError(t, tt.give(bad), tt.want)
			assert.Empty(t, bad.Pending())

			for _, tr := range []*conntrackorder.Tracker{bad, good} {
				require.NoError(t, tr.SetEndpoints(svcName, []netip.AddrPort{epB}))
				tr.DeleteService(svcName)
			}
			if diff := cmp.Diff(good.Pending(), bad.Pending()); diff != "" {
				t.Errorf("after bad input (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSyncFlushesOnlyAfterProgramming(t *testing.T) {
	h := newSyncHarness()
	require.NoError(t, h.tracker.SetService(staleUDPService()))
	require.NoError(t, h.tracker.SetEndpoints(svcName, []netip.AddrPort{epA}))
	require.NoError(t, h.syncer.Sync(context.Background()))
	assert.Equal(t, []string{"program", "flush 4"}, h.takeEvents())
}

func TestSyncEmptyPlanDoesNotFlush(t *testing.T) {
	h := newSyncHarness()
	require.NoError(t, h.tracker.SetService(staleUDPService()))
	require.NoError(t, h.syncer.Sync(context.Background()))
	assert.Equal(t, []string{"program"}, h.takeEvents(), "programs, does not flush")
	assert.Empty(t, h.flusher.Calls())
}

// TestSyncUpdatesDuringSyncAreFlushedLater covers filters collected while a Sync runs, also
// one that is in the snapshot already: it may describe a change the rules just programmed do
// not have, so it must be flushed after the next programming.
func TestSyncUpdatesDuringSyncAreFlushedLater(t *testing.T) {
	h := newSyncHarness()
	require.NoError(t, h.tracker.SetService(staleUDPService()))
	require.NoError(t, h.tracker.SetEndpoints(svcName, []netip.AddrPort{epA}))
	require.NoError(t, h.tracker.SetEndpoints(svcName, []netip.AddrPort{epB}))
	first := concat(conntrackorder.Plan{fSvcIP, fExtIP, fLBIP, fNodePort}, endpointFilters(epA))

	h.flusher.FailWith(func(context.Context, conntrackorder.Plan) error {
		// A change arrives after programming, while the flush runs: epB goes, and epA comes
		// and goes again, which collects epA's filters, already in this plan, once more.
		require.NoError(t, h.tracker.SetEndpoints(svcName, []netip.AddrPort{epA}))
		require.NoError(t, h.tracker.SetEndpoints(svcName, nil))
		return nil
	})
	require.NoError(t, h.syncer.Sync(context.Background()))
	h.flusher.FailWith(nil)
	if diff := cmp.Diff([]conntrackorder.Plan{first}, h.flushed()); diff != "" {
		t.Errorf("first flush (-want +got):\n%s", diff)
	}
	second := concat(endpointFilters(epA), endpointFilters(epB))
	if diff := cmp.Diff(second, h.tracker.Pending()); diff != "" {
		t.Errorf("pending after the first Sync (-want +got):\n%s", diff)
	}

	require.NoError(t, h.syncer.Sync(context.Background()))
	if diff := cmp.Diff([]conntrackorder.Plan{second}, h.flushed()); diff != "" {
		t.Errorf("second flush (-want +got):\n%s", diff)
	}
	assert.Empty(t, h.tracker.Pending())
}

func TestSyncProgramPanicKeepsThePlan(t *testing.T) {
	h := newSyncHarness()
	require.NoError(t, h.tracker.SetService(staleUDPService()))
	require.NoError(t, h.tracker.SetEndpoints(svcName, []netip.AddrPort{epA}))
	h.onProgram = func() { panic("boom") }
	assert.PanicsWithValue(t, "boom", func() { _ = h.syncer.Sync(context.Background()) })
	h.onProgram = nil
	assert.Len(t, h.tracker.Pending(), 4)
	require.NoError(t, h.syncer.Sync(context.Background()), "the panic released the Syncer")
	assert.Empty(t, h.tracker.Pending())
}

func TestSyncCallsAreSerialized(t *testing.T) {
	tr := conntrackorder.NewTracker()
	var running, overlaps, calls atomic.Int32
	program := func(context.Context) error {
		if running.Add(1) > 1 {
			overlaps.Add(1)
		}
		calls.Add(1)
		for i := 0; i < 100; i++ {
			_ = tr.Pending() // take a little while, without sleeping
		}
		running.Add(-1)
		return nil
	}
	s := conntrackorder.NewSyncer(tr, program, conntrackordertest.New())
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				assert.NoError(t, s.Sync(context.Background()))
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, int32(160), calls.Load())
	assert.Zero(t, overlaps.Load())
}

func TestSyncWaitingForARunningSyncHonoursTheContext(t *testing.T) {
	tr := conntrackorder.NewTracker()
	entered, release := make(chan struct{}), make(chan struct{})
	s := conntrackorder.NewSyncer(tr, func(context.Context) error {
		close(entered)
		<-release
		return nil
	}, conntrackordertest.New())
	done := make(chan error)
	go func() { done <- s.Sync(context.Background()) }()
	<-entered

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := s.Sync(ctx)
	require.ErrorIs(t, err, context.Canceled)
	assert.EqualError(t, err, "conntrackorder: sync: context canceled")

	close(release)
	require.NoError(t, <-done)
}

func TestSyncWithADoneContextDoesNothing(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "ns/dns:dns", Protocol: conntrackorder.UDP, Port: 53, NodePort: 30053}))
	require.NoError(t, tr.SetEndpoints("ns/dns:dns", []netip.AddrPort{netip.MustParseAddrPort("10.180.0.1:53")}))
	programs := 0
	f := conntrackordertest.New()
	s := conntrackorder.NewSyncer(tr, func(context.Context) error { programs++; return nil }, f)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for i := 0; i < 100; i++ { // no Sync is running: a select alone would pick at random
		require.ErrorIs(t, s.Sync(ctx), context.Canceled)
	}
	assert.Zero(t, programs)
	assert.Empty(t, f.Calls())
	assert.Len(t, tr.Pending(), 1, "the plan stays pending")
}

func TestNewSyncerPanicsOnNil(t *testing.T) {
	tr := conntrackorder.NewTracker()
	program := func(context.Context) error { return nil }
	f := conntrackordertest.New()
	const msg = "conntrackorder: NewSyncer needs a tracker, a program function and a flusher"
	assert.PanicsWithValue(t, msg, func() { conntrackorder.NewSyncer(nil, program, f) })
	assert.PanicsWithValue(t, msg, func() { conntrackorder.NewSyncer(tr, nil, f) })
	assert.PanicsWithValue(t, msg, func() { conntrackorder.NewSyncer(tr, program, nil) })
}

// TestConcurrentUpdatesDuringSync updates the Tracker from several goroutines while Syncs run,
// some of them failing. Once the updates stop and one more Sync succeeds, nothing is pending,
// and every filter the updates collected has been flushed at least once.
func TestConcurrentUpdatesDuringSync(t *testing.T) {
	tr := conntrackorder.NewTracker()
	f := conntrackordertest.New()
	var n atomic.Int32
	f.FailWith(func(context.Context, conntrackorder.Plan) error {
		if n.Add(1)%3 == 0 {
			return errors.New("conntrack: interrupted")
		}
		return nil
	})
	s := conntrackorder.NewSyncer(tr, func(context.Context) error { return nil }, f)

	const workers, rounds = 4, 200
	// Each worker owns one service, so replaying its updates alone on a fresh Tracker
	// collects the filters it is responsible for.
	ops := make([][]func(*conntrackorder.Tracker), workers)
	for w := 0; w < workers; w++ {
		rnd := rand.New(rand.NewSource(int64(w)))
		sp := staleUDPService()
		sp.Name = fmt.Sprintf("ns/svc%d:p", w)
		sp.ClusterIPs = []netip.Addr{netip.AddrFrom4([4]byte{172, 30, 1, byte(w)})}
		sp.NodePort = uint16(30000 + w)
		pool := []netip.AddrPort{epA, epB, netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 1, byte(w), 1}), 80)}
		for i := 0; i < rounds; i++ {
			switch rnd.Intn(4) {
			case 0:
				sp := sp
				sp.Port = uint16(80 + rnd.Intn(2))
				ops[w] = append(ops[w], func(tr *conntrackorder.Tracker) { _ = tr.SetService(sp) })
			case 1:
				ops[w] = append(ops[w], func(tr *conntrackorder.Tracker) { tr.DeleteService(sp.Name) })
			default:
				var eps []netip.AddrPort
				for _, e := range pool {
					if rnd.Intn(2) == 0 {
						eps = append(eps, e)
					}
				}
				ops[w] = append(ops[w], func(tr *conntrackorder.Tracker) { _ = tr.SetEndpoints(sp.Name, eps) })
			}
		}
	}

	stop := make(chan struct{})
	syncDone := make(chan struct{})
	go func() {
		defer close(syncDone)
		for {
			select {
			case <-stop:
				return
			default:
				_ = s.Sync(context.Background())
			}
		}
	}()
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for _, op := range ops[w] {
				op(tr)
				_ = tr.Pending()
			}
		}(w)
	}
	wg.Wait()
	close(stop)
	<-syncDone
	f.FailWith(nil)
	require.NoError(t, s.Sync(context.Background()))
	assert.Empty(t, tr.Pending())

	want := map[conntrackorder.Filter]bool{}
	for w := 0; w < workers; w++ {
		replay := conntrackorder.NewTracker()
		for _, op := range ops[w] {
			op(replay)
			for _, flt := range replay.Pending() {
				want[flt] = true
			}
		}
	}
	got := map[conntrackorder.Filter]bool{}
	for _, p := range f.Flushed() {
		for _, flt := range p {
			got[flt] = true
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("filters flushed at least once (-want +got):\n%s", diff)
	}
}

// BenchmarkEndpointChangeSync measures one endpoint change and one Sync on a Tracker that
// holds many UDP services with endpoints. The cost must follow the change, not the number of
// services: compare the ns/op and allocs/op of the sub-benchmarks.
func BenchmarkEndpointChangeSync(b *testing.B) {
	for _, services := range []int{100, 10000} {
		b.Run(fmt.Sprintf("services=%d", services), func(b *testing.B) {
			tr := conntrackorder.NewTracker()
			for i := 0; i < services; i++ {
				sp := conntrackorder.ServicePort{
					Name:       fmt.Sprintf("ns/svc%d:dns", i),
					Protocol:   conntrackorder.UDP,
					Port:       53,
					ClusterIPs: []netip.Addr{netip.AddrFrom4([4]byte{172, 30, byte(i >> 8), byte(i)})},
					NodePort:   uint16(30000 + i%2000),
				}
				if err := tr.SetService(sp); err != nil {
					b.Fatal(err)
				}
				ep := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 180, byte(i >> 8), byte(i)}), 53)
				if err := tr.SetEndpoints(sp.Name, []netip.AddrPort{ep}); err != nil {
					b.Fatal(err)
				}
			}
			s := conntrackorder.NewSyncer(tr, func(context.Context) error { return nil }, discard{})
			if err := s.Sync(context.Background()); err != nil {
				b.Fatal(err)
			}
			name := "ns/svc7:dns"
			a := []netip.AddrPort{netip.MustParseAddrPort("10.181.0.1:53"), netip.MustParseAddrPort("10.181.0.2:53")}
			c := []netip.AddrPort{netip.MustParseAddrPort("10.181.0.1:53"), netip.MustParseAddrPort("10.181.0.3:53")}
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				eps := a
				if i%2 == 1 {
					eps = c
				}
				if err := tr.SetEndpoints(name, eps); err != nil {
					b.Fatal(err)
				}
				if err := s.Sync(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// discard is a Flusher that deletes nothing, for benchmarks.
type discard struct{}

func (discard) Flush(context.Context, conntrackorder.Plan) error { return nil }

// TestBadInputToSyncAndNewSyncer: misuse of a Syncer is a clear error, or for a constructor
// argument a prefixed panic, never a hang or a nil dereference; nothing changes.
func TestBadInputToSyncAndNewSyncer(t *testing.T) {
	ctx := context.Background()
	t.Run("zero Syncer", func(t *testing.T) {
		var s conntrackorder.Syncer
		// It used to block forever on a nil channel.
		assert.EqualError(t, s.Sync(ctx), "conntrackorder: sync: Syncer not made by NewSyncer or NewReconcileSyncer")
		var nilSyncer *conntrackorder.Syncer
		assert.EqualError(t, nilSyncer.Sync(ctx), "conntrackorder: sync: Syncer not made by NewSyncer or NewReconcileSyncer")
	})
	t.Run("nil context", func(t *testing.T) {
		tr := conntrackorder.NewTracker()
		require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "ns/dns:dns", Protocol: conntrackorder.UDP,
			Port: 53, ClusterIPs: []netip.Addr{netip.MustParseAddr("172.30.0.10")}}))
		require.NoError(t, tr.SetEndpoints("ns/dns:dns", []netip.AddrPort{netip.MustParseAddrPort("10.180.0.7:53")}))
		before := tr.Pending()
		programmed := false
		f := conntrackordertest.New()
		for _, s := range []*conntrackorder.Syncer{
			conntrackorder.NewSyncer(tr, func(context.Context) error { programmed = true; return nil }, f),
			conntrackorder.NewReconcileSyncer(tr, func(context.Context) error { programmed = true; return nil }, f),
		} {
			var noContext context.Context // the bad input under test
			assert.EqualError(t, s.Sync(noContext), "conntrackorder: sync: nil context")
		}
		assert.False(t, programmed, "program ran")
		assert.Empty(t, f.Calls())
		assert.Equal(t, before, tr.Pending())
	})
	t.Run("typed nil backend", func(t *testing.T) {
		tr := conntrackorder.NewTracker()
		program := func(context.Context) error { return nil }
		var f *conntrackordertest.Flusher
		assert.PanicsWithValue(t, "conntrackorder: NewSyncer needs a tracker, a program function and a flusher",
			func() { conntrackorder.NewSyncer(tr, program, f) })
		assert.PanicsWithValue(t, "conntrackorder: NewReconcileSyncer needs a tracker, a program function and a reconciler",
			func() { conntrackorder.NewReconcileSyncer(tr, program, f) })
	})
}

// TestZeroTrackerIsReady: a zero Tracker collects what a new one does, and works with a
// Syncer.
func TestZeroTrackerIsReady(t *testing.T) {
	sp := conntrackorder.ServicePort{Name: "ns/dns:dns", Protocol: conntrackorder.UDP, Port: 53,
		ClusterIPs: []netip.Addr{netip.MustParseAddr("172.30.0.10")}, NodePort: 30053}
	eps := []netip.AddrPort{netip.MustParseAddrPort("10.180.0.7:53")}
	feed := func(tr *conntrackorder.Tracker) {
		require.NoError(t, tr.SetEndpoints(sp.Name, eps))
		require.NoError(t, tr.SetService(sp))
		require.NoError(t, tr.SetEndpoints(sp.Name, nil))
	}
	want := conntrackorder.NewTracker()
	feed(want)

	for _, name := range []string{"SetService first", "DeleteService first", "Pending first"} {
		t.Run(name, func(t *testing.T) {
			var tr conntrackorder.Tracker
			switch name {
			case "DeleteService first":
				tr.DeleteService(sp.Name)
			case "Pending first":
				assert.Nil(t, tr.Pending())
				assert.False(t, tr.Desired().Contradicts(conntrackorder.Flow{Protocol: conntrackorder.UDP,
					OrigDst: netip.MustParseAddrPort("172.30.0.10:53"), ReplySrc: netip.MustParseAddrPort("172.30.0.10:53")}))
			}
			feed(&tr)
			if diff := cmp.Diff(want.Pending(), tr.Pending()); diff != "" {
				t.Errorf("Pending (-new tracker +zero tracker):\n%s", diff)
			}
			f := conntrackordertest.New()
			require.NoError(t, conntrackorder.NewSyncer(&tr, func(context.Context) error { return nil }, f).Sync(context.Background()))
			assert.Empty(t, tr.Pending())
			require.Len(t, f.Calls(), 1)
		})
	}
}

// TestSetEndpointsRefusesPortZero: no flow is NATed to port 0, so an endpoint with port 0
// would make reconcile mode judge every flow of its service stale. It is refused, and
// nothing changes.
func TestSetEndpointsRefusesPortZero(t *testing.T) {
	tr := conntrackorder.NewTracker()
	svc := netip.MustParseAddr("172.30.0.10")
	good := netip.MustParseAddrPort("10.180.0.7:53")
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "ns/dns:dns", Protocol: conntrackorder.UDP, Port: 53,
		ClusterIPs: []netip.Addr{svc}}))
	require.NoError(t, tr.SetEndpoints("ns/dns:dns", []netip.AddrPort{good}))
	before, desired := tr.Pending(), tr.Desired()

	err := tr.SetEndpoints("ns/dns:dns", []netip.AddrPort{good, netip.MustParseAddrPort("10.180.0.8:0")})
	require.EqualError(t, err, `conntrackorder: endpoints of "ns/dns:dns": endpoint 10.180.0.8 has port 0`)
	assert.Equal(t, before, tr.Pending())
	assert.Same(t, desired, tr.Desired(), "the state changed")
	assert.False(t, tr.Desired().Contradicts(conntrackorder.Flow{Protocol: conntrackorder.UDP,
		OrigDst: netip.AddrPortFrom(svc, 53), ReplySrc: good}))
	assert.Error(t, tr.SetEndpoints("ns/other:dns", []netip.AddrPort{netip.MustParseAddrPort("10.180.0.9:0")}),
		"endpoints of a service port not known yet are checked too")
}
