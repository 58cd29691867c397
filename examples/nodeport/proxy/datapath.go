package proxy

import (
	"context"
	"net/netip"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/examples/nodeport/packetpath"
)

// A Datapath is the node a scenario runs on: the model of package packetpath ([Model]), or a
// real kernel. A Datapath is used by one goroutine at a time.
type Datapath interface {
	// Program replaces the node's DNAT rules with rules, at once.
	Program(ctx context.Context, rules []packetpath.Rule) error
	// Flusher returns the backend that deletes conntrack entries in the node.
	Flusher() conntrackorder.Flusher
	// Send sends one UDP datagram from src to dst through the node and reports whether its
	// answer came back. Each src is a socket of its own, bound to that address and port.
	Send(ctx context.Context, src, dst netip.AddrPort) (answered bool, err error)
	// Conntrack returns the node's conntrack table as `conntrack -L` lists it, a line per
	// entry, sorted.
	Conntrack(ctx context.Context) ([]string, error)
	// Wait lets d pass on the node's clock.
	Wait(ctx context.Context, d time.Duration) error
	// Now returns the time since the Datapath was made, on its clock.
	Now() time.Duration
}

// The ports of the scenario.
const (
	ServicePort = 80    // the Service's port on its ClusterIP
	NodePort    = 30080 // the Service's NodePort
	PodPort     = 8080  // where the pod listens
	// NodePortClientPort and ClusterIPClientPort are the fixed source ports of the two
	// clients: a client that keeps its socket keeps its flow.
	NodePortClientPort  = 40000
	ClusterIPClientPort = 40001
)

// Addrs are the addresses of the scenario.
type Addrs struct {
	Client    netip.Addr // the host of both clients
	Node      netip.Addr // the node's address, where NodePorts are reached
	Pod       netip.Addr // the pod behind the Service
	ClusterIP netip.Addr // the Service's ClusterIP
}

// DefaultAddrs returns the addresses every run uses, all in 198.18.0.0/15, the range RFC 2544
// reserves for benchmarking, so that a real-kernel run never collides with a real network:
// client 198.18.1.2, node 198.18.1.1, pod 198.18.2.2 (the node is 198.18.2.1 on the pod's
// link), ClusterIP 198.18.3.10.
func DefaultAddrs() Addrs {
	return Addrs{
		Client:    netip.MustParseAddr("198.18.1.2"),
		Node:      netip.MustParseAddr("198.18.1.1"),
		Pod:       netip.MustParseAddr("198.18.2.2"),
		ClusterIP: netip.MustParseAddr("198.18.3.10"),
	}
}

// NodePortFlow returns the source and destination of the client that uses the NodePort.
func (a Addrs) NodePortFlow() (src, dst netip.AddrPort) {
	return netip.AddrPortFrom(a.Client, NodePortClientPort), netip.AddrPortFrom(a.Node, NodePort)
}

// ClusterIPFlow returns the source and destination of the client that uses the ClusterIP.
func (a Addrs) ClusterIPFlow() (src, dst netip.AddrPort) {
	return netip.AddrPortFrom(a.Client, ClusterIPClientPort), netip.AddrPortFrom(a.ClusterIP, ServicePort)
}

// Service returns the scenario's Service: default/echo, type NodePort, one UDP port.
func (a Addrs) Service() *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "echo"},
		Spec: corev1.ServiceSpec{
			Type:       corev1.ServiceTypeNodePort,
			ClusterIP:  a.ClusterIP.String(),
			ClusterIPs: []string{a.ClusterIP.String()},
			Ports: []corev1.ServicePort{{
				Name: "udp", Protocol: corev1.ProtocolUDP, Port: ServicePort, NodePort: NodePort,
			}},
		},
	}
}

// EndpointSlice returns the Service's EndpointSlice with the pod, ready or not.
func (a Addrs) EndpointSlice(ready bool) *discoveryv1.EndpointSlice {
	name, proto, port := "udp", corev1.ProtocolUDP, int32(PodPort)
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "default", Name: "echo-7x2kq",
			Labels: map[string]string{discoveryv1.LabelServiceName: "echo"},
		},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{{
			Addresses:  []string{a.Pod.String()},
			Conditions: discoveryv1.EndpointConditions{Ready: &ready},
		}},
		Ports: []discoveryv1.EndpointPort{{Name: &name, Protocol: &proto, Port: &port}},
	}
}
