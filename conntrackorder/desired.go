package conntrackorder

import (
	"net/netip"
)

// A Flow describes one conntrack entry the way [Desired.Contradicts] needs it. A backend fills
// it from the table; it is a small value, and describing an entry allocates nothing.
//
// Addresses of an IPv4 entry must be IPv4, not IPv4-mapped IPv6, as conntrack stores them.
type Flow struct {
	Protocol Protocol
	// OrigDst is the original destination: the service IP or node address, and the port,
	// the client sent to.
	OrigDst netip.AddrPort
	// ReplySrc is the reply direction's source: the endpoint the flow was NATed to, or
	// OrigDst when it was not NATed, like the [UNREPLIED] entry a datagram leaves when it
	// arrives before the DNAT rule.
	ReplySrc netip.AddrPort
}

// A Desired is an immutable snapshot of the state a [Tracker] holds, made by
// [Tracker.Desired]: for every UDP service port, its service IPs with the service port, its
// NodePort, and its serving endpoints. It tells a backend which conntrack entries contradict
// that state (see [Desired.Contradicts]).
//
// Only UDP service ports are in it. A TCP flow that lost its backend ends by itself. SCTP
// service ports are left to the filters of [Tracker.Pending], as in flush mode, and a
// [Reconciler] applies those in the same pass, ports included. That is a choice of scope, not
// a limit of the backends: the judgment of [Desired.Contradicts] is made for UDP, whose flows
// the client's next datagram re-creates through the current rules, while what to do with an
// SCTP association whose endpoint stopped serving is unsettled (kubernetes#108523). The cost:
// an SCTP event the Tracker missed is not repaired, and a restart clears every SCTP service
// that has endpoints, as in flush mode (kubernetes#122740).
//
// A Desired is never modified after it was made, so it is safe for concurrent use and may be
// shared. Its methods answer with map lookups: their cost does not depend on the number of
// services. The zero value and a nil *Desired hold no service and contradict nothing.
type Desired struct {
	// dsts maps each service destination (service IP and service port) to the group of
	// endpoints that may serve it.
	dsts map[netip.AddrPort]int32
	// nodePorts maps each NodePort to the group of endpoints that may serve it.
	nodePorts map[uint16]int32
	// serving holds every (group, endpoint) pair: one lookup answers whether a flow's reply
	// source serves its destination.
	serving map[servingKey]struct{}
	v4, v6  bool // whether flows of the family may contradict
	// noNode4 and noNode6 record that the node has no address of the family, where no
	// NodePort is open ([Tracker.SetNodeFamilies]); the zero value is a dual-stack node.
	noNode4, noNode6 bool
}

// servingKey is an endpoint of one group. A group is the endpoints of one service port, or
// the union of the endpoints of the service ports that claim the same destination.
type servingKey struct {
	ep    netip.AddrPort
	group int32
}

// Contradicts reports whether the flow f contradicts the desired state, so that a backend
// must delete it: f is a UDP flow whose original destination is a service IP and port, or
// whose destination port is a NodePort and whose family is one of the node's
// ([Tracker.SetNodeFamilies]), and its reply source (address and port) is not a
// current serving endpoint of that service port. That includes
//   - a flow NATed to an endpoint that has gone, or whose port changed (kubernetes#125467);
//   - a flow that was not NATed, such as the [UNREPLIED] entry a datagram leaves when it
//     arrives before the DNAT rule exists (kubernetes#98305): its reply source is the
//     destination itself;
//   - any flow to a service port that has no serving endpoints (kubernetes#139629).
//
// A flow NATed to a current serving endpoint never contradicts, so reconciling after a
// restart keeps the flows of healthy services (kubernetes#122740). Flows of other protocols,
// to other addresses and ports, and to services that are not in the snapshot never
// contradict: the filters of [Tracker.Pending] clear those.
//
// A destination that is a service IP and port is judged by that service port alone, even if
// the port is also a NodePort: in the rules a service IP matches before the NodePort does. A
// NodePort is recognized by port alone, on any destination address, as conntrack --dport
// does: a node has many addresses and the snapshot does not know them. So a UDP flow the node
// forwards to another host's port of the same number contradicts too, and every reconcile
// deletes it. When two service ports claim the same destination, for example one external IP
// given to two services, a flow to it contradicts only if it serves neither.
//
// Contradicts costs at most three map lookups and allocates nothing.
func (d *Desired) Contradicts(f Flow) bool {
	if d == nil || f.Protocol != UDP || !f.OrigDst.Addr().IsValid() {
		return false
	}
	g, ok := d.dsts[f.OrigDst]
	if !ok {
		if !d.onNode(f.OrigDst.Addr()) {
			return false // no NodePort is open on an address of this family
		}
		if g, ok = d.nodePorts[f.OrigDst.Port()]; !ok {
			return false
		}
	}
	_, serving := d.serving[servingKey{ep: f.ReplySrc, group: g}]
	return !serving
}

// onNode reports whether the node has addresses of a's family.
func (d *Desired) onNode(a netip.Addr) bool {
	if a.Is4() {
		return !d.noNode4
	}
	return !d.noNode6
}

// Keeps reports whether the desired state keeps the flow f whatever a filter selects: f is a
// UDP flow to a service IP and port of the desired state, and its reply source is a current
// serving endpoint of that destination. A [Reconciler] must not delete such a flow, even when
// a filter of its plan selects it: the filter for a NodePort that a deleted service had
// selects every flow to that port number, also the healthy flows to another service's IP and
// port of the same number.
//
// A flow that the desired state recognizes only by its NodePort is not kept from a filter: a
// NodePort is recognized by port alone, and a filter that names the flow's address, such as
// one for a service IP that lost its service, knows better. Keeps and Contradicts are never
// both true.
//
// Keeps costs at most two map lookups and allocates nothing.
func (d *Desired) Keeps(f Flow) bool {
	if d == nil || f.Protocol != UDP {
		return false
	}
	g, ok := d.dsts[f.OrigDst]
	if !ok {
		return false
	}
	_, serving := d.serving[servingKey{ep: f.ReplySrc, group: g}]
	return serving
}

// Families reports whether flows of IPv4 and of IPv6 may contradict the desired state. A
// backend need not read the table of a family for which it reports false. A service IP counts
// for its family; a NodePort counts for each of the node's families ([Desired.NodeFamilies]),
// since it is open on every node address. A nil or empty Desired reports false, false.
func (d *Desired) Families() (ipv4, ipv6 bool) {
	if d == nil {
		return false, false
	}
	return d.v4, d.v6
}

// NodeFamilies reports the address families the node has addresses of, those a NodePort is
// open on: both, unless [Tracker.SetNodeFamilies] said otherwise before the snapshot was made.
// A backend's reconcile applies a filter that names no address, such as the one for a NodePort
// that a deleted service had, to the tables of these families only. A nil or zero Desired
// reports true, true: a dual-stack node.
func (d *Desired) NodeFamilies() (ipv4, ipv6 bool) {
	if d == nil {
		return true, true
	}
	return !d.noNode4, !d.noNode6
}

// covers reports whether d judges every flow that f selects, so that flushing f after
// reconciling against d would delete nothing that d leaves: only flows d keeps because they
// reach a current serving endpoint. A filter with OrigDst is covered when its address and port
// are a service destination of d; a filter without, when its port is a NodePort of d. On a
// single-stack node, such a NodePort filter would also select the other family's flows to that
// port, which d leaves: they are not NodePort flows of this node, and a reconcile leaves them
// too ([Tracker.SetNodeFamilies]). SCTP and
// TCP filters are never covered, and neither is a filter that sets no port.
func (d *Desired) covers(f Filter) bool {
	if d == nil || f.Protocol != UDP || f.DstPort == 0 {
		return false
	}
	if f.OrigDst.IsValid() {
		_, ok := d.dsts[netip.AddrPortFrom(f.OrigDst, f.DstPort)]
		return ok
	}
	_, ok := d.nodePorts[f.DstPort]
	return ok
}

// prune returns, in their order, the filters of plan that d does not cover: those for
// addresses, ports and NodePorts no current UDP service port has (a deleted service, a lost
// address), and every SCTP filter. It returns a new slice, nil when none is left.
func (d *Desired) prune(plan Plan) Plan {
	var rest Plan
	for _, f := range plan {
		if !d.covers(f) {
			rest = append(rest, f)
		}
	}
	return rest
}

// empty reports whether d contradicts no flow at all.
func (d *Desired) empty() bool {
	return d == nil || (len(d.dsts) == 0 && len(d.nodePorts) == 0)
}

// claim gives destination k to group g in owners, or, when another group has it already,
// records both in shared, where they become one group.
func claim[K comparable](owners map[K]int32, shared *map[K][]int32, k K, g int32) {
	other, ok := owners[k]
	if !ok {
		owners[k] = g
		return
	}
	if *shared == nil {
		*shared = make(map[K][]int32)
	}
	if len((*shared)[k]) == 0 {
		(*shared)[k] = append((*shared)[k], other)
	}
	(*shared)[k] = append((*shared)[k], g)
}

// Desired returns an immutable snapshot of the state t holds, to reconcile the conntrack table
// against: for every UDP service port, its service IPs (ClusterIPs, ExternalIPs,
// LoadBalancerIPs) with the service port, its NodePort, and the serving endpoints last passed
// to [Tracker.SetEndpoints]. A UDP service port without serving endpoints is in it too: every
// flow to it contradicts. Endpoints reported for a name that has no service port are not.
//
// A snapshot reflects every change reported before the call, and never a later one. When
// nothing changed since the last call, Desired returns the same snapshot; otherwise building
// it costs the number of UDP service ports, their addresses and their endpoints.
//
// A [Syncer] made by [NewReconcileSyncer] calls Desired itself; call it directly to write a
// backend, or to inspect in a test what a reconcile would delete.
func (t *Tracker) Desired() *Desired {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.desiredLocked()
}

func (t *Tracker) desiredLocked() *Desired {
	if t.desired != nil {
		return t.desired
	}
	// Size the maps first: growing them would cost as much again in copies and garbage.
	var nDsts, nNodePorts, nServing int
	for name, svc := range t.services {
		if svc.proto == UDP {
			nDsts += len(svc.ips)
			nServing += len(t.endpoints[name])
			if svc.nodePort != 0 {
				nNodePorts++
			}
		}
	}
	d := &Desired{
		dsts:      make(map[netip.AddrPort]int32, nDsts),
		nodePorts: make(map[uint16]int32, nNodePorts),
		serving:   make(map[servingKey]struct{}, nServing),
		noNode4:   t.noNode4,
		noNode6:   t.noNode6,
	}
	// Group g is the endpoints of the service port groups[g]. A destination claimed by
	// several service ports gets a group of its own, the union of theirs, below.
	var groups []endpointSet
	var sharedDsts map[netip.AddrPort][]int32
	var sharedNodePorts map[uint16][]int32
	for name, svc := range t.services {
		if svc.proto != UDP {
			continue
		}
		g := int32(len(groups))
		eps := t.endpoints[name]
		groups = append(groups, eps)
		for _, ep := range eps {
			d.serving[servingKey{ep: ep, group: g}] = struct{}{}
		}
		for _, ip := range svc.ips {
			// The API server keeps ClusterIPs unique, but not external IPs. The rules of
			// either service port may have NATed a flow to a shared destination, so a
			// flow that reaches an endpoint of either is not stale.
			claim(d.dsts, &sharedDsts, netip.AddrPortFrom(ip, svc.port), g)
			if ip.Is4() {
				d.v4 = true
			} else {
				d.v6 = true
			}
		}
		if svc.nodePort != 0 {
			claim(d.nodePorts, &sharedNodePorts, svc.nodePort, g)
			// A NodePort is open on the node's addresses, of each of its families.
			d.v4, d.v6 = d.v4 || !t.noNode4, d.v6 || !t.noNode6
		}
	}
	union := func(members []int32) int32 {
		u := int32(len(groups))
		groups = append(groups, nil)
		for _, g := range members {
			for _, ep := range groups[g] {
				d.serving[servingKey{ep: ep, group: u}] = struct{}{}
			}
		}
		return u
	}
	for dst, members := range sharedDsts {
		d.dsts[dst] = union(members)
	}
	for np, members := range sharedNodePorts {
		d.nodePorts[np] = union(members)
	}
	t.desired = d
	return d
}
