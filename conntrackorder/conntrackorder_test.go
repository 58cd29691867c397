package conntrackorder_test

import (
	"context"
	"fmt"
	"net/netip"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/conntrackorder/conntrackordertest"
	"github.com/safereconcile/safereconcile/conntrackorder/ctexec"
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

// BenchmarkEndpointChangeSync measures one endpoint change and one Sync made by NewSyncer on
// a Tracker that holds many UDP services with endpoints. The cost must follow the change, not
// the number of services: compare the sub-benchmarks.
//
// Instructions per op, counted with callgrind (valgrind 3.19, Go 1.26) as the difference
// between 1000000 and 200000 iterations over 800000, medians of 3 runs; with GOGC=off, which
// do not vary, between 20000 and 2 iterations over 19998:
//
//	go test -c -o /tmp/ct.test ./conntrackorder
//	for n in 100 10000; do for i in 200000 1000000; do
//		GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind \
//			/tmp/ct.test -test.run '^$' -test.bench "EndpointChangeSync/services=$n\$" -test.benchtime ${i}x
//	done; done
//
//	                      services=100        services=10000
//	GOGC=off              5758                5772 (1.00×)
//	with the collector    7069 (6346–7747)    8043 (7324–8177), 1.14× (per run 1.04–1.27×)
//	allocated per op      192 B, 2 allocs     192 B, 2 allocs
//
// Timed with go test -run '^$' -bench EndpointChangeSync -benchmem, six runs interleaved with
// those of the previous code, at load 0.4–0.8, Linux, 2 vCPUs, medians: 527 ns and 561 ns
// (1.07×). The code before 4ea97c3 allocated 1024 B in 10 allocations per op and took 10276
// and 10273 instructions with GOGC=off, 14641 and 16144 (1.10×) with the collector, and
// 1261 ns and 1377 ns (1.09×); timed at load 1–2, its ratio was 1.25–1.53×.
//
// The Tracker's own work does not grow with the table; the collector's does, and it is what
// varies between runs, since when a cycle starts and how long its marking overlaps the
// benchmark depend on timing. With 100 services the heap stays under the collector's 4 MB
// minimum goal, and marking it costs little; with 10,000 it is about 7 MB, mostly the
// Tracker's table, which each cycle marks, and each byte allocated per op brings the next
// cycle closer. A smaller table would not help: the cycles would come as much sooner. Fewer
// bytes per op do, hence the two allocations left, the plan handed to Flush and the endpoint
// set the Tracker keeps. A process whose heap is larger anyway pays the 10,000-service
// figure with 100 services too.
func BenchmarkEndpointChangeSync(b *testing.B) {
	for _, services := range []int{100, 10000} {
		b.Run(fmt.Sprintf("services=%d", services), func(b *testing.B) {
			tr := endpointChangeTracker(b, services)
			benchEndpointChangeSync(b, tr, conntrackorder.NewSyncer(tr, func(context.Context) error { return nil }, discard{}))
		})
	}
}

// BenchmarkEndpointChangeReconcileSync is BenchmarkEndpointChangeSync with a Sync made by
// NewReconcileSyncer, which builds the desired state of every service again after a change
// (Tracker.Desired): its cost follows the number of services by design. Counted as above,
// once, between 20000 and 2 iterations (100 services) and 202 and 2 (10,000 services): 230393
// and 53225873 instructions per op (231×), more than the ratio of services, since the
// collector marks a larger heap more often for each larger snapshot. Timed, 3 runs at load
// 0.8: 26.4 µs and 11.76 ms (445×), with 21 KB and 5.4 MB allocated per op.
func BenchmarkEndpointChangeReconcileSync(b *testing.B) {
	for _, services := range []int{100, 10000} {
		b.Run(fmt.Sprintf("services=%d", services), func(b *testing.B) {
			tr := endpointChangeTracker(b, services)
			benchEndpointChangeSync(b, tr, conntrackorder.NewReconcileSyncer(tr, func(context.Context) error { return nil }, discard{}))
		})
	}
}

// endpointChangeTracker returns a Tracker that holds services UDP services with a ClusterIP, a
// NodePort and one endpoint each, and nothing pending.
func endpointChangeTracker(b *testing.B, services int) *conntrackorder.Tracker {
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
	return tr
}

// benchEndpointChangeSync changes the endpoints of one service of tr and calls s.Sync, b.N
// times: each change replaces one endpoint, so that each Sync has filters to clear.
func benchEndpointChangeSync(b *testing.B, tr *conntrackorder.Tracker, s *conntrackorder.Syncer) {
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
}

// discard is a Flusher and Reconciler that deletes nothing, for benchmarks.
type discard struct{}

func (discard) Flush(context.Context, conntrackorder.Plan) error { return nil }

func (discard) Reconcile(context.Context, conntrackorder.Plan, *conntrackorder.Desired) error {
	return nil
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

func udpFlowTo(dst, replySrc string) conntrackorder.Flow {
	return conntrackorder.Flow{Protocol: conntrackorder.UDP, OrigDst: addrPortOf(dst), ReplySrc: addrPortOf(replySrc)}
}

func programNothing(context.Context) error { return nil }

// TestNodePortReusedByANewService: A is deleted and C takes its NodePort. "filters for
// addresses, ports and NodePorts no current UDP service port has" are handed over, so the lost
// NodePort's filter is covered by C; A's old flow to the NodePort contradicts C, C's does not.
func TestNodePortReusedByANewService(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{
		Name: "a", Protocol: protoUDP, Port: 53, ClusterIPs: []netip.Addr{addrOf("198.18.30.10")}, NodePort: 31000,
	}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{addrPortOf("198.18.2.10:53")}))
	rec := conntrackordertest.New()
	s := conntrackorder.NewReconcileSyncer(tr, programNothing, rec)
	require.NoError(t, s.Sync(context.Background()))

	tr.DeleteService("a")
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{
		Name: "c", Protocol: protoUDP, Port: 54, ClusterIPs: []netip.Addr{addrOf("198.18.30.30")}, NodePort: 31000,
	}))
	require.NoError(t, tr.SetEndpoints("c", []netip.AddrPort{addrPortOf("198.18.2.30:54")}))
	require.NoError(t, s.Sync(context.Background()))
	last := rec.Calls()[len(rec.Calls())-1]
	assert.NotContains(t, last.Plan, conntrackorder.Filter{Protocol: protoUDP, DstPort: 31000}, "C's NodePort is covered by the desired state")
	assert.Contains(t, last.Plan, conntrackorder.Filter{Protocol: protoUDP, OrigDst: addrOf("198.18.30.10"), DstPort: 53})
	assert.True(t, last.Desired.Contradicts(udpFlowTo("198.18.1.1:31000", "198.18.2.10:53")), "A's flow to the reused NodePort must go")
	assert.False(t, last.Desired.Contradicts(udpFlowTo("198.18.1.1:31000", "198.18.2.30:54")), "C's flow stays")
	assert.Nil(t, tr.Pending())
}

// TestBadInputLeavesTheTrackerAsItWas: "SetService returns an error and changes nothing" and "When
// nothing changed since the last call, Desired returns the same snapshot": a refused update
// must leave Pending and the very same Desired snapshot.
func TestBadInputLeavesTheTrackerAsItWas(t *testing.T) {
	good := conntrackorder.ServicePort{
		Name: "a", Protocol: protoUDP, Port: 53, ClusterIPs: []netip.Addr{addrOf("198.18.30.10")},
		ExternalIPs: []netip.Addr{addrOf("198.18.40.10")}, NodePort: 31000,
	}
	badServices := map[string]func(sp *conntrackorder.ServicePort){
		"mapped external IP": func(sp *conntrackorder.ServicePort) {
			sp.ExternalIPs = append(sp.ExternalIPs, addrOf("::ffff:198.18.40.11"))
		},
		"zoned LB IP":        func(sp *conntrackorder.ServicePort) { sp.LoadBalancerIPs = []netip.Addr{addrOf("fe80::1%eth0")} },
		"invalid cluster IP": func(sp *conntrackorder.ServicePort) { sp.ClusterIPs = append(sp.ClusterIPs, netip.Addr{}) },
		"unspecified v6":     func(sp *conntrackorder.ServicePort) { sp.ClusterIPs = []netip.Addr{addrOf("::")} },
		"port 0":             func(sp *conntrackorder.ServicePort) { sp.Port = 0; sp.ClusterIPs = nil },
		"protocol 0":         func(sp *conntrackorder.ServicePort) { sp.Protocol = 0 },
		"protocol 4":         func(sp *conntrackorder.ServicePort) { sp.Protocol = 4 },
		"empty name":         func(sp *conntrackorder.ServicePort) { sp.Name = "" },
	}
	for name, mutate := range badServices {
		t.Run("SetService/"+name, func(t *testing.T) {
			tr := conntrackorder.NewTracker()
			require.NoError(t, tr.SetService(good))
			require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{addrPortOf("198.18.2.10:53")}))
			wantPending, wantDesired := tr.Pending(), tr.Desired()
			sp := good
			sp.ClusterIPs = append([]netip.Addr(nil), good.ClusterIPs...)
			sp.ExternalIPs = append([]netip.Addr(nil), good.ExternalIPs...)
			sp.NodePort = 0 // would collect a lost NodePort if applied
			mutate(&sp)
			err := tr.SetService(sp)
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), "conntrackorder: "), "error %q is not package-prefixed", err)
			assert.Empty(t, cmp.Diff(wantPending, tr.Pending()))
			assert.Same(t, wantDesired, tr.Desired(), "a refused SetService changed the desired state")
		})
	}
	badEndpoints := map[string][]netip.AddrPort{
		"port 0":       {addrPortOf("198.18.2.11:53"), netip.AddrPortFrom(addrOf("198.18.2.12"), 0)},
		"mapped":       {addrPortOf("[::ffff:198.18.2.11]:53")},
		"zoned":        {netip.AddrPortFrom(addrOf("fe80::1%eth0"), 53)},
		"unspecified":  {addrPortOf("0.0.0.0:53")},
		"invalid addr": {netip.AddrPortFrom(netip.Addr{}, 53)},
	}
	for name, eps := range badEndpoints {
		t.Run("SetEndpoints/"+name, func(t *testing.T) {
			tr := conntrackorder.NewTracker()
			require.NoError(t, tr.SetService(good))
			require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{addrPortOf("198.18.2.10:53")}))
			wantPending, wantDesired := tr.Pending(), tr.Desired()
			err := tr.SetEndpoints("a", eps) // would make 198.18.2.10 gone if applied
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), "conntrackorder: "), "error %q is not package-prefixed", err)
			assert.Empty(t, cmp.Diff(wantPending, tr.Pending()))
			assert.Same(t, wantDesired, tr.Desired())
			assert.False(t, tr.Desired().Contradicts(udpFlowTo("198.18.30.10:53", "198.18.2.10:53")))

			// Refused endpoints for a name not known yet are not kept for later either.
			require.Error(t, tr.SetEndpoints("later", eps))
			require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "later", Protocol: protoUDP, Port: 54, ClusterIPs: []netip.Addr{addrOf("198.18.30.11")}}))
			assert.Empty(t, cmp.Diff(wantPending, tr.Pending()), "refused endpoints reached a later service")
		})
	}
	t.Run("DeleteService unknown", func(t *testing.T) {
		tr := conntrackorder.NewTracker()
		require.NoError(t, tr.SetService(good))
		d := tr.Desired()
		tr.DeleteService("nope")
		tr.DeleteService("")
		assert.Nil(t, tr.Pending())
		assert.Same(t, d, tr.Desired())
	})
}

// TestPendingOrderIsCollectionOrderWithinEachGroup: "first the service-IP filters ..., then the NodePort filters ...,
// then the endpoint filters ... Within each group, filters keep the order in which they were
// first collected; ... gone endpoints in ascending address order. Each filter appears once."
func TestPendingOrderIsCollectionOrderWithinEachGroup(t *testing.T) {
	tr := conntrackorder.NewTracker()
	// b first, then a: collection order, not name order, decides.
	require.NoError(t, tr.SetEndpoints("b", []netip.AddrPort{addrPortOf("198.18.2.23:80"), addrPortOf("198.18.2.21:80"), addrPortOf("198.18.2.22:80")}))
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{
		Name: "b", Protocol: protoUDP, Port: 80,
		ClusterIPs: []netip.Addr{addrOf("198.18.30.20")}, ExternalIPs: []netip.Addr{addrOf("198.18.40.20")},
		LoadBalancerIPs: []netip.Addr{addrOf("198.18.50.20")}, NodePort: 31002,
	}))
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: conntrackorder.SCTP, Port: 90, ClusterIPs: []netip.Addr{addrOf("198.18.30.10")}, NodePort: 31001}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{addrPortOf("198.18.2.10:90")}))
	require.NoError(t, tr.SetEndpoints("b", nil)) // all three gone
	// Re-collecting a pending filter does not move it.
	require.NoError(t, tr.SetEndpoints("b", []netip.AddrPort{addrPortOf("198.18.2.21:80")}))

	u, sc := conntrackorder.UDP, conntrackorder.SCTP
	want := conntrackorder.Plan{
		{Protocol: u, OrigDst: addrOf("198.18.30.20"), DstPort: 80},
		{Protocol: u, OrigDst: addrOf("198.18.40.20"), DstPort: 80},
		{Protocol: u, OrigDst: addrOf("198.18.50.20"), DstPort: 80},
		{Protocol: sc, OrigDst: addrOf("198.18.30.10"), DstPort: 90},
		{Protocol: u, DstPort: 31002},
		{Protocol: sc, DstPort: 31001},
	}
	for _, ep := range []string{"198.18.2.21", "198.18.2.22", "198.18.2.23"} {
		want = append(want,
			conntrackorder.Filter{Protocol: u, OrigDst: addrOf("198.18.30.20"), DstPort: 80, ReplySrc: addrOf(ep)},
			conntrackorder.Filter{Protocol: u, OrigDst: addrOf("198.18.40.20"), DstPort: 80, ReplySrc: addrOf(ep)},
			conntrackorder.Filter{Protocol: u, OrigDst: addrOf("198.18.50.20"), DstPort: 80, ReplySrc: addrOf(ep)},
			conntrackorder.Filter{Protocol: u, DstPort: 31002, ReplySrc: addrOf(ep)},
		)
	}
	assert.Empty(t, cmp.Diff(want, tr.Pending()))
}

// TestDualStackEndpointFamilies: "when the first endpoints of a family arrive, the
// service IPs of that family and the NodePort are cleared again", and a gone endpoint collects
// "for every service IP of the endpoint's family".
func TestDualStackEndpointFamilies(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{
		Name: "a", Protocol: protoUDP, Port: 53,
		ClusterIPs: []netip.Addr{addrOf("198.18.30.10"), addrOf("2001:db8:30::10")}, NodePort: 31000,
	}))
	rec := conntrackordertest.New()
	s := conntrackorder.NewSyncer(tr, programNothing, rec)
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{addrPortOf("198.18.2.10:53")}))
	require.NoError(t, s.Sync(context.Background()))

	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{addrPortOf("198.18.2.10:53"), addrPortOf("[2001:db8:2::10]:53")}))
	assert.Empty(t, cmp.Diff(conntrackorder.Plan{
		{Protocol: protoUDP, OrigDst: addrOf("2001:db8:30::10"), DstPort: 53},
		{Protocol: protoUDP, DstPort: 31000},
	}, tr.Pending()))
	require.NoError(t, s.Sync(context.Background()))

	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{addrPortOf("198.18.2.10:53")}))
	assert.Empty(t, cmp.Diff(conntrackorder.Plan{
		{Protocol: protoUDP, OrigDst: addrOf("2001:db8:30::10"), DstPort: 53, ReplySrc: addrOf("2001:db8:2::10")},
		{Protocol: protoUDP, DstPort: 31000, ReplySrc: addrOf("2001:db8:2::10")},
	}, tr.Pending()))
	for _, f := range tr.Pending() {
		require.NoError(t, f.Validate(), "the Tracker never produces a filter Validate refuses")
	}
}

// TestProtocolChangeClearsTheOldProtocol: a UDP service port that becomes SCTP on the same
// address and port "collects {OrigDst: IP, DstPort: old port} ... (also when its protocol
// changed)"; the desired state no longer has that UDP destination, so reconcile mode must
// hand the UDP filter over rather than drop it as covered.
func TestProtocolChangeClearsTheOldProtocol(t *testing.T) {
	tr := conntrackorder.NewTracker()
	sp := conntrackorder.ServicePort{Name: "a", Protocol: protoUDP, Port: 53, ClusterIPs: []netip.Addr{addrOf("198.18.30.10")}, NodePort: 31000}
	require.NoError(t, tr.SetService(sp))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{addrPortOf("198.18.2.10:53")}))
	rec := conntrackordertest.New()
	s := conntrackorder.NewReconcileSyncer(tr, programNothing, rec)
	require.NoError(t, s.Sync(context.Background()))
	sp.Protocol = conntrackorder.SCTP
	require.NoError(t, tr.SetService(sp))
	assert.Subset(t, tr.Pending(), conntrackorder.Plan{
		{Protocol: protoUDP, OrigDst: addrOf("198.18.30.10"), DstPort: 53},
		{Protocol: protoUDP, DstPort: 31000},
	})
	require.NoError(t, s.Sync(context.Background()))
	last := rec.Calls()[len(rec.Calls())-1]
	assert.Subset(t, last.Plan, conntrackorder.Plan{
		{Protocol: protoUDP, OrigDst: addrOf("198.18.30.10"), DstPort: 53},
		{Protocol: protoUDP, DstPort: 31000},
	}, "the lost UDP destination must be cleared")
	assert.False(t, last.Desired.Keeps(udpFlowTo("198.18.30.10:53", "198.18.2.10:53")), "an SCTP port must not keep UDP flows")
}

// TestMisuseIsRefusedWithAPrefix: the zero or nil Syncer and a nil context return a
// prefixed error and do nothing; typed-nil backends panic in the constructor with a prefix.
func TestMisuseIsRefusedWithAPrefix(t *testing.T) {
	var zero conntrackorder.Syncer
	var nilSyncer *conntrackorder.Syncer
	for name, s := range map[string]*conntrackorder.Syncer{"zero": &zero, "nil": nilSyncer} {
		for _, ctx := range []context.Context{context.Background(), nil} {
			err := s.Sync(ctx) //nolint:staticcheck // a nil context is the point
			require.Error(t, err, name)
			assert.True(t, strings.HasPrefix(err.Error(), "conntrackorder: "), "%s: %q", name, err)
		}
	}
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: protoUDP, Port: 53, ClusterIPs: []netip.Addr{addrOf("198.18.30.10")}}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{addrPortOf("198.18.2.10:53")}))
	var programmed atomic.Int32
	rec := conntrackordertest.New()
	s := conntrackorder.NewSyncer(tr, func(context.Context) error { programmed.Add(1); return nil }, rec)
	err := s.Sync(nil) //nolint:staticcheck // a nil context is the point
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "conntrackorder: "), "%q", err)
	assert.Zero(t, programmed.Load())
	assert.Empty(t, rec.Calls())
	assert.NotEmpty(t, tr.Pending())

	panicsWithPrefix := func(name string, fn func()) {
		t.Helper()
		defer func() {
			r := recover()
			require.NotNil(t, r, "%s did not panic", name)
			msg, _ := r.(string)
			if e, ok := r.(error); ok {
				msg = e.Error()
			}
			assert.True(t, strings.HasPrefix(msg, "conntrackorder: "), "%s panicked with %v", name, r)
		}()
		fn()
	}
	var nilRec *conntrackordertest.Flusher
	var nilExec *ctexec.Flusher
	panicsWithPrefix("NewSyncer(typed nil ctexec)", func() { conntrackorder.NewSyncer(tr, programNothing, nilExec) })
	panicsWithPrefix("NewSyncer(typed nil rec)", func() { conntrackorder.NewSyncer(tr, programNothing, nilRec) })
	panicsWithPrefix("NewReconcileSyncer(typed nil rec)", func() { conntrackorder.NewReconcileSyncer(tr, programNothing, nilRec) })
	panicsWithPrefix("NewSyncer(nil tracker)", func() { conntrackorder.NewSyncer(nil, programNothing, rec) })
	panicsWithPrefix("NewReconcileSyncer(nil program)", func() { conntrackorder.NewReconcileSyncer(tr, nil, rec) })
}

// TestTrackerCopiesWhatItIsGiven: "A snapshot reflects every change reported before the
// call, and never a later one": a caller that reuses its slices after SetService and
// SetEndpoints must not change the Tracker's state behind its back.
func TestTrackerCopiesWhatItIsGiven(t *testing.T) {
	tr := conntrackorder.NewTracker()
	ips := []netip.Addr{addrOf("198.18.30.10")}
	eps := []netip.AddrPort{addrPortOf("198.18.2.10:53")}
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: protoUDP, Port: 53, ClusterIPs: ips, NodePort: 31000}))
	require.NoError(t, tr.SetEndpoints("a", eps))
	pending := tr.Pending()
	ips[0], eps[0] = addrOf("198.18.30.99"), addrPortOf("198.18.2.99:53")
	assert.Empty(t, cmp.Diff(pending, tr.Pending()))
	d := tr.Desired()
	assert.True(t, d.Keeps(udpFlowTo("198.18.30.10:53", "198.18.2.10:53")))
	assert.False(t, d.Keeps(udpFlowTo("198.18.30.99:53", "198.18.2.99:53")))
	// Endpoints given for a name that is not known yet are copied too.
	later := []netip.AddrPort{addrPortOf("198.18.2.20:54")}
	require.NoError(t, tr.SetEndpoints("b", later))
	later[0] = addrPortOf("198.18.2.98:54")
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "b", Protocol: protoUDP, Port: 54, ClusterIPs: []netip.Addr{addrOf("198.18.30.20")}}))
	assert.True(t, tr.Desired().Keeps(udpFlowTo("198.18.30.20:54", "198.18.2.20:54")))
}

// TestReorderedAndDuplicatedInputCollectsNothing: "Duplicates are ignored", "The order
// of the addresses matters only for the order of the filters", "Setting a service port to the
// state it already has collects nothing", and "Each filter appears once".
func TestReorderedAndDuplicatedInputCollectsNothing(t *testing.T) {
	tr := conntrackorder.NewTracker()
	sp := conntrackorder.ServicePort{
		Name: "a", Protocol: protoUDP, Port: 53,
		ClusterIPs:      []netip.Addr{addrOf("198.18.30.10"), addrOf("2001:db8:30::10")},
		ExternalIPs:     []netip.Addr{addrOf("198.18.40.10"), addrOf("198.18.30.10")}, // also a ClusterIP
		LoadBalancerIPs: []netip.Addr{addrOf("198.18.40.10")},
		NodePort:        31000,
	}
	require.NoError(t, tr.SetService(sp))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{addrPortOf("198.18.2.10:53"), addrPortOf("198.18.2.10:53"), addrPortOf("[2001:db8:2::10]:53")}))
	assert.Empty(t, cmp.Diff(conntrackorder.Plan{
		{Protocol: protoUDP, OrigDst: addrOf("198.18.30.10"), DstPort: 53},
		{Protocol: protoUDP, OrigDst: addrOf("2001:db8:30::10"), DstPort: 53},
		{Protocol: protoUDP, OrigDst: addrOf("198.18.40.10"), DstPort: 53},
		{Protocol: protoUDP, DstPort: 31000},
	}, tr.Pending()))
	require.NoError(t, conntrackorder.NewSyncer(tr, programNothing, conntrackordertest.New()).Sync(context.Background()))

	re := sp
	re.ClusterIPs = []netip.Addr{addrOf("2001:db8:30::10"), addrOf("198.18.30.10"), addrOf("2001:db8:30::10")}
	re.ExternalIPs = []netip.Addr{addrOf("198.18.40.10")}
	re.LoadBalancerIPs = []netip.Addr{addrOf("198.18.40.10"), addrOf("198.18.40.10")}
	require.NoError(t, tr.SetService(re))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{addrPortOf("[2001:db8:2::10]:53"), addrPortOf("198.18.2.10:53")}))
	assert.Nil(t, tr.Pending(), "the same state, reordered and with duplicates, collected filters")
}

// TestEndpointPortChange: "An endpoint is its address and port; one whose port changed
// has gone." Reconcile mode deletes the flows NATed to the old port and keeps the new ones.
func TestEndpointPortChange(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: protoUDP, Port: 53, ClusterIPs: []netip.Addr{addrOf("198.18.30.10")}, NodePort: 31000}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{addrPortOf("198.18.2.10:53")}))
	require.NoError(t, conntrackorder.NewSyncer(tr, programNothing, conntrackordertest.New()).Sync(context.Background()))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{addrPortOf("198.18.2.10:5353")}))
	assert.Empty(t, cmp.Diff(conntrackorder.Plan{
		{Protocol: protoUDP, OrigDst: addrOf("198.18.30.10"), DstPort: 53, ReplySrc: addrOf("198.18.2.10")},
		{Protocol: protoUDP, DstPort: 31000, ReplySrc: addrOf("198.18.2.10")},
	}, tr.Pending()))
	d := tr.Desired()
	assert.True(t, d.Contradicts(udpFlowTo("198.18.30.10:53", "198.18.2.10:53")))
	assert.True(t, d.Contradicts(udpFlowTo("198.18.1.1:31000", "198.18.2.10:53")))
	assert.True(t, d.Keeps(udpFlowTo("198.18.30.10:53", "198.18.2.10:5353")))
	assert.False(t, d.Contradicts(udpFlowTo("198.18.1.1:31000", "198.18.2.10:5353")))
}

// TestEndpointsBeforeServiceAndRecreation: endpoints may arrive first, may be withdrawn
// before the service arrives, and survive DeleteService ("a service re-created under the same
// name starts with them").
func TestEndpointsBeforeServiceAndRecreation(t *testing.T) {
	sp := conntrackorder.ServicePort{Name: "a", Protocol: protoUDP, Port: 53, ClusterIPs: []netip.Addr{addrOf("198.18.30.10")}, NodePort: 31000}
	t.Run("withdrawn before the service", func(t *testing.T) {
		tr := conntrackorder.NewTracker()
		require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{addrPortOf("198.18.2.10:53")}))
		require.NoError(t, tr.SetEndpoints("a", nil))
		require.NoError(t, tr.SetService(sp))
		assert.Nil(t, tr.Pending())
		assert.True(t, tr.Desired().Contradicts(udpFlowTo("198.18.30.10:53", "198.18.2.10:53")), "the service has no endpoints")
	})
	t.Run("re-created", func(t *testing.T) {
		tr := conntrackorder.NewTracker()
		require.NoError(t, tr.SetService(sp))
		require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{addrPortOf("198.18.2.10:53")}))
		require.NoError(t, conntrackorder.NewSyncer(tr, programNothing, conntrackordertest.New()).Sync(context.Background()))
		tr.DeleteService("a")
		assert.Empty(t, cmp.Diff(conntrackorder.Plan{
			{Protocol: protoUDP, OrigDst: addrOf("198.18.30.10"), DstPort: 53},
			{Protocol: protoUDP, DstPort: 31000},
		}, tr.Pending()))
		assert.False(t, tr.Desired().Keeps(udpFlowTo("198.18.30.10:53", "198.18.2.10:53")))
		re := sp
		re.ClusterIPs = []netip.Addr{addrOf("198.18.30.11")}
		require.NoError(t, tr.SetService(re))
		assert.Empty(t, cmp.Diff(conntrackorder.Plan{
			{Protocol: protoUDP, OrigDst: addrOf("198.18.30.10"), DstPort: 53},
			{Protocol: protoUDP, OrigDst: addrOf("198.18.30.11"), DstPort: 53},
			{Protocol: protoUDP, DstPort: 31000},
		}, tr.Pending()))
		assert.True(t, tr.Desired().Keeps(udpFlowTo("198.18.30.11:53", "198.18.2.10:53")))
	})
}

// TestMultiProtocolServiceOnOneAddress: a UDP and an SCTP service port on the same
// ClusterIP and port. Reconcile mode hands over "every SCTP filter": the UDP port's presence in
// the desired state must not make the SCTP filters look covered.
func TestMultiProtocolServiceOnOneAddress(t *testing.T) {
	tr := conntrackorder.NewTracker()
	ip := []netip.Addr{addrOf("198.18.30.10")}
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "ns/a:udp", Protocol: protoUDP, Port: 53, ClusterIPs: ip, NodePort: 31000}))
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "ns/a:sctp", Protocol: conntrackorder.SCTP, Port: 53, ClusterIPs: ip, NodePort: 31001}))
	eps := []netip.AddrPort{addrPortOf("198.18.2.10:53")}
	require.NoError(t, tr.SetEndpoints("ns/a:udp", eps))
	require.NoError(t, tr.SetEndpoints("ns/a:sctp", eps))
	rec := conntrackordertest.New()
	s := conntrackorder.NewReconcileSyncer(tr, programNothing, rec)
	require.NoError(t, s.Sync(context.Background()))
	require.NoError(t, tr.SetEndpoints("ns/a:sctp", nil))
	d1 := tr.Desired()
	require.NoError(t, s.Sync(context.Background()))
	last := rec.Calls()[len(rec.Calls())-1]
	sc := conntrackorder.SCTP
	assert.Empty(t, cmp.Diff(conntrackorder.Plan{
		{Protocol: sc, OrigDst: addrOf("198.18.30.10"), DstPort: 53, ReplySrc: addrOf("198.18.2.10")},
		{Protocol: sc, DstPort: 31001, ReplySrc: addrOf("198.18.2.10")},
	}, last.Plan))
	assert.Nil(t, tr.Pending())
	assert.Same(t, d1, tr.Desired(), "a Sync changes no desired state")
}

// TestUpdateCostDoesNotFollowTheServices: "The cost of an update follows the size of the
// change, and the cost of Tracker.Pending the number of pending filters, not the number of
// services held." One service's endpoints flapping, and Pending, allocate as much with 5,000
// other services held as with 10.
func TestUpdateCostDoesNotFollowTheServices(t *testing.T) {
	measure := func(services int) float64 {
		tr := conntrackorder.NewTracker()
		for i := 0; i < services; i++ {
			ip := netip.AddrFrom4([4]byte{198, 18, byte(30 + i/250), byte(1 + i%250)})
			name := "svc" + string(rune('A'+i%26)) + netip.AddrPortFrom(ip, 0).String()
			if i == 0 {
				name = "flapping"
			}
			require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: name, Protocol: protoUDP, Port: 53, ClusterIPs: []netip.Addr{ip}, NodePort: uint16(30000 + i%2000)}))
			require.NoError(t, tr.SetEndpoints(name, []netip.AddrPort{netip.AddrPortFrom(netip.AddrFrom4([4]byte{198, 19, byte(i / 250), byte(1 + i%250)}), 53)}))
		}
		require.NoError(t, conntrackorder.NewSyncer(tr, programNothing, conntrackordertest.New()).Sync(context.Background()))
		a := []netip.AddrPort{addrPortOf("198.18.2.1:53")}
		b := []netip.AddrPort{addrPortOf("198.18.2.2:53")}
		flap := func() {
			require.NoError(t, tr.SetEndpoints("flapping", a))
			require.NoError(t, tr.SetEndpoints("flapping", b))
			_ = tr.Pending()
		}
		flap()
		var before, after runtime.MemStats
		const runs = 20
		runtime.ReadMemStats(&before)
		for i := 0; i < runs; i++ {
			flap()
		}
		runtime.ReadMemStats(&after)
		return float64(after.TotalAlloc-before.TotalAlloc) / runs
	}
	small, big := measure(10), measure(5000)
	t.Logf("bytes per flap and Pending: %v with 10 services, %v with 5000", small, big)
	assert.Less(t, big, 2*small+4096, "an update's cost grows with the services held: %v bytes with 10, %v with 5000", small, big)
}

// TestGoneEndpointsInAddressOrderAcrossFamilies: "gone endpoints in ascending address
// order", each with "every service IP of the endpoint's family, then {DstPort: NodePort,
// ReplySrc: endpoint IP}", also when the last endpoints of both families go at once.
func TestGoneEndpointsInAddressOrderAcrossFamilies(t *testing.T) {
	tr := conntrackorder.NewTracker()
	v4, v6 := addrOf("198.18.30.10"), addrOf("2001:db8:30::10")
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: protoUDP, Port: 53, ClusterIPs: []netip.Addr{v6, v4}, NodePort: 31000}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{addrPortOf("[2001:db8:2::1]:53"), addrPortOf("198.18.2.20:53"), addrPortOf("198.18.2.3:53")}))
	require.NoError(t, conntrackorder.NewSyncer(tr, programNothing, conntrackordertest.New()).Sync(context.Background()))
	require.NoError(t, tr.SetEndpoints("a", nil))
	f := func(dst netip.Addr, port uint16, ep string) conntrackorder.Filter {
		return conntrackorder.Filter{Protocol: protoUDP, OrigDst: dst, DstPort: port, ReplySrc: addrOf(ep)}
	}
	assert.Empty(t, cmp.Diff(conntrackorder.Plan{
		f(v4, 53, "198.18.2.3"), f(netip.Addr{}, 31000, "198.18.2.3"),
		f(v4, 53, "198.18.2.20"), f(netip.Addr{}, 31000, "198.18.2.20"),
		f(v6, 53, "2001:db8:2::1"), f(netip.Addr{}, 31000, "2001:db8:2::1"),
	}, tr.Pending()))
}

// TestLossWithoutEndpoints: a service port that never had endpoints still collects its
// lost addresses, port and NodePort ("whether or not it had endpoints"), and DeleteService
// collects for each of its addresses: an un-NATed entry left while it had no endpoints would
// otherwise catch the next service on that address. TCP collects nothing.
func TestLossWithoutEndpoints(t *testing.T) {
	tr := conntrackorder.NewTracker()
	sp := conntrackorder.ServicePort{Name: "a", Protocol: protoUDP, Port: 53, ClusterIPs: []netip.Addr{addrOf("198.18.30.10")}, ExternalIPs: []netip.Addr{addrOf("198.18.40.10")}, NodePort: 31000}
	require.NoError(t, tr.SetService(sp))
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "t", Protocol: conntrackorder.TCP, Port: 53, ClusterIPs: []netip.Addr{addrOf("198.18.30.11")}, NodePort: 31001}))
	assert.Nil(t, tr.Pending())
	changed := sp
	changed.ExternalIPs, changed.NodePort, changed.Port = nil, 31002, 54
	require.NoError(t, tr.SetService(changed))
	assert.Empty(t, cmp.Diff(conntrackorder.Plan{
		{Protocol: protoUDP, OrigDst: addrOf("198.18.30.10"), DstPort: 53},
		{Protocol: protoUDP, OrigDst: addrOf("198.18.40.10"), DstPort: 53},
		{Protocol: protoUDP, DstPort: 31000},
	}, tr.Pending()))
	tr.DeleteService("a")
	tr.DeleteService("t")
	assert.Empty(t, cmp.Diff(conntrackorder.Plan{
		{Protocol: protoUDP, OrigDst: addrOf("198.18.30.10"), DstPort: 53},
		{Protocol: protoUDP, OrigDst: addrOf("198.18.40.10"), DstPort: 53},
		{Protocol: protoUDP, OrigDst: addrOf("198.18.30.10"), DstPort: 54},
		{Protocol: protoUDP, DstPort: 31000},
		{Protocol: protoUDP, DstPort: 31002},
	}, tr.Pending()))
}

var (
	addrOf     = netip.MustParseAddr
	addrPortOf = netip.MustParseAddrPort
	protoUDP   = conntrackorder.UDP
)
