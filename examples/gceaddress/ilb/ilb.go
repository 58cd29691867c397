package ilb

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/safereconcile/safereconcile/examples/gceaddress/gcecloud"
)

// Health check settings of kube-proxy's health endpoint, which the load balancer probes on
// every node.
const (
	healthCheckPath = "/healthz"
	healthCheckPort = 10256
)

// A loadBalancer is what ensure needs to know of a Service: the names of its cloud resources
// and the frontend it asks for.
type loadBalancer struct {
	name     string // of the forwarding rule, and of the controller's address reservation
	service  string // namespace/name, for descriptions
	ip       string // spec.loadBalancerIP; empty for any IP
	protocol string // "TCP" or "UDP"
	ports    []string
}

// LoadBalancerName returns the name of the forwarding rule, and of the controller's address
// reservation, for svc: "a" followed by the Service's UID without dashes, cut to 32 characters,
// as the Kubernetes cloud provider names them.
func LoadBalancerName(svc *corev1.Service) string {
	name := "a" + strings.ReplaceAll(string(svc.UID), "-", "")
	if len(name) > 32 {
		name = name[:32]
	}
	return name
}

func newLoadBalancer(svc *corev1.Service) (loadBalancer, error) {
	if svc == nil {
		return loadBalancer{}, errors.New("ilb: nil service")
	}
	key := svc.Namespace + "/" + svc.Name
	if svc.UID == "" {
		return loadBalancer{}, fmt.Errorf("ilb: service %s has no UID", key)
	}
	if len(svc.Spec.Ports) == 0 {
		return loadBalancer{}, fmt.Errorf("ilb: service %s has no ports", key)
	}
	lb := loadBalancer{name: LoadBalancerName(svc), service: key, ip: svc.Spec.LoadBalancerIP}
	for _, p := range svc.Spec.Ports {
		proto := p.Protocol
		if proto == "" {
			proto = corev1.ProtocolTCP
		}
		if proto != corev1.ProtocolTCP && proto != corev1.ProtocolUDP {
			return loadBalancer{}, fmt.Errorf("ilb: service %s: protocol %s: only TCP and UDP are supported", key, proto)
		}
		if lb.protocol != "" && lb.protocol != string(proto) {
			return loadBalancer{}, fmt.Errorf("ilb: service %s mixes protocols %s and %s", key, lb.protocol, proto)
		}
		lb.protocol = string(proto)
		lb.ports = append(lb.ports, strconv.Itoa(int(p.Port)))
	}
	return lb, nil
}

func (lb loadBalancer) firewallName() string       { return "k8s-fw-" + lb.name }
func (lb loadBalancer) healthCheckName() string    { return "k8s-hc-" + lb.name }
func (lb loadBalancer) backendServiceName() string { return "k8s-bs-" + lb.name }

// description marks a resource with the Service it belongs to, as the cloud provider does.
func (lb loadBalancer) description() string {
	return fmt.Sprintf(`{"kubernetes.io/service-name":%q}`, lb.service)
}

// existingRule returns the Service's forwarding rule, or nil when there is none yet.
func existingRule(ctx context.Context, c *gcecloud.Cloud, lb loadBalancer) (*gcecloud.ForwardingRule, error) {
	fr, err := c.GetForwardingRule(ctx, lb.name)
	if errors.Is(err, gcecloud.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &fr, nil
}

// ipToUse is the IP the forwarding rule must have: the one the Service asks for, else the one
// the existing rule has, else any ("").
func ipToUse(lb loadBalancer, existing *gcecloud.ForwardingRule) string {
	switch {
	case lb.ip != "":
		return lb.ip
	case existing != nil:
		return existing.IP
	}
	return ""
}

// ensureHealthCheck, ensureFirewall and ensureBackendService create their resource when it is
// missing. An existing one is left as it is: updating a changed spec is not part of this
// reproduction.
func ensureHealthCheck(ctx context.Context, c *gcecloud.Cloud, lb loadBalancer) error {
	_, err := c.GetHealthCheck(ctx, lb.healthCheckName())
	if !errors.Is(err, gcecloud.ErrNotFound) {
		return err // nil when it exists
	}
	return c.InsertHealthCheck(ctx, gcecloud.HealthCheck{
		Name: lb.healthCheckName(), Path: healthCheckPath, Port: healthCheckPort,
	})
}

// reserveOwn holds ip (any IP when empty) with the controller's own reservation, named after
// the load balancer, and returns it. A reservation of that name left by an earlier sync is
// reused when it holds the right IP, and given back first when it does not. When another
// address reserves ip, the error wraps [gcecloud.ErrConflict].
func reserveOwn(ctx context.Context, c *gcecloud.Cloud, lb loadBalancer, ip string) (gcecloud.Address, error) {
	// Look the name up first: it is the controller's own, so a leftover is found here, and in
	// the common case this is the cheapest way to know whether a delete must come first.
	a, err := c.GetAddress(ctx, lb.name)
	switch {
	case err == nil && (ip == "" || a.IP == ip):
		return a, nil
	case err == nil:
		if err := c.DeleteAddress(ctx, lb.name); err != nil && !errors.Is(err, gcecloud.ErrNotFound) {
			return gcecloud.Address{}, err
		}
	case !errors.Is(err, gcecloud.ErrNotFound):
		return gcecloud.Address{}, err
	}
	return c.InsertAddress(ctx, gcecloud.Address{Name: lb.name, IP: ip, Description: lb.description()})
}

// releaseOwn gives the controller's reservation back. It only ever deletes the address named
// after the load balancer, never an address found by IP, so it cannot delete a user's address.
// An address that is already gone is not an error.
func releaseOwn(ctx context.Context, c *gcecloud.Cloud, lb loadBalancer) error {
	if err := c.DeleteAddress(ctx, lb.name); err != nil && !errors.Is(err, gcecloud.ErrNotFound) {
		return err
	}
	return nil
}

func ensureFirewall(ctx context.Context, c *gcecloud.Cloud, lb loadBalancer, ip string) error {
	_, err := c.GetFirewall(ctx, lb.firewallName())
	if !errors.Is(err, gcecloud.ErrNotFound) {
		return err // nil when it exists
	}
	return c.InsertFirewall(ctx, gcecloud.Firewall{
		Name: lb.firewallName(), Destination: ip, Protocol: lb.protocol, Ports: lb.ports,
	})
}

func ensureBackendService(ctx context.Context, c *gcecloud.Cloud, lb loadBalancer) error {
	_, err := c.GetBackendService(ctx, lb.backendServiceName())
	if !errors.Is(err, gcecloud.ErrNotFound) {
		return err // nil when it exists
	}
	return c.InsertBackendService(ctx, gcecloud.BackendService{
		Name: lb.backendServiceName(), Protocol: lb.protocol, HealthCheck: lb.healthCheckName(),
	})
}

// ensureForwardingRule creates the forwarding rule on ip, first deleting an existing rule that
// differs from what the Service asks for. The reservation held by the caller is what keeps ip
// from being taken between that delete and the insert.
func ensureForwardingRule(ctx context.Context, c *gcecloud.Cloud, lb loadBalancer, existing *gcecloud.ForwardingRule, ip string) error {
	want := gcecloud.ForwardingRule{
		Name: lb.name, IP: ip, Protocol: lb.protocol, Ports: lb.ports, BackendService: lb.backendServiceName(),
	}
	if existing != nil {
		if existing.IP == want.IP && existing.Protocol == want.Protocol &&
			slices.Equal(existing.Ports, want.Ports) && existing.BackendService == want.BackendService {
			return nil
		}
		if err := c.DeleteForwardingRule(ctx, lb.name); err != nil && !errors.Is(err, gcecloud.ErrNotFound) {
			return err
		}
	}
	_, err := c.InsertForwardingRule(ctx, want)
	return err
}

// status reads the forwarding rule back and reports its IP as the Service's ingress.
func status(ctx context.Context, c *gcecloud.Cloud, lb loadBalancer) (*corev1.LoadBalancerStatus, error) {
	fr, err := c.GetForwardingRule(ctx, lb.name)
	if err != nil {
		return nil, err
	}
	return &corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: fr.IP}}}, nil
}

// EnsureDeleted deletes the Service's load balancer: the controller's address reservation (a
// leftover, if any), the forwarding rule, the backend service, the firewall rule and the health
// check, in that order. Resources that are already gone are skipped. It never deletes an
// address the user reserved under their own name, even when the load balancer used its IP. On
// an error it stops; what is left is deleted by the next call.
func EnsureDeleted(ctx context.Context, c *gcecloud.Cloud, svc *corev1.Service) error {
	lb, err := newLoadBalancer(svc)
	if err != nil {
		return err
	}
	steps := []struct {
		name string
		del  func(ctx context.Context, name string) error
	}{
		{lb.name, c.DeleteAddress}, // only ever the controller's own reservation, by its name
		{lb.name, c.DeleteForwardingRule},
		{lb.backendServiceName(), c.DeleteBackendService},
		{lb.firewallName(), c.DeleteFirewall},
		{lb.healthCheckName(), c.DeleteHealthCheck},
	}
	for _, step := range steps {
		if err := step.del(ctx, step.name); err != nil && !errors.Is(err, gcecloud.ErrNotFound) {
			return fmt.Errorf("ilb: delete load balancer %s: %w", lb.name, err)
		}
	}
	return nil
}
