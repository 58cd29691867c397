package conntrackorder

import (
	"cmp"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"sync"
)

// A Tracker collects the conntrack filters that service and endpoint changes make necessary,
// until a [Syncer] flushes them after the forwarding rules for those changes are in place.
//
// Feed it every change, in the order the changes were applied to the state the program
// function of the [Syncer] reads. Only [UDP] and [SCTP] service ports produce filters.
//
// A collected filter stays pending until a flush that contained it succeeded after
// programming; no later update withdraws it (see "Flush mode's filters" in the package
// documentation).
//
// The zero value is an empty Tracker, ready to use, as is the result of [NewTracker]. A
// Tracker must not be copied after first use. A Tracker is safe for concurrent use, also
// while a [Syncer.Sync] runs. The cost of an update follows the size of the change, and the
// cost of [Tracker.Pending] the number of pending filters, not the number of services held:
// an endpoint change and a Sync made by [NewSyncer] take as many instructions with 10,000
// services as with 100, and 1.14 times as many counting the garbage collector, which marks
// the larger heap.
type Tracker struct {
	mu        sync.Mutex
	services  map[string]*service
	endpoints map[string]endpointSet // by service port name; also names not yet known
	pending   map[Filter]pendingMark
	peak      int      // the most filters pending since pending was last allocated
	clock     uint64   // counts collect calls; orders pending and tells a flush what it covered
	desired   *Desired // the last snapshot of the state; nil once the state changed
	// noNode4 and noNode6 record that the node has no address of the family
	// ([Tracker.SetNodeFamilies]); the zero value is a dual-stack node.
	noNode4, noNode6 bool
}

// service is a validated [ServicePort].
type service struct {
	proto    Protocol
	port     uint16
	nodePort uint16
	ips      []netip.Addr // ClusterIPs, ExternalIPs, LoadBalancerIPs in that order, each once
	ipSet    map[netip.Addr]struct{}
}

// endpointSet holds the serving endpoints of one service port, each once, in the order of
// compareEndpoints: IPv4 before IPv6, then by address and port. Never empty when stored.
//
// A sorted slice rather than a map: SetEndpoints replaces the whole set on every change, and
// a map of even one endpoint is several times the allocation (a header and a group of eight
// slots), paid again in every garbage collection while the Tracker holds it.
type endpointSet []netip.AddrPort

// pendingMark records when a pending filter was collected.
type pendingMark struct {
	first uint64 // the first time: orders the plan
	last  uint64 // the latest time: a flush covers it only if its snapshot was taken later
}

// NewTracker returns an empty Tracker.
func NewTracker() *Tracker {
	return &Tracker{
		services:  make(map[string]*service),
		endpoints: make(map[string]endpointSet),
		pending:   make(map[Filter]pendingMark),
	}
}

// SetNodeFamilies tells the Tracker which address families the node has addresses of: IPv4,
// IPv6 or both. kube-proxy knows it, since it runs one proxier per family. A NodePort is open
// only on the node's own addresses, so a snapshot ([Tracker.Desired]) judges a flow by its
// NodePort only when the flow is of one of the node's families, and a reconcile reads the
// table of another family only for a service IP, or a filter that names an address, of that
// family. On a single-stack node that halves what a reconcile reads: the kernel walks the
// whole shared table for each family's dump, whatever it sends back.
//
// A flow of a family the node does not have is never judged stale on account of its port
// being a NodePort; flows to service IPs of that family are still judged. Until it is called,
// a Tracker takes the node to be dual-stack, the choice that misses no NodePort flow and costs
// a read of both families' tables. Filters of [Tracker.Pending] are not affected: a filter for
// a NodePort names no address, and [Flusher.Flush] applies it to both families, as
// conntrack(8) does.
//
// SetNodeFamilies returns an error and changes nothing when both are false.
func (t *Tracker) SetNodeFamilies(ipv4, ipv6 bool) error {
	if !ipv4 && !ipv6 {
		return errors.New("conntrackorder: node families: a node has IPv4, IPv6 or both")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.noNode4 != !ipv4 || t.noNode6 != !ipv6 {
		t.noNode4, t.noNode6 = !ipv4, !ipv6
		t.desired = nil
	}
	return nil
}

// SetService records the current state of one service port, keyed by sp.Name, and collects the
// filters the change makes necessary:
//   - when the service port is new and already has serving endpoints (they may arrive first),
//     the filters of a change from no serving endpoints to some, as for [Tracker.SetEndpoints];
//   - for every address, port and NodePort the service port had and no longer has (also when
//     its protocol changed): {OrigDst: IP, DstPort: old port} per lost address and port pair
//     and {DstPort: old NodePort}, whether or not it had endpoints.
//
// An address, port or NodePort that an existing service port gains collects nothing: a
// datagram that reached it before its rule existed may have left an entry that is not NATed,
// and only a [Syncer] made by [NewReconcileSyncer] finds such an entry (it reads the table).
//
// Setting a service port to the state it already has collects nothing. The order of the
// addresses matters only for the order of the filters; duplicates are ignored.
//
// SetService returns an error and changes nothing when sp has an empty name, an unknown
// protocol, port 0, or an address that is invalid, unspecified, zoned or IPv4-mapped.
func (t *Tracker) SetService(sp ServicePort) error {
	svc, err := newService(sp)
	if err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.init()
	old := t.services[sp.Name]
	t.services[sp.Name] = svc
	t.desired = nil
	eps := t.endpoints[sp.Name]
	t.collectLost(old, svc)
	if old == nil || old.proto != svc.proto {
		// New to this protocol: serving endpoints it already has (they may arrive first) go
		// from none to some now. A service port that merely changed collects only what it
		// lost, as the contract of this package states.
		t.collectGained(svc, nil, eps)
	}
	return nil
}

// DeleteService forgets the service port called name and collects {OrigDst: IP, DstPort:
// port} for each of its addresses and {DstPort: NodePort}: the rules that NATed those flows
// are gone, and a flow that outlives them keeps reaching the old backends, or a service that
// later reuses the address or NodePort (kubernetes#141371). An unknown name does nothing.
//
// The service port's endpoints are kept: they come from their own informer, and a service
// re-created under the same name starts with them. Report their deletion with
// [Tracker.SetEndpoints] and no endpoints.
func (t *Tracker) DeleteService(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	old := t.services[name]
	if old == nil {
		return
	}
	t.init()
	delete(t.services, name)
	t.desired = nil
	t.collectLost(old, nil)
}

// SetEndpoints records the serving endpoints of the service port called name: the endpoints
// the rules send traffic to. Leave out endpoints that are not serving; not-ready endpoints
// must not count as endpoints (kubernetes#105657). Duplicates are ignored. A nil or empty
// serving means the service port has none.
//
// For a service port that is known, SetEndpoints collects:
//   - when it goes from no serving endpoints to some: {OrigDst: IP, DstPort: port} for every
//     ClusterIP, ExternalIP and LoadBalancerIP (kubernetes#98305, #103857), then {DstPort:
//     NodePort} when it has a NodePort. A datagram that arrived while there was no rule left an
//     entry that is not NATed and would blackhole its client once the rule exists. For a
//     dual-stack service this also happens per address family: when the first endpoints of a
//     family arrive, the service IPs of that family and the NodePort are cleared again;
//   - for every endpoint that was serving and no longer is, removed or merely not serving any
//     more (kubernetes#125467), also when none are left (kubernetes#139629): {OrigDst: IP,
//     DstPort: port, ReplySrc: endpoint IP} for every service IP of the endpoint's family, then
//     {DstPort: NodePort, ReplySrc: endpoint IP}. An endpoint is its address and port; one
//     whose port changed has gone.
//
// For a name that is not known yet the endpoints are kept, and [Tracker.SetService] applies
// them when the service port arrives.
//
// SetEndpoints returns an error and changes nothing when name is empty, an endpoint's address
// is invalid, unspecified, zoned or IPv4-mapped, or its port is 0.
func (t *Tracker) SetEndpoints(name string, serving []netip.AddrPort) error {
	if name == "" {
		return errors.New("conntrackorder: endpoints have no service port name")
	}
	eps := make(endpointSet, 0, len(serving))
	for _, ep := range serving {
		if !ep.Addr().IsValid() {
			return fmt.Errorf("conntrackorder: endpoints of %q: invalid address", name)
		}
		if err := checkAddr(ep.Addr()); err != nil {
			return fmt.Errorf("conntrackorder: endpoints of %q: %w", name, err)
		}
		if ep.Port() == 0 {
			// No flow is NATed to port 0, so reconcile mode would judge every flow to
			// the endpoint's service stale.
			return fmt.Errorf("conntrackorder: endpoints of %q: endpoint %v has port 0", name, ep.Addr())
		}
		eps = append(eps, ep)
	}
	slices.SortFunc(eps, compareEndpoints)
	eps = slices.Compact(eps)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.init()
	old := t.endpoints[name]
	t.desired = nil
	if len(eps) == 0 {
		delete(t.endpoints, name) // a name without endpoints and service must not linger
	} else {
		t.endpoints[name] = eps
	}
	svc := t.services[name]
	if svc == nil {
		return nil // applied by SetService when the service port arrives
	}
	t.collectVanished(svc, old, eps)
	t.collectGained(svc, old, eps)
	return nil
}

// init makes the maps of a zero Tracker. t.mu must be held.
func (t *Tracker) init() {
	if t.services == nil {
		t.services = make(map[string]*service)
		t.endpoints = make(map[string]endpointSet)
		t.pending = make(map[Filter]pendingMark)
	}
}

// Pending returns a copy of the filters collected and not yet flushed, in the order a flush
// applies them: first the service-IP filters (OrigDst set, no ReplySrc), then the NodePort
// filters (only DstPort set), then the endpoint filters (ReplySrc set). Within each group,
// filters keep the order in which they were first collected; one call collects a service's
// ClusterIPs, ExternalIPs and LoadBalancerIPs in the order its [ServicePort] lists them, and
// gone endpoints in ascending address order. Each filter appears once. Pending returns nil
// when nothing is pending.
func (t *Tracker) Pending() Plan {
	t.mu.Lock()
	defer t.mu.Unlock()
	plan, _ := t.snapshotLocked()
	return plan
}

// snapshot returns the pending plan and the clock reading it reflects, for [Syncer.Sync], and
// when withDesired is set the desired state of the same moment.
func (t *Tracker) snapshot(withDesired bool) (Plan, uint64, *Desired) {
	t.mu.Lock()
	defer t.mu.Unlock()
	plan, mark := t.snapshotLocked()
	if !withDesired {
		return plan, mark, nil
	}
	return plan, mark, t.desiredLocked()
}

func (t *Tracker) snapshotLocked() (Plan, uint64) {
	if len(t.pending) == 0 {
		return nil, t.clock
	}
	type entry struct {
		f     Filter
		group int
		first uint64
	}
	// A change collects a few filters. Sorting them on the stack spares an allocation per
	// Sync, and with it a share of the garbage collector's work, which grows with the heap
	// the Tracker's table is part of (see BenchmarkEndpointChangeSync).
	var buf [8]entry
	entries := buf[:0]
	if len(t.pending) > len(buf) {
		entries = make([]entry, 0, len(t.pending))
	}
	for f, m := range t.pending {
		entries = append(entries, entry{f, f.group(), m.first})
	}
	// Every collect call ticks the clock, so first is unique and the order total. slices
	// rather than sort.Slice, which allocates a reflection-based swapper on every call.
	slices.SortFunc(entries, func(a, b entry) int {
		if a.group != b.group {
			return cmp.Compare(a.group, b.group)
		}
		return cmp.Compare(a.first, b.first)
	})
	plan := make(Plan, len(entries))
	for i, e := range entries {
		plan[i] = e.f
	}
	return plan, t.clock
}

// flushed removes the filters of the snapshot taken at clock reading mark, once a flush of it
// succeeded, except those collected again since: they may describe a state the rules
// programmed for that flush did not have yet, so they need a flush after the next programming.
func (t *Tracker) flushed(mark uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	// The snapshot held every filter pending at mark, and a filter collected again since has a
	// later mark, so these are exactly the snapshot's filters that were not. Reading the marks
	// rather than the plan lets the Flusher have the snapshot itself, without a copy.
	for f, m := range t.pending {
		if m.last <= mark {
			delete(t.pending, f)
		}
	}
	// A map keeps its buckets after deletes, and ranging over it costs the buckets. Without
	// this, the first flush of a large table (every service is new) would make every later
	// Pending and flush cost as much as that table. Reallocating when at most a quarter is
	// left costs O(1) per deleted filter over time; a small map is not worth it.
	if t.peak > 64 && len(t.pending) <= t.peak/4 {
		pending := make(map[Filter]pendingMark, len(t.pending))
		for f, m := range t.pending {
			pending[f] = m
		}
		t.pending, t.peak = pending, len(pending)
	}
}

// group returns the position of f's group in the flush order.
func (f Filter) group() int {
	switch {
	case f.ReplySrc.IsValid():
		return 2 // endpoint filters
	case f.OrigDst.IsValid():
		return 0 // service-IP filters
	default:
		return 1 // NodePort filters
	}
}

// collect adds f to the pending plan, or marks an already pending f as collected again.
func (t *Tracker) collect(f Filter) {
	t.clock++
	m, ok := t.pending[f]
	if !ok {
		m.first = t.clock
	}
	m.last = t.clock
	t.pending[f] = m
	if len(t.pending) > t.peak {
		t.peak = len(t.pending)
	}
}

// collectLost collects the filters for the addresses and ports old has and cur (nil when the
// service port was deleted) does not.
func (t *Tracker) collectLost(old, cur *service) {
	if old == nil || !old.proto.flushes() {
		return
	}
	// Whether or not the service port has endpoints now: flows NATed through an address it
	// loses keep reaching its backends, or whichever service reuses the address, once the
	// rule is gone (kubernetes#141371). Knowing that no such flow exists would take the
	// endpoint history since the last successful flush; an extra flush after programming
	// deletes nothing a rule still covers.
	for _, ip := range old.ips {
		if !cur.has(old.proto, ip, old.port) {
			t.collect(Filter{Protocol: old.proto, OrigDst: ip, DstPort: old.port})
		}
	}
	if old.nodePort != 0 && !cur.hasNodePort(old.proto, old.nodePort) {
		// Also when the number is another service's port: the filter has no address, so it
		// selects that service's healthy flows to its service IPs too. In flush mode they
		// are deleted, after programming, and the client's next datagram re-creates each
		// through that service's rules; leaving the filter out would leave the lost
		// NodePort's flows on its old backends. In reconcile mode the desired state keeps
		// them ([Desired.Keeps]).
		t.collect(Filter{Protocol: old.proto, DstPort: old.nodePort})
	}
}

// collectGained collects the filters for the addresses and NodePort of svc that get a NATing
// rule when its serving endpoints change from oldEps to curEps: until then a datagram to them
// created an entry that is not NATed, and it would keep its client away from the new rule
// (kubernetes#98305). An address or NodePort has a NATing rule while the service port has
// serving endpoints of its family. A service port that is new, or new to its protocol, passes
// no oldEps; one that merely changed gains nothing here (see [Tracker.SetService]).
func (t *Tracker) collectGained(svc *service, oldEps, curEps endpointSet) {
	if !svc.proto.flushes() || len(curEps) == 0 {
		return
	}
	old4, old6 := oldEps.families()
	cur4, cur6 := curEps.families()
	// From none to some clears every address, not only those of the endpoints' family: that
	// is the rule of kubernetes#98305 as kube-proxy states it, and an extra flush after
	// programming is harmless.
	fromNone := len(oldEps) == 0
	for _, ip := range svc.ips {
		if fromNone || (inFamily(ip, cur4, cur6) && !inFamily(ip, old4, old6)) {
			t.collect(Filter{Protocol: svc.proto, OrigDst: ip, DstPort: svc.port})
		}
	}
	// The NodePort exists in both families; one filter without address clears both.
	if svc.nodePort != 0 && (fromNone || (cur4 && !old4) || (cur6 && !old6)) {
		t.collect(Filter{Protocol: svc.proto, DstPort: svc.nodePort})
	}
}

// collectVanished collects the filters for the endpoints of svc in old and not in cur: flows
// NATed to them would keep sending to a backend that no longer serves (kubernetes#125467).
func (t *Tracker) collectVanished(svc *service, old, cur endpointSet) {
	if !svc.proto.flushes() || len(old) == 0 {
		return
	}
	// Both sets are sorted: one walk through them finds the gone endpoints, in ascending order.
	i := 0
	for _, ep := range old {
		for i < len(cur) && compareEndpoints(cur[i], ep) < 0 {
			i++
		}
		if i < len(cur) && cur[i] == ep {
			continue
		}
		addr := ep.Addr()
		for _, ip := range svc.ips {
			if ip.Is4() == addr.Is4() { // a filter cannot mix families
				t.collect(Filter{Protocol: svc.proto, OrigDst: ip, DstPort: svc.port, ReplySrc: addr})
			}
		}
		if svc.nodePort != 0 {
			t.collect(Filter{Protocol: svc.proto, DstPort: svc.nodePort, ReplySrc: addr})
		}
	}
}

// newService validates sp.
func newService(sp ServicePort) (*service, error) {
	if sp.Name == "" {
		return nil, errors.New("conntrackorder: service port has no name")
	}
	switch sp.Protocol {
	case TCP, UDP, SCTP:
	default:
		return nil, fmt.Errorf("conntrackorder: service port %q: unknown protocol %v", sp.Name, sp.Protocol)
	}
	if sp.Port == 0 {
		return nil, fmt.Errorf("conntrackorder: service port %q: port 0", sp.Name)
	}
	n := len(sp.ClusterIPs) + len(sp.ExternalIPs) + len(sp.LoadBalancerIPs)
	svc := &service{
		proto:    sp.Protocol,
		port:     sp.Port,
		nodePort: sp.NodePort,
		ips:      make([]netip.Addr, 0, n),
		ipSet:    make(map[netip.Addr]struct{}, n),
	}
	for _, list := range [...]struct {
		kind string
		ips  []netip.Addr
	}{{"cluster IP", sp.ClusterIPs}, {"external IP", sp.ExternalIPs}, {"load balancer IP", sp.LoadBalancerIPs}} {
		for i, ip := range list.ips {
			if !ip.IsValid() {
				return nil, fmt.Errorf("conntrackorder: service port %q: %s %d: invalid address", sp.Name, list.kind, i)
			}
			if err := checkAddr(ip); err != nil {
				return nil, fmt.Errorf("conntrackorder: service port %q: %s: %w", sp.Name, list.kind, err)
			}
			if _, dup := svc.ipSet[ip]; !dup {
				svc.ipSet[ip] = struct{}{}
				svc.ips = append(svc.ips, ip)
			}
		}
	}
	return svc, nil
}

// has reports whether s, which may be nil, sends proto traffic to ip:port.
func (s *service) has(proto Protocol, ip netip.Addr, port uint16) bool {
	if s == nil || s.proto != proto || s.port != port {
		return false
	}
	_, ok := s.ipSet[ip]
	return ok
}

// hasNodePort reports whether s, which may be nil, has the proto NodePort nodePort.
func (s *service) hasNodePort(proto Protocol, nodePort uint16) bool {
	return s != nil && s.proto == proto && s.nodePort == nodePort
}

// flushes reports whether flows of protocol p outlive their rules and must be flushed: UDP and
// SCTP do. A TCP flow that lost its backend ends with a reset or a timeout, and its client
// opens a new one that the new rules NAT.
func (p Protocol) flushes() bool {
	return p == UDP || p == SCTP
}

// families reports whether s holds IPv4 and IPv6 endpoints. The IPv4 endpoints of a sorted
// set come first, so the first and the last endpoint tell.
func (s endpointSet) families() (has4, has6 bool) {
	if len(s) == 0 {
		return false, false
	}
	return s[0].Addr().Is4(), !s[len(s)-1].Addr().Is4()
}

// compareEndpoints orders endpoints by address, IPv4 before IPv6, then by port.
func compareEndpoints(a, b netip.AddrPort) int {
	if c := a.Addr().Compare(b.Addr()); c != 0 {
		return c
	}
	return cmp.Compare(a.Port(), b.Port())
}

// inFamily reports whether ip is IPv4 and has4, or IPv6 and has6.
func inFamily(ip netip.Addr, has4, has6 bool) bool {
	if ip.Is4() {
		return has4
	}
	return has6
}
