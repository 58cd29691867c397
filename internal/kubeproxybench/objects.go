package kubeproxybench

import (
	"net/netip"
	"strings"

	v1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kubernetes/pkg/proxy"

	"github.com/safereconcile/safereconcile/internal/netnstest"
)

// Objects returns the Services and EndpointSlices an API server would serve for state: one
// Service per service port, named by the part of its name before the port, and one
// EndpointSlice per address family with the endpoints' serving conditions.
func Objects(state []netnstest.Service) ([]*v1.Service, []*discoveryv1.EndpointSlice) {
	var svcs []*v1.Service
	var slices []*discoveryv1.EndpointSlice
	for _, s := range state {
		nsName, portName, _ := strings.Cut(s.Name, ":")
		ns, name, _ := strings.Cut(nsName, "/")
		proto := v1.ProtocolTCP
		if s.Protocol == "udp" {
			proto = v1.ProtocolUDP
		}
		svc := &v1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: v1.ServiceSpec{
				Type:      v1.ServiceTypeClusterIP,
				ClusterIP: s.ClusterIPs[0].String(),
				Ports: []v1.ServicePort{{Name: portName, Protocol: proto, Port: int32(s.Port),
					TargetPort: intstr.FromInt32(int32(s.TargetPort)), NodePort: int32(s.NodePort)}},
			},
		}
		if s.NodePort != 0 {
			svc.Spec.Type = v1.ServiceTypeNodePort
		}
		policy := v1.IPFamilyPolicySingleStack
		if len(s.ClusterIPs) > 1 {
			policy = v1.IPFamilyPolicyRequireDualStack
		}
		svc.Spec.IPFamilyPolicy = &policy
		for _, ip := range s.ClusterIPs {
			svc.Spec.ClusterIPs = append(svc.Spec.ClusterIPs, ip.String())
			svc.Spec.IPFamilies = append(svc.Spec.IPFamilies, family(ip))
		}
		svcs = append(svcs, svc)

		for i, ip := range s.ClusterIPs {
			slice := &discoveryv1.EndpointSlice{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-" + strings.ToLower(string(family(ip))),
					Labels: map[string]string{discoveryv1.LabelServiceName: name}},
				AddressType: discoveryv1.AddressType(family(ip)),
				Ports:       []discoveryv1.EndpointPort{{Name: &portName, Protocol: &proto, Port: ptr(int32(s.TargetPort))}},
			}
			for _, ep := range s.Endpoints {
				slice.Endpoints = append(slice.Endpoints, discoveryv1.Endpoint{
					Addresses: []string{ep.Addrs[i].String()},
					Conditions: discoveryv1.EndpointConditions{
						Ready: ptr(ep.Serving), Serving: ptr(ep.Serving), Terminating: ptr(!ep.Serving)},
				})
			}
			slices = append(slices, slice)
		}
	}
	return svcs, slices
}

// Maps returns the ServicePortMap and EndpointsMap of one address family that kube-proxy's
// own change trackers make of the objects, as its proxier does on every sync.
func Maps(svcs []*v1.Service, slices []*discoveryv1.EndpointSlice, fam v1.IPFamily) (proxy.ServicePortMap, proxy.EndpointsMap) {
	sct := proxy.NewServiceChangeTracker(fam, nil, nil)
	for _, svc := range svcs {
		sct.Update(nil, svc)
	}
	ect := proxy.NewEndpointsChangeTracker(fam, "node", nil, nil)
	for _, slice := range slices {
		if string(slice.AddressType) == string(fam) {
			ect.EndpointSliceUpdate(slice, false)
		}
	}
	svcMap, epMap := make(proxy.ServicePortMap), make(proxy.EndpointsMap)
	svcMap.Update(sct)
	epMap.Update(ect)
	return svcMap, epMap
}

func family(ip netip.Addr) v1.IPFamily {
	if ip.Is4() {
		return v1.IPv4Protocol
	}
	return v1.IPv6Protocol
}

func ptr[T any](v T) *T { return &v }
