//go:build linux

package netnstest

import (
	"fmt"
	"net/netip"
	"sort"

	"github.com/safereconcile/safereconcile/conntrackorder"
)

// A NodeTableSpec describes the conntrack table of a busy node, for [NewNodeTable].
type NodeTableSpec struct {
	// Services is the number of service ports; one in ten is UDP, and one in four has a
	// NodePort. The changes that make entries stale add a few more.
	Services int
	// TCP and UDP are the numbers of entries of each protocol: established TCP connections and
	// UDP flows, to service IPs and to NodePorts, NATed to endpoints.
	TCP, UDP int
	// Stale is how many of the UDP entries the state after the changes makes stale.
	Stale int
	// Stack is the node's address families: every service, endpoint and client has an
	// address of each, and on a dual-stack node every other entry is in the IPv6 table.
	Stack Stack
}

// Stack says which address families a node has.
type Stack uint8

// The stacks of a node. Most clusters are single-stack.
const (
	IPv4Only Stack = iota
	IPv6Only
	DualStack
)

func (s Stack) String() string {
	switch s {
	case IPv4Only:
		return "ipv4"
	case IPv6Only:
		return "ipv6"
	case DualStack:
		return "dual"
	}
	return fmt.Sprintf("Stack(%d)", uint8(s))
}

// Families reports whether the stack has IPv4 and IPv6: what a proxy of the node passes to
// [conntrackorder.Tracker.SetNodeFamilies].
func (s Stack) Families() (ipv4, ipv6 bool) {
	return s != IPv6Only, s != IPv4Only
}

// A NodeTable is a node's conntrack table and the service state that explains it: Before,
// the state the entries were made under, and After, the state after changes that make Stale
// of the UDP entries stale. It is the same every time for the same spec.
type NodeTable struct {
	Node          []netip.Addr // the node's addresses, IPv4 first
	Before, After []Service    // sorted by name; After lacks the deleted services
	Flows         []Flow       // every entry, TCP first
	Stale         map[Flow]Staleness
}

// A Service is one service port and its endpoints, as a proxy sees them.
type Service struct {
	Name       string // "default/svc-0042:p", unique
	Protocol   string // "tcp" or "udp"
	ClusterIPs []netip.Addr
	Port       uint16
	TargetPort uint16 // the port of every endpoint
	NodePort   uint16 // 0 for none
	Endpoints  []Endpoint
}

// An Endpoint is one backend of a [Service].
type Endpoint struct {
	Addrs   []netip.Addr // one per family, IPv4 first
	Serving bool
}

// Staleness says why the state After makes an entry stale.
type Staleness string

// The ways an entry goes stale, the first two ones kube-proxy's reconciler and this module's
// both clear, the others only this module's (see the benchmark's doc for why).
const (
	EndpointRemoved    Staleness = "endpoint removed"
	EndpointNotServing Staleness = "endpoint no longer serving"
	NotNATed           Staleness = "not NATed: the datagram came before the rule (kubernetes#98305)"
	NoServingEndpoint  Staleness = "no serving endpoint left (kubernetes#139629)"
	ServiceDeleted     Staleness = "service deleted (kubernetes#141371)"
	NodePortLost       Staleness = "NodePort changed"
)

// NewNodeTable returns the table and state spec describes.
//
// Addresses: the node is 198.18.1.1 and 2001:db8:1::1, service IPs are in 198.19.0.0/16 and
// 2001:db8:5::/64, endpoints in 198.18.64.0/18 and 2001:db8:2::/64, clients in 198.18.128.0/17
// and 2001:db8:c::/64. Each service port has three serving endpoints; a stale entry is NATed to
// an endpoint of its own, so that exactly Stale entries go stale.
func NewNodeTable(spec NodeTableSpec) (*NodeTable, error) {
	if spec.Services < 10 || spec.TCP < 0 || spec.UDP < spec.Stale || spec.Stale < 0 || spec.Stack > DualStack {
		return nil, fmt.Errorf("netnstest: node table spec %+v: needs 10 services or more, at most as many stale entries as UDP ones, and a known stack", spec)
	}
	b := &nodeBuilder{spec: spec, t: &NodeTable{Stale: map[Flow]Staleness{}}}
	b.t.Node = b.addrs(netip.AddrFrom4([4]byte{198, 18, 1, 1}), netip.MustParseAddr("2001:db8:1::1"))
	var tcp, udp []*Service
	for i := 0; i < spec.Services; i++ {
		s := b.service(i%10 == 0, i%4 == 1)
		if s.Protocol == "udp" {
			udp = append(udp, s)
		} else {
			tcp = append(tcp, s)
		}
	}
	if len(tcp) == 0 && spec.TCP > 0 {
		return nil, fmt.Errorf("netnstest: node table spec %+v: no TCP service", spec)
	}
	for i := 0; i < spec.TCP; i++ {
		s := tcp[i%len(tcp)]
		b.flow(s, i, s.Endpoints[i%len(s.Endpoints)], i%5 == 0, "")
	}
	b.stale(udp)
	for i := 0; b.udp < spec.UDP; i++ {
		s := udp[i%len(udp)]
		b.flow(s, i, s.Endpoints[i%3], i%5 == 0, "")
	}
	b.finish()
	return b.t, nil
}

type nodeBuilder struct {
	spec      NodeTableSpec
	t         *NodeTable
	services  []*Service
	after     map[string]*Service // the services After changes; nil value: deleted
	endpoints int
	clients   int
	udp       int // UDP entries made
}

// addrs returns the addresses of the node's families among v4 and v6, IPv4 first.
func (b *nodeBuilder) addrs(v4, v6 netip.Addr) []netip.Addr {
	switch b.spec.Stack {
	case IPv6Only:
		return []netip.Addr{v6}
	case DualStack:
		return []netip.Addr{v4, v6}
	}
	return []netip.Addr{v4}
}

func v6(prefix [8]byte, n int) netip.Addr {
	var a [16]byte
	copy(a[:], prefix[:])
	a[12], a[13], a[14], a[15] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
	return netip.AddrFrom16(a)
}

var (
	svcPrefix    = [8]byte{0x20, 0x01, 0x0d, 0xb8, 0, 5}
	podPrefix    = [8]byte{0x20, 0x01, 0x0d, 0xb8, 0, 2}
	clientPrefix = [8]byte{0x20, 0x01, 0x0d, 0xb8, 0, 0x0c}
)

// service adds a service port with three serving endpoints.
func (b *nodeBuilder) service(udp, nodePort bool) *Service {
	i := len(b.services)
	s := &Service{
		Name:       fmt.Sprintf("default/svc-%04d:p", i),
		Protocol:   "tcp",
		ClusterIPs: b.addrs(netip.AddrFrom4([4]byte{198, 19, byte(i >> 8), byte(i)}), v6(svcPrefix, i+1)),
		Port:       []uint16{443, 80}[i%2],
		TargetPort: 8000 + uint16(i%1000),
	}
	if udp {
		s.Protocol, s.Port = "udp", []uint16{53, 5000 + uint16(i%1000)}[i%20/10]
	}
	if nodePort {
		s.NodePort = 30000 + uint16(i%2700)
	}
	for j := 0; j < 3; j++ {
		s.Endpoints = append(s.Endpoints, b.endpoint())
	}
	b.services = append(b.services, s)
	return s
}

func (b *nodeBuilder) endpoint() Endpoint {
	k := b.endpoints
	b.endpoints++
	return Endpoint{Addrs: b.addrs(netip.AddrFrom4([4]byte{198, 18, 64 + byte(k>>8), byte(k)}), v6(podPrefix, k+1)), Serving: true}
}

// flow adds the i-th entry of s: from a client of its own source port to a service IP, or to
// the node's NodePort when toNodePort and s has one, NATed to ep, or not NATed when ep has no
// addresses. A stale entry records why.
func (b *nodeBuilder) flow(s *Service, i int, ep Endpoint, toNodePort bool, why Staleness) Flow {
	c := b.clients
	b.clients++
	fam := 0 // the index of the flow's family in every address list
	if b.spec.Stack == DualStack && c%2 == 1 {
		fam = 1
	}
	client := b.addrs(netip.AddrFrom4([4]byte{198, 18, 128 + byte(c>>8&127), byte(c)}), v6(clientPrefix, c%32768+1))[fam]
	// 32,768 clients, each with source ports from 1024 up: unique up to about two billion.
	src := netip.AddrPortFrom(client, 1024+uint16(c/32768))
	dst := netip.AddrPortFrom(s.ClusterIPs[fam], s.Port)
	if toNodePort && s.NodePort != 0 {
		dst = netip.AddrPortFrom(b.t.Node[fam], s.NodePort)
	}
	f := Flow{Protocol: s.Protocol, Src: src, Dst: dst}
	if len(ep.Addrs) > 0 {
		f.ReplySrc = netip.AddrPortFrom(ep.Addrs[fam], s.TargetPort)
	}
	b.t.Flows = append(b.t.Flows, f)
	if s.Protocol == "udp" {
		b.udp++
	}
	if why != "" {
		b.t.Stale[f] = why
	}
	return f
}

// stale makes the changes that leave exactly spec.Stale UDP entries stale: each kind gets a
// share, on endpoints and services that carry only those entries.
func (b *nodeBuilder) stale(udp []*Service) {
	b.after = map[string]*Service{}
	shares := []struct {
		why   Staleness
		share int // in tenths
	}{
		{EndpointRemoved, 3}, {EndpointNotServing, 2}, {NotNATed, 1},
		{NoServingEndpoint, 1}, {ServiceDeleted, 2}, {NodePortLost, 1},
	}
	left := b.spec.Stale
	for k, sh := range shares {
		n := b.spec.Stale * sh.share / 10
		if k == len(shares)-1 {
			n = left
		}
		left -= n
		if n == 0 {
			continue
		}
		switch sh.why {
		case EndpointRemoved, EndpointNotServing:
			s := udp[k%len(udp)]
			doomed := b.endpoint()
			s.Endpoints = append(s.Endpoints, doomed)
			a := b.changed(s)
			if sh.why == EndpointRemoved {
				a.Endpoints = a.Endpoints[:len(a.Endpoints)-1]
			} else {
				a.Endpoints[len(a.Endpoints)-1].Serving = false
			}
			for i := 0; i < n; i++ {
				b.flow(s, i, doomed, false, sh.why)
			}
		case NotNATed:
			s := b.service(true, true)
			for i := 0; i < n; i++ {
				b.flow(s, i, Endpoint{}, true, sh.why)
			}
		case NoServingEndpoint:
			s := b.service(true, false)
			a := b.changed(s)
			for j := range a.Endpoints {
				a.Endpoints[j].Serving = false
			}
			for i := 0; i < n; i++ {
				b.flow(s, i, s.Endpoints[i%3], false, sh.why)
			}
		case ServiceDeleted:
			s := b.service(true, true)
			b.after[s.Name] = nil
			for i := 0; i < n; i++ {
				b.flow(s, i, s.Endpoints[i%3], i%2 == 0, sh.why)
			}
		case NodePortLost:
			s := b.service(true, true)
			b.changed(s).NodePort = 32700 + uint16(len(b.services)%60)
			for i := 0; i < n; i++ {
				b.flow(s, i, s.Endpoints[i%3], true, sh.why)
			}
		}
	}
}

// changed returns the copy of s that After holds, made on first use.
func (b *nodeBuilder) changed(s *Service) *Service {
	if a, ok := b.after[s.Name]; ok && a != nil {
		return a
	}
	a := *s
	a.Endpoints = append([]Endpoint(nil), s.Endpoints...)
	b.after[s.Name] = &a
	return &a
}

func (b *nodeBuilder) finish() {
	for _, s := range b.services {
		b.t.Before = append(b.t.Before, *s)
		a, changed := b.after[s.Name]
		switch {
		case !changed:
			b.t.After = append(b.t.After, *s)
		case a != nil:
			b.t.After = append(b.t.After, *a)
		}
	}
	byName := func(ss []Service) {
		sort.Slice(ss, func(i, j int) bool { return ss[i].Name < ss[j].Name })
	}
	byName(b.t.Before)
	byName(b.t.After)
}

// TrackBefore sets every service of Before, with its serving endpoints, on tr: what a
// proxy's informers delivered before the changes.
func (t *NodeTable) TrackBefore(tr *conntrackorder.Tracker) error { return track(tr, t.Before) }

// TrackAfter brings tr from Before to After: it sets every service of After and deletes the
// services of Before that After lacks.
func (t *NodeTable) TrackAfter(tr *conntrackorder.Tracker) error {
	if err := track(tr, t.After); err != nil {
		return err
	}
	after := map[string]bool{}
	for _, s := range t.After {
		after[s.Name] = true
	}
	for _, s := range t.Before {
		if !after[s.Name] {
			tr.DeleteService(s.Name)
		}
	}
	return nil
}

func track(tr *conntrackorder.Tracker, state []Service) error {
	for _, s := range state {
		proto := conntrackorder.TCP
		if s.Protocol == "udp" {
			proto = conntrackorder.UDP
		}
		if err := tr.SetService(conntrackorder.ServicePort{Name: s.Name, Protocol: proto, Port: s.Port,
			ClusterIPs: s.ClusterIPs, NodePort: s.NodePort}); err != nil {
			return err
		}
		var serving []netip.AddrPort
		for _, ep := range s.Endpoints {
			if ep.Serving {
				for _, a := range ep.Addrs {
					serving = append(serving, netip.AddrPortFrom(a, s.TargetPort))
				}
			}
		}
		if err := tr.SetEndpoints(s.Name, serving); err != nil {
			return err
		}
	}
	return nil
}
