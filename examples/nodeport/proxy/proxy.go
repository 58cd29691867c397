package proxy

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/examples/nodeport/packetpath"
)

// A Proxy is one node's service proxy: it is told about Services and EndpointSlices as the
// informers deliver them, and Sync makes the node's rules and conntrack table follow.
type Proxy interface {
	// SetService records the current state of a Service. Only NodePort Services (and
	// LoadBalancer Services, which have NodePorts) with a ClusterIP are proxied.
	SetService(svc *corev1.Service) error
	// SetEndpointSlice records the current endpoints of the Service the slice's
	// kubernetes.io/service-name label names. A Service has one slice; a later one replaces it.
	SetEndpointSlice(es *discoveryv1.EndpointSlice) error
	// Sync programs the rules for everything recorded so far and clears the conntrack
	// entries the shape thinks are stale, in the shape's order.
	Sync(ctx context.Context) error
}

// Config is what a proxy needs from its node.
type Config struct {
	// NodeIP is the node address NodePorts are reached on.
	NodeIP netip.Addr
	// Program replaces all the node's DNAT rules with rules, at once, as iptables-restore
	// does.
	Program func(ctx context.Context, rules []packetpath.Rule) error
	// Flusher deletes conntrack entries in the node.
	Flusher conntrackorder.Flusher
}

func (c Config) check() {
	if !c.NodeIP.IsValid() || c.Program == nil || c.Flusher == nil {
		panic("proxy: Config needs NodeIP, Program and Flusher")
	}
}

// A port is one port of one proxied Service with the endpoints the rules send it to.
type port struct {
	sp      conntrackorder.ServicePort
	serving []netip.AddrPort // ready endpoints, sorted
}

// state is what the informers delivered: the input of the rules. Both shapes keep one.
type state struct {
	services map[string]*corev1.Service            // by namespace/name
	slices   map[string]*discoveryv1.EndpointSlice // by namespace/service name
}

func (st *state) setService(svc *corev1.Service) (string, error) {
	if svc == nil || svc.Name == "" {
		return "", fmt.Errorf("proxy: service without a name")
	}
	if st.services == nil {
		st.services = make(map[string]*corev1.Service)
	}
	key := svc.Namespace + "/" + svc.Name
	st.services[key] = svc.DeepCopy()
	return key, nil
}

func (st *state) setEndpointSlice(es *discoveryv1.EndpointSlice) (string, error) {
	if es == nil {
		return "", fmt.Errorf("proxy: nil EndpointSlice")
	}
	name := es.Labels[discoveryv1.LabelServiceName]
	if name == "" {
		return "", fmt.Errorf("proxy: EndpointSlice %s/%s has no %s label", es.Namespace, es.Name, discoveryv1.LabelServiceName)
	}
	if st.slices == nil {
		st.slices = make(map[string]*discoveryv1.EndpointSlice)
	}
	key := es.Namespace + "/" + name
	st.slices[key] = es.DeepCopy()
	return key, nil
}

// ports returns the proxied ports of the Service called key, in the Service's order.
func (st *state) ports(key string) ([]port, error) {
	svc := st.services[key]
	if svc == nil || (svc.Spec.Type != corev1.ServiceTypeNodePort && svc.Spec.Type != corev1.ServiceTypeLoadBalancer) {
		return nil, nil
	}
	var clusterIPs []netip.Addr
	for _, s := range svc.Spec.ClusterIPs {
		ip, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("proxy: service %s: cluster IP: %w", key, err)
		}
		clusterIPs = append(clusterIPs, ip)
	}
	if len(clusterIPs) == 0 {
		return nil, nil
	}
	var out []port
	for _, p := range svc.Spec.Ports {
		proto, ok := protocols[p.Protocol]
		if !ok {
			return nil, fmt.Errorf("proxy: service %s: protocol %q", key, p.Protocol)
		}
		out = append(out, port{
			sp: conntrackorder.ServicePort{
				Name:       key + ":" + p.Name,
				Protocol:   proto,
				Port:       uint16(p.Port),
				ClusterIPs: clusterIPs,
				NodePort:   uint16(p.NodePort),
			},
			serving: st.ready(key, p),
		})
	}
	return out, nil
}

var protocols = map[corev1.Protocol]conntrackorder.Protocol{
	corev1.ProtocolTCP:  conntrackorder.TCP,
	corev1.ProtocolUDP:  conntrackorder.UDP,
	corev1.ProtocolSCTP: conntrackorder.SCTP,
}

// ready returns the endpoints of the Service's slice that are ready to receive traffic for sp:
// the endpoints the rules send it to. A not-ready endpoint is not an endpoint (kubernetes#105657).
func (st *state) ready(key string, sp corev1.ServicePort) []netip.AddrPort {
	es := st.slices[key]
	if es == nil {
		return nil
	}
	var target int32
	for _, p := range es.Ports {
		if p.Port != nil && ptrOr(p.Name, "") == sp.Name && ptrOr(p.Protocol, corev1.ProtocolTCP) == sp.Protocol {
			target = *p.Port
		}
	}
	if target == 0 {
		return nil
	}
	var out []netip.AddrPort
	for _, ep := range es.Endpoints {
		if !ptrOr(ep.Conditions.Ready, true) {
			continue
		}
		for _, a := range ep.Addresses {
			if ip, err := netip.ParseAddr(a); err == nil {
				out = append(out, netip.AddrPortFrom(ip, uint16(target)))
			}
		}
	}
	slices.SortFunc(out, netip.AddrPort.Compare)
	return slices.Compact(out)
}

func ptrOr[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// keys returns the recorded Services' keys, sorted.
func (st *state) keys() []string {
	keys := make([]string, 0, len(st.services))
	for k := range st.services {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// rules returns the DNAT rules for every proxied port with a ready endpoint: each ClusterIP and
// port, then the node address and NodePort, to the first ready endpoint, for the addresses of
// that endpoint's family. A port without ready endpoints has no rule at all.
func (st *state) rules(nodeIP netip.Addr) ([]packetpath.Rule, error) {
	var rules []packetpath.Rule
	for _, key := range st.keys() {
		ports, err := st.ports(key)
		if err != nil {
			return nil, err
		}
		for _, p := range ports {
			if len(p.serving) == 0 {
				continue
			}
			to := p.serving[0]
			for _, ip := range p.sp.ClusterIPs {
				if ip.Is4() != to.Addr().Is4() {
					continue
				}
				rules = append(rules, packetpath.Rule{Protocol: p.sp.Protocol, Dst: netip.AddrPortFrom(ip, p.sp.Port), To: to})
			}
			if p.sp.NodePort != 0 && nodeIP.Is4() == to.Addr().Is4() {
				rules = append(rules, packetpath.Rule{Protocol: p.sp.Protocol, Dst: netip.AddrPortFrom(nodeIP, p.sp.NodePort), To: to})
			}
		}
	}
	return rules, nil
}

// planString returns a plan in conntrack(8)'s words, for the timeline.
func planString(plan conntrackorder.Plan) string {
	parts := make([]string, len(plan))
	for i, f := range plan {
		parts[i] = f.String()
	}
	return strings.Join(parts, ", ")
}
