package conntrackorder_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"net/netip"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/safereconcile/safereconcile/conntrackorder"
)

// This file checks the Tracker and Syncer, in flush mode and in reconcile mode, against two
// oracles, over random sequences of updates, Syncs with injected program and flush failures,
// updates that arrive during a Sync, and traffic:
//
//   - a reference model that restates the rules as a comparison of a service port's whole
//     state before and after each update, and keeps the pending list the simplest way;
//   - a simulated dataplane: the rules program installs (a copy of the model's state when
//     program runs), a conntrack table that datagrams fill through those rules, and flushes
//     that delete from it. After every Sync that succeeded with no update during it, no flow
//     may be blackholed (not NATed though a rule NATs its destination) or stale (NATed to a
//     backend its destination no longer has). This oracle knows nothing of the rules of
//     collection; it states what the rules are for.
//
// In reconcile mode the model also restates which filters the desired state covers and which
// flows it contradicts, the Reconciler checks Desired.Contradicts against that for every flow
// it can build from the model's addresses, and a reconcile must not delete a UDP flow NATed
// to a backend the rules it ran after still NAT its destination to (kubernetes#122740).

var (
	modelNames = []string{"ns/a:p", "ns/b:p", "ns/c:p"}
	modelIPs   = mustAddrs("172.30.0.1", "172.30.0.2", "192.168.99.1", "fd00::1", "fd00::2")
	modelPorts = []uint16{53, 80}
	// NodePort 80 is also a service port: a filter for it as a lost NodePort selects the
	// flows of the services with port 80 too.
	modelNPs     = []uint16{0, 30053, 30080, 80}
	modelEPs     = mustAddrPorts("10.0.0.1:8080", "10.0.0.2:8080", "10.0.0.1:9090", "[fd00:e::1]:8080", "[fd00:e::2]:8080")
	modelNodeIPs = mustAddrs("198.18.0.1", "fd00:18::1")
	modelClients = mustAddrPorts("198.19.0.1:1000", "198.19.0.1:1001", "[fd00:c::1]:1000", "[fd00:c::1]:1001")
	modelProtos  = []conntrackorder.Protocol{conntrackorder.UDP, conntrackorder.UDP, conntrackorder.SCTP, conntrackorder.TCP}
)

func mustAddrs(s ...string) []netip.Addr {
	out := make([]netip.Addr, len(s))
	for i, a := range s {
		out[i] = netip.MustParseAddr(a)
	}
	return out
}

func mustAddrPorts(s ...string) []netip.AddrPort {
	out := make([]netip.AddrPort, len(s))
	for i, a := range s {
		out[i] = netip.MustParseAddrPort(a)
	}
	return out
}

// modelService is a service port as the model keeps it: addresses de-duplicated, in order.
type modelService struct {
	proto          conntrackorder.Protocol
	port, nodePort uint16
	ips            []netip.Addr
}

func (s *modelService) hasIP(ip netip.Addr) bool {
	for _, a := range s.ips {
		if a == ip {
			return true
		}
	}
	return false
}

// modelState is what the proxy knows: the state program installs rules for.
type modelState struct {
	services map[string]*modelService
	eps      map[string]map[netip.AddrPort]bool
}

func (s modelState) clone() modelState {
	c := modelState{services: map[string]*modelService{}, eps: map[string]map[netip.AddrPort]bool{}}
	for n, svc := range s.services {
		cp := *svc
		c.services[n] = &cp
	}
	for n, eps := range s.eps {
		c.eps[n] = map[netip.AddrPort]bool{}
		for e := range eps {
			c.eps[n][e] = true
		}
	}
	return c
}

type modelPending struct {
	f           conntrackorder.Filter
	first, last int
}

// model is the reference: state plus an ordered pending list.
type model struct {
	state   modelState
	pending []modelPending // in order of first collection
	clock   int
}

func (m *model) collect(f conntrackorder.Filter) {
	m.clock++
	for i := range m.pending {
		if m.pending[i].f == f {
			m.pending[i].last = m.clock
			return
		}
	}
	m.pending = append(m.pending, modelPending{f, m.clock, m.clock})
}

func modelGroup(f conntrackorder.Filter) int {
	if f.ReplySrc.IsValid() {
		return 2
	}
	if f.OrigDst.IsValid() {
		return 0
	}
	return 1
}

func (m *model) snapshot() (conntrackorder.Plan, int) {
	var plan conntrackorder.Plan
	for g := 0; g < 3; g++ {
		for _, p := range m.pending {
			if modelGroup(p.f) == g {
				plan = append(plan, p.f)
			}
		}
	}
	return plan, m.clock
}

func (m *model) flushed(mark int) {
	kept := m.pending[:0]
	for _, p := range m.pending {
		if p.last > mark {
			kept = append(kept, p)
		}
	}
	m.pending = kept
}

func flushes(p conntrackorder.Protocol) bool {
	return p == conntrackorder.UDP || p == conntrackorder.SCTP
}

func sameEps(a, b map[netip.AddrPort]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for e := range a {
		if !b[e] {
			return false
		}
	}
	return true
}

func hasFamily(eps map[netip.AddrPort]bool, v4 bool) bool {
	for e := range eps {
		if e.Addr().Is4() == v4 {
			return true
		}
	}
	return false
}

// update applies one change to the state of name and collects what the rules say the change
// from the state before to the state after needs.
func (m *model) update(name string, change func(s modelState)) {
	bSvc, bEps := m.state.services[name], m.state.eps[name]
	if bSvc != nil {
		cp := *bSvc
		bSvc = &cp
	}
	change(m.state)
	aSvc, aEps := m.state.services[name], m.state.eps[name]

	// Lost: what the service port had and no longer has.
	if bSvc != nil && flushes(bSvc.proto) {
		keeps := aSvc != nil && aSvc.proto == bSvc.proto
		for _, ip := range bSvc.ips {
			if !(keeps && aSvc.port == bSvc.port && aSvc.hasIP(ip)) {
				m.collect(conntrackorder.Filter{Protocol: bSvc.proto, OrigDst: ip, DstPort: bSvc.port})
			}
		}
		if bSvc.nodePort != 0 && !(keeps && aSvc.nodePort == bSvc.nodePort) {
			m.collect(conntrackorder.Filter{Protocol: bSvc.proto, DstPort: bSvc.nodePort})
		}
	}
	// Gained: serving endpoints from none to some, in all or in one address family, for the
	// addresses and NodePort the service port has. A service port that only changed gains
	// nothing (the contract lists only what it lost).
	same := bSvc != nil && aSvc != nil && bSvc.proto == aSvc.proto
	if aSvc != nil && flushes(aSvc.proto) && len(aEps) > 0 && (!same || !sameEps(bEps, aEps)) {
		fromNone := !same || len(bEps) == 0
		for _, ip := range aSvc.ips {
			before := same && hasFamily(bEps, ip.Is4())
			if fromNone || (hasFamily(aEps, ip.Is4()) && !before) {
				m.collect(conntrackorder.Filter{Protocol: aSvc.proto, OrigDst: ip, DstPort: aSvc.port})
			}
		}
		if aSvc.nodePort != 0 {
			gained := fromNone
			for _, v4 := range []bool{true, false} {
				before := same && hasFamily(bEps, v4)
				gained = gained || (hasFamily(aEps, v4) && !before)
			}
			if gained {
				m.collect(conntrackorder.Filter{Protocol: aSvc.proto, DstPort: aSvc.nodePort})
			}
		}
	}
	// Vanished: serving endpoints gone while the service port stayed as it was.
	if bSvc != nil && aSvc != nil && flushes(aSvc.proto) && cmp.Equal(*bSvc, *aSvc, cmp.AllowUnexported(modelService{}), cmp.Comparer(func(a, b netip.Addr) bool { return a == b })) {
		var gone []netip.AddrPort
		for e := range bEps {
			if !aEps[e] {
				gone = append(gone, e)
			}
		}
		sort.Slice(gone, func(i, j int) bool {
			if gone[i].Addr() != gone[j].Addr() {
				return gone[i].Addr().Less(gone[j].Addr())
			}
			return gone[i].Port() < gone[j].Port()
		})
		for _, e := range gone {
			for _, ip := range aSvc.ips {
				if ip.Is4() == e.Addr().Is4() {
					m.collect(conntrackorder.Filter{Protocol: aSvc.proto, OrigDst: ip, DstPort: aSvc.port, ReplySrc: e.Addr()})
				}
			}
			if aSvc.nodePort != 0 {
				m.collect(conntrackorder.Filter{Protocol: aSvc.proto, DstPort: aSvc.nodePort, ReplySrc: e.Addr()})
			}
		}
	}
}

// covers restates which filters a reconcile against the desired state s makes unnecessary: a
// UDP filter whose address and port, or without address whose NodePort, a UDP service port of
// s has.
func (s modelState) covers(f conntrackorder.Filter) bool {
	if f.Protocol != conntrackorder.UDP || f.DstPort == 0 {
		return false
	}
	for _, svc := range s.services {
		if svc.proto != conntrackorder.UDP {
			continue
		}
		if f.OrigDst.IsValid() && svc.port == f.DstPort && svc.hasIP(f.OrigDst) {
			return true
		}
		if !f.OrigDst.IsValid() && svc.nodePort == f.DstPort {
			return true
		}
	}
	return false
}

// prune is the plan a reconcile-mode Sync hands over: the filters s does not cover.
func (s modelState) prune(plan conntrackorder.Plan) conntrackorder.Plan {
	var rest conntrackorder.Plan
	for _, f := range plan {
		if !s.covers(f) {
			rest = append(rest, f)
		}
	}
	return rest
}

// judgesSomething reports whether some flow may contradict s: it has a UDP service port with
// an address or a NodePort.
func (s modelState) judgesSomething() bool {
	for _, svc := range s.services {
		if svc.proto == conntrackorder.UDP && (len(svc.ips) > 0 || svc.nodePort != 0) {
			return true
		}
	}
	return false
}

// contradicts restates Desired.Contradicts: a UDP flow to a service address and port, or else
// to a NodePort on any address, whose reply source is no serving endpoint of a service port
// that claims that destination.
func (s modelState) contradicts(f conntrackorder.Flow) bool {
	judged, serving := s.judge(f)
	return judged && !serving
}

// keeps restates Desired.Keeps: a UDP flow to a service address and port whose reply source
// is a serving endpoint of a service port that claims that destination. A flow recognized
// only by its NodePort is not kept.
func (s modelState) keeps(f conntrackorder.Flow) bool {
	if f.Protocol != conntrackorder.UDP {
		return false
	}
	for name, svc := range s.services {
		if svc.proto == conntrackorder.UDP && svc.port == f.OrigDst.Port() && svc.hasIP(f.OrigDst.Addr()) && s.eps[name][f.ReplySrc] {
			return true
		}
	}
	return false
}

// judge reports whether some UDP service port claims f's destination, and whether f's reply
// source is a serving endpoint of one that does.
func (s modelState) judge(f conntrackorder.Flow) (judged, serving bool) {
	if f.Protocol != conntrackorder.UDP || !f.OrigDst.Addr().IsValid() {
		return false, false
	}
	var owners []string
	for name, svc := range s.services {
		if svc.proto == conntrackorder.UDP && svc.port == f.OrigDst.Port() && svc.hasIP(f.OrigDst.Addr()) {
			owners = append(owners, name)
		}
	}
	if len(owners) == 0 {
		for name, svc := range s.services {
			if svc.proto == conntrackorder.UDP && svc.nodePort != 0 && svc.nodePort == f.OrigDst.Port() {
				owners = append(owners, name)
			}
		}
	}
	if len(owners) == 0 {
		return false, false
	}
	for _, name := range owners {
		if s.eps[name][f.ReplySrc] {
			return true, true
		}
	}
	return true, false
}

// flow is one conntrack entry of the simulated dataplane.
type flow struct {
	proto    conntrackorder.Protocol
	client   netip.AddrPort
	dst      netip.Addr
	dport    uint16
	replySrc netip.AddrPort // the endpoint it was NATed to; dst:dport when it was not NATed
}

// desc describes f for Desired.Contradicts.
func (f flow) desc() conntrackorder.Flow {
	return conntrackorder.Flow{Protocol: f.proto, OrigDst: netip.AddrPortFrom(f.dst, f.dport), ReplySrc: f.replySrc}
}

type flowKey struct {
	proto  conntrackorder.Protocol
	client netip.AddrPort
	dst    netip.Addr
	dport  uint16
}

// dataplane holds the rules last programmed and the conntrack table.
type dataplane struct {
	rules modelState
	table map[flowKey]flow
}

// backends returns the endpoints the rules NAT proto traffic to dst:dport to, and whether a
// service port owns that destination at all.
func (d *dataplane) backends(proto conntrackorder.Protocol, dst netip.Addr, dport uint16) ([]netip.AddrPort, bool) {
	isNode := dst == modelNodeIPs[0] || dst == modelNodeIPs[1]
	for _, name := range modelNames {
		svc := d.rules.services[name]
		if svc == nil || svc.proto != proto {
			continue
		}
		if (isNode && svc.nodePort != 0 && svc.nodePort == dport) || (!isNode && svc.port == dport && svc.hasIP(dst)) {
			var out []netip.AddrPort
			for e := range d.rules.eps[name] {
				if e.Addr().Is4() == dst.Is4() {
					out = append(out, e)
				}
			}
			sort.Slice(out, func(i, j int) bool {
				if out[i].Addr() != out[j].Addr() {
					return out[i].Addr().Less(out[j].Addr())
				}
				return out[i].Port() < out[j].Port()
			})
			return out, true
		}
	}
	return nil, false
}

// send delivers one datagram: it follows its flow's entry if there is one, and otherwise
// creates an entry through the rules, NATed to a backend when they have one for it.
func (d *dataplane) send(k flowKey, pick int) {
	if _, ok := d.table[k]; ok {
		return
	}
	f := flow{proto: k.proto, client: k.client, dst: k.dst, dport: k.dport, replySrc: netip.AddrPortFrom(k.dst, k.dport)}
	if backends, _ := d.backends(k.proto, k.dst, k.dport); len(backends) > 0 {
		f.replySrc = backends[pick%len(backends)]
	}
	d.table[k] = f
}

func matches(flt conntrackorder.Filter, f flow) bool {
	return flt.Protocol == f.proto &&
		(!flt.OrigDst.IsValid() || flt.OrigDst == f.dst) &&
		(flt.DstPort == 0 || flt.DstPort == f.dport) &&
		(!flt.ReplySrc.IsValid() || flt.ReplySrc == f.replySrc.Addr())
}

func (d *dataplane) flush(plan conntrackorder.Plan) {
	for k, f := range d.table {
		for _, flt := range plan {
			if matches(flt, f) {
				delete(d.table, k)
				break
			}
		}
	}
}

// violations lists the flows that the rules programmed last contradict.
func (d *dataplane) violations() []string {
	var out []string
	for _, f := range d.table {
		backends, _ := d.backends(f.proto, f.dst, f.dport)
		nated := f.replySrc != netip.AddrPortFrom(f.dst, f.dport)
		switch {
		case len(backends) > 0 && !nated:
			out = append(out, fmt.Sprintf("blackholed: %v %v -> %v:%d is not NATed, the rules NAT it to %v", f.proto, f.client, f.dst, f.dport, backends))
		case len(backends) > 0 && !containsAddrPort(backends, f.replySrc):
			out = append(out, fmt.Sprintf("stale backend: %v %v -> %v:%d goes to %v, the rules NAT it to %v", f.proto, f.client, f.dst, f.dport, f.replySrc, backends))
		case len(backends) == 0 && nated:
			out = append(out, fmt.Sprintf("stale NAT: %v %v -> %v:%d goes to %v, the rules NAT it nowhere", f.proto, f.client, f.dst, f.dport, f.replySrc))
		}
	}
	sort.Strings(out)
	return out
}

func containsAddrPort(list []netip.AddrPort, a netip.AddrPort) bool {
	for _, b := range list {
		if a == b {
			return true
		}
	}
	return false
}

// byteReader hands out the bytes of a fuzz input, then zeros.
type byteReader struct {
	data []byte
	i    int
}

func (r *byteReader) next() int {
	if r.i >= len(r.data) {
		return 0
	}
	b := r.data[r.i]
	r.i++
	return int(b)
}

func (r *byteReader) more() bool { return r.i < len(r.data) }

// modelRun drives a Tracker, a Syncer, the model and the dataplane from one input.
type modelRun struct {
	t       testing.TB
	in      *byteReader
	tracker *conntrackorder.Tracker
	syncer  *conntrackorder.Syncer
	model   model
	dp      dataplane
	log     []string

	reconcileMode bool
	snapState     modelState // the model's state when the running Sync took its snapshot

	// set per Sync
	programErr, flushErr error
	injectInProgram      bool // an update arrives during program, before it reads the state
	injectAfterProgram   bool // an update arrives after program read the state
	injectInFlush        bool // an update arrives during the flush
	trafficInSync        bool // datagrams arrive during program and during the flush
	injected             bool
	injectedBeforeRules  bool // an update arrived before program read the state
	flushCalls           int
	flushedPlan          conntrackorder.Plan
}

type flushFunc func(ctx context.Context, plan conntrackorder.Plan) error

func (f flushFunc) Flush(ctx context.Context, plan conntrackorder.Plan) error { return f(ctx, plan) }

type reconcileFunc func(ctx context.Context, plan conntrackorder.Plan, desired *conntrackorder.Desired) error

func (f reconcileFunc) Reconcile(ctx context.Context, plan conntrackorder.Plan, desired *conntrackorder.Desired) error {
	return f(ctx, plan, desired)
}

var (
	errModelProgram = errors.New("iptables-restore: injected failure")
	errModelFlush   = errors.New("conntrack: injected failure")
)

// checkModel runs one input in flush mode (NewSyncer) or in reconcile mode
// (NewReconcileSyncer).
func checkModel(t testing.TB, data []byte, reconcileMode bool) {
	r := &modelRun{
		t:             t,
		in:            &byteReader{data: data},
		tracker:       conntrackorder.NewTracker(),
		model:         model{state: modelState{services: map[string]*modelService{}, eps: map[string]map[netip.AddrPort]bool{}}},
		reconcileMode: reconcileMode,
	}
	r.dp = dataplane{rules: r.model.state.clone(), table: map[flowKey]flow{}}
	if reconcileMode {
		r.syncer = conntrackorder.NewReconcileSyncer(r.tracker, r.program, reconcileFunc(r.reconcile))
	} else {
		r.syncer = conntrackorder.NewSyncer(r.tracker, r.program, flushFunc(r.flush))
	}
	for steps := 0; r.in.more() && steps < 400; steps++ {
		switch op := r.in.next() % 10; op {
		case 0, 1:
			r.setService()
		case 2:
			r.deleteService()
		case 3, 4:
			r.setEndpoints()
		case 5:
			r.badInput()
		case 6, 7:
			r.sync()
		default:
			r.traffic()
		}
		r.comparePending()
	}
	// Every filter collected is flushed by a Sync that succeeds.
	r.in = &byteReader{}
	r.sync()
	r.comparePending()
	if got := r.tracker.Pending(); len(got) != 0 {
		r.fail("pending after a successful Sync with no updates: %v", got)
	}
}

func (r *modelRun) fail(format string, args ...any) {
	r.t.Helper()
	r.t.Fatalf("%s\nafter:\n  %s", fmt.Sprintf(format, args...), strings.Join(r.log, "\n  "))
}

func (r *modelRun) comparePending() {
	r.t.Helper()
	want, _ := r.model.snapshot()
	got := r.tracker.Pending()
	if diff := cmp.Diff(want, got); diff != "" {
		r.fail("Pending (-model +tracker):\n%s", diff)
	}
	for _, f := range got {
		if err := f.Validate(); err != nil {
			r.fail("the tracker produced a filter a backend must refuse: %v", err)
		}
	}
}

// conflicts reports whether another service port than name already owns proto ip:port.
func (r *modelRun) conflicts(name string, proto conntrackorder.Protocol, ip netip.Addr, port uint16) bool {
	for n, s := range r.model.state.services {
		if n != name && s.proto == proto && s.port == port && s.hasIP(ip) {
			return true
		}
	}
	return false
}

func (r *modelRun) nodePortTaken(name string, proto conntrackorder.Protocol, np uint16) bool {
	for n, s := range r.model.state.services {
		if n != name && s.proto == proto && s.nodePort == np {
			return true
		}
	}
	return false
}

func (r *modelRun) setService() {
	name := modelNames[r.in.next()%len(modelNames)]
	sp := conntrackorder.ServicePort{
		Name:     name,
		Protocol: modelProtos[r.in.next()%len(modelProtos)],
		Port:     modelPorts[r.in.next()%len(modelPorts)],
		NodePort: modelNPs[r.in.next()%len(modelNPs)],
	}
	// Each address is left out, or listed as a cluster, external or load balancer IP; an
	// address another service port owns is left out, as the API server would.
	svc := &modelService{proto: sp.Protocol, port: sp.Port}
	for _, ip := range modelIPs {
		kind := r.in.next() % 5
		if kind == 0 || r.conflicts(name, sp.Protocol, ip, sp.Port) {
			continue
		}
		switch kind {
		case 1, 4:
			sp.ClusterIPs = append(sp.ClusterIPs, ip)
		case 2:
			sp.ExternalIPs = append(sp.ExternalIPs, ip)
		case 3:
			sp.LoadBalancerIPs = append(sp.LoadBalancerIPs, ip, ip) // a duplicate
		}
	}
	if sp.NodePort != 0 && r.nodePortTaken(name, sp.Protocol, sp.NodePort) {
		sp.NodePort = 0
	}
	svc.nodePort = sp.NodePort
	for _, list := range [][]netip.Addr{sp.ClusterIPs, sp.ExternalIPs, sp.LoadBalancerIPs} {
		for _, ip := range list {
			if !svc.hasIP(ip) {
				svc.ips = append(svc.ips, ip)
			}
		}
	}
	r.log = append(r.log, fmt.Sprintf("SetService(%s %v port %d nodePort %d cluster %v external %v lb %v)",
		name, sp.Protocol, sp.Port, sp.NodePort, sp.ClusterIPs, sp.ExternalIPs, sp.LoadBalancerIPs))
	r.model.update(name, func(s modelState) { s.services[name] = svc })
	if err := r.tracker.SetService(sp); err != nil {
		r.fail("SetService: %v", err)
	}
}

func (r *modelRun) deleteService() {
	name := modelNames[r.in.next()%len(modelNames)]
	r.log = append(r.log, fmt.Sprintf("DeleteService(%s)", name))
	r.model.update(name, func(s modelState) { delete(s.services, name) })
	r.tracker.DeleteService(name)
}

func (r *modelRun) setEndpoints() {
	name := modelNames[r.in.next()%len(modelNames)]
	bits := r.in.next()
	var eps []netip.AddrPort
	set := map[netip.AddrPort]bool{}
	for i, e := range modelEPs {
		if bits&(1<<i) != 0 {
			eps = append(eps, e)
			set[e] = true
		}
	}
	if bits&0x80 != 0 && len(eps) > 0 {
		eps = append(eps, eps[0]) // a duplicate
	}
	r.log = append(r.log, fmt.Sprintf("SetEndpoints(%s, %v)", name, eps))
	r.model.update(name, func(s modelState) {
		if len(set) == 0 {
			delete(s.eps, name)
		} else {
			s.eps[name] = set
		}
	})
	if err := r.tracker.SetEndpoints(name, eps); err != nil {
		r.fail("SetEndpoints: %v", err)
	}
}

// badInput makes a call that must fail and change nothing; comparePending and the later
// steps check the nothing.
func (r *modelRun) badInput() {
	name := modelNames[r.in.next()%len(modelNames)]
	var err error
	switch r.in.next() % 4 {
	case 0:
		err = r.tracker.SetService(conntrackorder.ServicePort{Name: name, Protocol: conntrackorder.UDP, ClusterIPs: modelIPs[:1]})
	case 1:
		err = r.tracker.SetService(conntrackorder.ServicePort{Name: name, Protocol: 9, Port: 53})
	case 2:
		err = r.tracker.SetService(conntrackorder.ServicePort{Name: name, Protocol: conntrackorder.UDP, Port: 53, ExternalIPs: []netip.Addr{{}}})
	case 3:
		err = r.tracker.SetEndpoints(name, []netip.AddrPort{modelEPs[0], netip.AddrPortFrom(netip.IPv6Unspecified(), 1)})
	}
	if err == nil || !strings.HasPrefix(err.Error(), "conntrackorder: ") {
		r.fail("bad input: got error %v", err)
	}
}

// traffic sends a datagram from a client to a service address, a node address (NodePort) or
// an address no service has yet.
//
// Where event filters are all there is (flush mode, and SCTP in reconcile mode), only to
// destinations the programmed rules own: a datagram to an address or NodePort that no rule
// owned yet leaves an entry that is not NATed, and when a service port that already has
// endpoints gains that destination, the event filters collect nothing for it (the contract
// lists only what a service port lost). Reading the table is the only way to find such an
// entry; reconcile mode does for UDP, and gets every UDP destination.
func (r *modelRun) traffic() {
	for n := r.in.next()%3 + 1; n > 0; n-- {
		k := r.randomFlow()
		judged := r.reconcileMode && k.proto == conntrackorder.UDP
		if _, owned := r.dp.backends(k.proto, k.dst, k.dport); !owned && !judged {
			continue
		}
		r.log = append(r.log, fmt.Sprintf("datagram %v %v -> %v:%d", k.proto, k.client, k.dst, k.dport))
		r.dp.send(k, r.in.next())
	}
}

func (r *modelRun) randomFlow() flowKey {
	ports := []uint16{53, 80, 30053, 30080} // 80 is also a NodePort
	proto := conntrackorder.UDP
	if r.in.next()%4 == 0 {
		proto = conntrackorder.SCTP
	}
	dsts := append(append([]netip.Addr(nil), modelIPs...), modelNodeIPs...)
	dst, dport := dsts[r.in.next()%len(dsts)], ports[r.in.next()%len(ports)]
	// Mostly aim at what a service port has: that is where flows get NATed.
	if svc := r.model.state.services[modelNames[r.in.next()%len(modelNames)]]; svc != nil && r.in.next()%4 != 0 {
		if flushes(svc.proto) { // TCP flows are not this package's concern
			proto = svc.proto
		}
		if i := r.in.next() % (len(svc.ips) + 2); i < len(svc.ips) {
			dst, dport = svc.ips[i], svc.port
		} else if svc.nodePort != 0 {
			dst, dport = modelNodeIPs[i-len(svc.ips)], svc.nodePort
		}
	}
	var clients []netip.AddrPort
	for _, c := range modelClients {
		if c.Addr().Is4() == dst.Is4() {
			clients = append(clients, c)
		}
	}
	return flowKey{proto: proto, client: clients[r.in.next()%len(clients)], dst: dst, dport: dport}
}

// injectUpdate makes an update arrive while a Sync runs.
func (r *modelRun) injectUpdate() {
	r.injected = true
	r.log = append(r.log, "  during the Sync:")
	switch r.in.next() % 3 {
	case 0:
		r.setService()
	case 1:
		r.deleteService()
	default:
		r.setEndpoints()
	}
}

func (r *modelRun) program(context.Context) error {
	if r.trafficInSync {
		r.traffic() // under the old rules
	}
	if r.injectInProgram {
		r.injectUpdate()
		r.injectedBeforeRules = true
	}
	if r.programErr != nil {
		return r.programErr
	}
	r.dp.rules = r.model.state.clone()
	if r.injectAfterProgram {
		r.injectUpdate()
	}
	return nil
}

func (r *modelRun) flush(_ context.Context, plan conntrackorder.Plan) error {
	r.flushCalls++
	r.flushedPlan = append(conntrackorder.Plan(nil), plan...)
	if r.trafficInSync {
		r.traffic() // under the new rules, before the flush
	}
	if r.injectInFlush {
		r.injectUpdate()
	}
	if r.flushErr != nil {
		r.dp.flush(plan[:len(plan)/2]) // a failed flush may have applied part of the plan
		return r.flushErr
	}
	r.dp.flush(plan)
	return nil
}

// reconcile is the Reconciler of reconcile mode: it checks the desired state against the
// model's restatement, then deletes from the dataplane what the plan selects and what the
// desired state contradicts, and checks that no healthy flow went.
func (r *modelRun) reconcile(_ context.Context, plan conntrackorder.Plan, desired *conntrackorder.Desired) error {
	r.flushCalls++
	r.flushedPlan = append(conntrackorder.Plan(nil), plan...)
	r.checkDesired(desired)
	if r.trafficInSync {
		r.traffic() // under the new rules, before the reconcile reads the table
	}
	if r.injectInFlush {
		r.injectUpdate()
	}
	if r.flushErr != nil {
		r.dp.flush(plan[:len(plan)/2]) // a failed reconcile may have deleted some entries
		return r.flushErr
	}
	for k, f := range r.dp.table {
		if desired.Contradicts(f.desc()) || (matchesAny(plan, f) && !desired.Keeps(f.desc())) {
			if f.proto == conntrackorder.UDP && !r.injectedBeforeRules {
				// The rules program installed are those of the desired state, so a flow
				// NATed to one of their backends is healthy and must survive.
				if backends, _ := r.dp.backends(f.proto, f.dst, f.dport); containsAddrPort(backends, f.replySrc) {
					r.fail("the reconcile deleted a healthy flow: %v %v -> %v:%d goes to %v, the rules NAT it to %v",
						f.proto, f.client, f.dst, f.dport, f.replySrc, backends)
				}
			}
			delete(r.dp.table, k)
		}
	}
	return nil
}

// checkDesired compares desired with the model's restatement, for every flow the model's
// protocols, addresses, ports and endpoints can make.
func (r *modelRun) checkDesired(desired *conntrackorder.Desired) {
	r.t.Helper()
	dsts := append(append([]netip.Addr(nil), modelIPs...), modelNodeIPs...)
	ports := []uint16{53, 80, 30053, 30080} // 80 is also a NodePort
	for _, proto := range []conntrackorder.Protocol{conntrackorder.UDP, conntrackorder.SCTP, conntrackorder.TCP} {
		for _, dst := range dsts {
			for _, port := range ports {
				to := netip.AddrPortFrom(dst, port)
				for _, reply := range append([]netip.AddrPort{to}, modelEPs...) {
					if reply.Addr().Is4() != dst.Is4() {
						continue
					}
					f := conntrackorder.Flow{Protocol: proto, OrigDst: to, ReplySrc: reply}
					if want, got := r.snapState.contradicts(f), desired.Contradicts(f); want != got {
						r.fail("Desired.Contradicts(%+v) = %v, the model says %v", f, got, want)
					}
					if want, got := r.snapState.keeps(f), desired.Keeps(f); want != got {
						r.fail("Desired.Keeps(%+v) = %v, the model says %v", f, got, want)
					}
				}
			}
		}
	}
}

func matchesAny(plan conntrackorder.Plan, f flow) bool {
	for _, flt := range plan {
		if matches(flt, f) {
			return true
		}
	}
	return false
}

func (r *modelRun) sync() {
	r.t.Helper()
	fail, during := r.in.next(), r.in.next()
	r.programErr, r.flushErr = nil, nil
	if fail%6 == 1 {
		r.programErr = errModelProgram
	}
	if fail/6%6 == 1 {
		r.flushErr = errModelFlush
	}
	r.injectInProgram = during&3 == 1
	r.injectAfterProgram = during>>2&3 == 1
	r.injectInFlush = during>>4&3 == 1
	r.trafficInSync = during&64 != 0
	r.injected, r.injectedBeforeRules, r.flushCalls, r.flushedPlan = false, false, 0, nil
	r.log = append(r.log, fmt.Sprintf("Sync(programErr=%v flushErr=%v)", r.programErr != nil, r.flushErr != nil))

	want, mark := r.model.snapshot()
	r.snapState = r.model.state.clone()
	calls := len(want) > 0
	if r.reconcileMode {
		// The Reconciler gets what the desired state cannot see, and is called whenever
		// there is a filter left or a flow that may contradict.
		want = r.snapState.prune(want)
		calls = len(want) > 0 || r.snapState.judgesSomething()
	}
	err := r.syncer.Sync(context.Background())

	switch {
	case r.programErr != nil:
		if !errors.Is(err, errModelProgram) {
			r.fail("Sync with a failing program returned %v", err)
		}
		if r.flushCalls != 0 {
			r.fail("flushed although program failed")
		}
		return
	case !calls:
		if err != nil || r.flushCalls != 0 {
			r.fail("nothing to clear: Sync returned %v after %d flushes", err, r.flushCalls)
		}
	default:
		if r.flushCalls != 1 {
			r.fail("%d flushes, want 1", r.flushCalls)
		}
		if diff := cmp.Diff(want, r.flushedPlan); diff != "" {
			r.fail("flushed plan (-model +tracker):\n%s", diff)
		}
		if r.flushErr != nil {
			if !errors.Is(err, errModelFlush) {
				r.fail("Sync with a failing flush returned %v", err)
			}
			return
		}
		if err != nil {
			r.fail("Sync: %v", err)
		}
	}
	r.model.flushed(mark)
	if r.injected {
		return // what arrived during the Sync is flushed by a later one
	}
	if v := r.dp.violations(); len(v) > 0 {
		r.fail("after a successful Sync the conntrack table contradicts the rules:\n  %s", strings.Join(v, "\n  "))
	}
}

func randomInput(seed int64) []byte {
	rnd := rand.New(rand.NewSource(seed))
	data := make([]byte, 100+rnd.Intn(600))
	rnd.Read(data)
	return data
}

// TestTrackerMatchesModel runs many random sequences through checkModel, in both modes.
func TestTrackerMatchesModel(t *testing.T) {
	seeds := 400
	if testing.Short() {
		seeds = 50
	}
	for _, mode := range []struct {
		name      string
		reconcile bool
	}{{"flush", false}, {"reconcile", true}} {
		for seed := 0; seed < seeds; seed++ {
			data := randomInput(int64(seed))
			t.Run(fmt.Sprintf("%s/%d", mode.name, seed), func(t *testing.T) { checkModel(t, data, mode.reconcile) })
		}
	}
}

// TestModelCatchesFlushBeforeProgram shows that the dataplane oracle fails when the order is
// wrong: flushing before the rules exist, with one datagram in between, leaves the NodePort
// dark (kubernetes#98305).
func TestModelCatchesFlushBeforeProgram(t *testing.T) {
	tr := conntrackorder.NewTracker()
	state := modelState{services: map[string]*modelService{}, eps: map[string]map[netip.AddrPort]bool{}}
	dp := dataplane{rules: state.clone(), table: map[flowKey]flow{}}
	k := flowKey{proto: conntrackorder.UDP, client: modelClients[0], dst: modelNodeIPs[0], dport: 30053}

	dp.send(k, 0) // before the service exists: not NATed
	state.services[modelNames[0]] = &modelService{proto: conntrackorder.UDP, port: 53, nodePort: 30053, ips: modelIPs[:1]}
	state.eps[modelNames[0]] = map[netip.AddrPort]bool{modelEPs[0]: true}
	if err := tr.SetService(conntrackorder.ServicePort{Name: modelNames[0], Protocol: conntrackorder.UDP, Port: 53, ClusterIPs: modelIPs[:1], NodePort: 30053}); err != nil {
		t.Fatal(err)
	}
	if err := tr.SetEndpoints(modelNames[0], modelEPs[:1]); err != nil {
		t.Fatal(err)
	}

	dp.flush(tr.Pending()) // the wrong order: flush ...
	dp.send(k, 0)          // ... one datagram ...
	dp.rules = state.clone()
	if v := dp.violations(); len(v) != 1 || !strings.HasPrefix(v[0], "blackholed:") {
		t.Fatalf("violations = %v, want the blackholed NodePort flow", v)
	}
}

// modelSeeds adds the seed corpus of FuzzTracker and FuzzReconcileSyncer.
func modelSeeds(f *testing.F) {
	// none to some, then sync; a failed program; a failed flush with an update during it
	f.Add([]byte{0, 0, 0, 1, 1, 1, 1, 1, 1, 3, 0, 1, 6, 0, 3, 0, 0, 6, 1, 6, 0})
	f.Add([]byte{0, 0, 1, 0, 2, 1, 1, 1, 1, 1, 8, 4, 0, 0, 3, 0, 3, 6, 2, 6, 0, 3, 0, 0, 6, 18, 0, 0, 6, 0})
	// dual-stack endpoints one family at a time, with traffic in between
	f.Add([]byte{0, 0, 0, 2, 1, 0, 0, 1, 1, 3, 0, 1, 8, 4, 0, 1, 0, 6, 0, 3, 0, 9, 8, 3, 0, 1, 0, 6, 32})
	for seed := int64(0); seed < 8; seed++ {
		f.Add(randomInput(1000 + seed))
	}
}

// FuzzTracker is TestTrackerMatchesModel in flush mode, driven by the fuzzer:
//
//	go test -run '^$' -fuzz FuzzTracker ./conntrackorder/
func FuzzTracker(f *testing.F) {
	modelSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkModel(t, data, false)
	})
}

// FuzzReconcileSyncer is TestTrackerMatchesModel in reconcile mode, driven by the fuzzer:
//
//	go test -run '^$' -fuzz FuzzReconcileSyncer ./conntrackorder/
func FuzzReconcileSyncer(f *testing.F) {
	modelSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkModel(t, data, true)
	})
}
