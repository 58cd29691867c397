package gcecloud

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"sync"
)

// Subnet is the region's only subnetwork; every IP the fake hands out or accepts is in it. Its
// first two addresses (network and gateway) and its last (broadcast) are never allocated.
const Subnet = "10.128.0.0/20"

var subnet = netip.MustParsePrefix(Subnet)

// Errors that calls wrap. Test for them with [errors.Is].
var (
	// ErrNotFound is returned for a resource that does not exist (HTTP 404).
	ErrNotFound = errors.New("gcecloud: not found")
	// ErrConflict is returned for a name that exists already, and for an IP that another
	// address reserves or another forwarding rule uses (HTTP 409).
	ErrConflict = errors.New("gcecloud: conflict")
	// ErrInUse is returned when deleting a resource that another resource references (HTTP 400
	// resourceInUseByAnotherResource).
	ErrInUse = errors.New("gcecloud: resource in use")
	// ErrInvalid is returned for a malformed request: an empty name, an IP outside [Subnet], a
	// reference to a resource that does not exist (HTTP 400).
	ErrInvalid = errors.New("gcecloud: invalid request")
	// ErrInjected is what a call made to fail by [Cloud.Fail] returns when no error was given
	// (HTTP 500).
	ErrInjected = errors.New("gcecloud: injected failure")
)

// An Address reserves an IP of [Subnet] under a name.
type Address struct {
	Name        string
	IP          string // dotted IPv4; empty in a reservation request means "any free IP"
	Description string
}

// A Firewall admits traffic to a load balancer IP.
type Firewall struct {
	Name        string
	Destination string   // the IP traffic is admitted to
	Protocol    string   // "TCP" or "UDP"
	Ports       []string // destination ports
}

// A HealthCheck probes the nodes behind a backend service.
type HealthCheck struct {
	Name string
	Path string
	Port int32
}

// A BackendService is the set of backends a forwarding rule sends traffic to.
type BackendService struct {
	Name        string
	Protocol    string
	HealthCheck string // the name of a [HealthCheck] that must exist
}

// A ForwardingRule is the load balancer's frontend: it owns its IP for as long as it exists.
type ForwardingRule struct {
	Name           string
	IP             string // empty in an insert request means "any free IP"
	Protocol       string
	Ports          []string
	BackendService string // the name of a [BackendService] that must exist
}

// State is a copy of everything that exists in a [Cloud], each list sorted by name. A list with
// nothing in it is nil, so that the state of an empty cloud is State{}.
type State struct {
	Addresses       []Address
	Firewalls       []Firewall
	HealthChecks    []HealthCheck
	BackendServices []BackendService
	ForwardingRules []ForwardingRule
}

// A Call is one call made to a [Cloud], as [Cloud.Calls] lists it.
type Call struct {
	Op   Op
	Name string // the resource's name, or the IP for [AddressesGetByIP]
	Err  error  // what the call returned: nil, or an error that starts with Op and Name
}

// String returns the call as "op name", or as its error (which starts the same way) when it
// failed.
func (c Call) String() string {
	if c.Err != nil {
		return c.Err.Error()
	}
	return fmt.Sprintf("%s %s", c.Op, c.Name)
}

// Cloud is the fake regional API. The zero Cloud is not usable; create one with [New]. A Cloud
// is safe for concurrent use; each call is atomic.
type Cloud struct {
	mu              sync.Mutex
	addresses       map[string]Address
	firewalls       map[string]Firewall
	healthChecks    map[string]HealthCheck
	backendServices map[string]BackendService
	forwardingRules map[string]ForwardingRule
	counts          map[Op]int // calls made so far, per operation
	log             []Call
	faults          []fault
}

// New returns an empty cloud with no faults.
func New() *Cloud {
	return &Cloud{
		addresses:       map[string]Address{},
		firewalls:       map[string]Firewall{},
		healthChecks:    map[string]HealthCheck{},
		backendServices: map[string]BackendService{},
		forwardingRules: map[string]ForwardingRule{},
		counts:          map[Op]int{},
	}
}

// State returns a copy of everything that exists. It is not a cloud call: no fault applies and
// nothing is logged.
func (c *Cloud) State() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	return State{
		Addresses:       sortedValues(c.addresses, func(a Address) string { return a.Name }, same),
		Firewalls:       sortedValues(c.firewalls, func(f Firewall) string { return f.Name }, cloneFirewall),
		HealthChecks:    sortedValues(c.healthChecks, func(h HealthCheck) string { return h.Name }, same),
		BackendServices: sortedValues(c.backendServices, func(b BackendService) string { return b.Name }, same),
		ForwardingRules: sortedValues(c.forwardingRules, func(f ForwardingRule) string { return f.Name }, cloneForwardingRule),
	}
}

// Calls returns every call made so far, in order, with its result. It is not a cloud call.
func (c *Cloud) Calls() []Call {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.log)
}

// GetAddress returns the address named name, or an error wrapping [ErrNotFound].
func (c *Cloud) GetAddress(ctx context.Context, name string) (Address, error) {
	return withCall(ctx, c, AddressesGet, name, func() (Address, error) {
		a, ok := c.addresses[name]
		if !ok {
			return Address{}, ErrNotFound
		}
		return a, nil
	})
}

// GetAddressByIP returns the address that reserves ip, whatever its name, or an error
// wrapping [ErrNotFound].
func (c *Cloud) GetAddressByIP(ctx context.Context, ip string) (Address, error) {
	return withCall(ctx, c, AddressesGetByIP, ip, func() (Address, error) {
		if a, ok := c.addressByIP(ip); ok {
			return a, nil
		}
		return Address{}, ErrNotFound
	})
}

// InsertAddress reserves a.IP under a.Name, or the lowest free IP when a.IP is empty, and
// returns the address as reserved. It fails with [ErrConflict] when the name exists or another
// address reserves the IP, and with [ErrInvalid] for an empty name or an IP outside [Subnet].
// Reserving the IP of a forwarding rule is allowed.
func (c *Cloud) InsertAddress(ctx context.Context, a Address) (Address, error) {
	return withCall(ctx, c, AddressesInsert, a.Name, func() (Address, error) {
		if a.Name == "" {
			return Address{}, fmt.Errorf("empty name: %w", ErrInvalid)
		}
		if _, ok := c.addresses[a.Name]; ok {
			return Address{}, fmt.Errorf("name exists: %w", ErrConflict)
		}
		if a.IP == "" {
			ip, err := c.freeIP()
			if err != nil {
				return Address{}, err
			}
			a.IP = ip
		} else {
			ip, err := parseIP(a.IP)
			if err != nil {
				return Address{}, err
			}
			a.IP = ip
			if other, ok := c.addressByIP(ip); ok {
				return Address{}, fmt.Errorf("IP %s is reserved by address %s: %w", ip, other.Name, ErrConflict)
			}
		}
		c.addresses[a.Name] = a
		return a, nil
	})
}

// DeleteAddress releases the address named name, or fails with [ErrNotFound]. A forwarding
// rule that uses the IP keeps it.
func (c *Cloud) DeleteAddress(ctx context.Context, name string) error {
	return withCall0(ctx, c, AddressesDelete, name, func() error {
		if _, ok := c.addresses[name]; !ok {
			return ErrNotFound
		}
		delete(c.addresses, name)
		return nil
	})
}

// GetFirewall returns the firewall rule named name, or an error wrapping [ErrNotFound].
func (c *Cloud) GetFirewall(ctx context.Context, name string) (Firewall, error) {
	return withCall(ctx, c, FirewallsGet, name, func() (Firewall, error) {
		f, ok := c.firewalls[name]
		if !ok {
			return Firewall{}, ErrNotFound
		}
		return cloneFirewall(f), nil
	})
}

// InsertFirewall creates f. It fails with [ErrConflict] when the name exists and with
// [ErrInvalid] for an empty name.
func (c *Cloud) InsertFirewall(ctx context.Context, f Firewall) error {
	return withCall0(ctx, c, FirewallsInsert, f.Name, func() error {
		if f.Name == "" {
			return fmt.Errorf("empty name: %w", ErrInvalid)
		}
		if _, ok := c.firewalls[f.Name]; ok {
			return fmt.Errorf("name exists: %w", ErrConflict)
		}
		c.firewalls[f.Name] = cloneFirewall(f)
		return nil
	})
}

// DeleteFirewall deletes the firewall rule named name, or fails with [ErrNotFound].
func (c *Cloud) DeleteFirewall(ctx context.Context, name string) error {
	return withCall0(ctx, c, FirewallsDelete, name, func() error {
		if _, ok := c.firewalls[name]; !ok {
			return ErrNotFound
		}
		delete(c.firewalls, name)
		return nil
	})
}

// GetHealthCheck returns the health check named name, or an error wrapping [ErrNotFound].
func (c *Cloud) GetHealthCheck(ctx context.Context, name string) (HealthCheck, error) {
	return withCall(ctx, c, HealthChecksGet, name, func() (HealthCheck, error) {
		h, ok := c.healthChecks[name]
		if !ok {
			return HealthCheck{}, ErrNotFound
		}
		return h, nil
	})
}

// InsertHealthCheck creates h. It fails with [ErrConflict] when the name exists and with
// [ErrInvalid] for an empty name.
func (c *Cloud) InsertHealthCheck(ctx context.Context, h HealthCheck) error {
	return withCall0(ctx, c, HealthChecksInsert, h.Name, func() error {
		if h.Name == "" {
			return fmt.Errorf("empty name: %w", ErrInvalid)
		}
		if _, ok := c.healthChecks[h.Name]; ok {
			return fmt.Errorf("name exists: %w", ErrConflict)
		}
		c.healthChecks[h.Name] = h
		return nil
	})
}

// DeleteHealthCheck deletes the health check named name. It fails with [ErrNotFound] when
// there is none and with [ErrInUse] while a backend service references it.
func (c *Cloud) DeleteHealthCheck(ctx context.Context, name string) error {
	return withCall0(ctx, c, HealthChecksDelete, name, func() error {
		if _, ok := c.healthChecks[name]; !ok {
			return ErrNotFound
		}
		for _, b := range c.backendServices {
			if b.HealthCheck == name {
				return fmt.Errorf("used by backend service %s: %w", b.Name, ErrInUse)
			}
		}
		delete(c.healthChecks, name)
		return nil
	})
}

// GetBackendService returns the backend service named name, or an error wrapping
// [ErrNotFound].
func (c *Cloud) GetBackendService(ctx context.Context, name string) (BackendService, error) {
	return withCall(ctx, c, BackendServicesGet, name, func() (BackendService, error) {
		b, ok := c.backendServices[name]
		if !ok {
			return BackendService{}, ErrNotFound
		}
		return b, nil
	})
}

// InsertBackendService creates b. It fails with [ErrConflict] when the name exists and with
// [ErrInvalid] for an empty name or a health check that does not exist.
func (c *Cloud) InsertBackendService(ctx context.Context, b BackendService) error {
	return withCall0(ctx, c, BackendServicesInsert, b.Name, func() error {
		if b.Name == "" {
			return fmt.Errorf("empty name: %w", ErrInvalid)
		}
		if _, ok := c.backendServices[b.Name]; ok {
			return fmt.Errorf("name exists: %w", ErrConflict)
		}
		if _, ok := c.healthChecks[b.HealthCheck]; !ok {
			return fmt.Errorf("health check %q does not exist: %w", b.HealthCheck, ErrInvalid)
		}
		c.backendServices[b.Name] = b
		return nil
	})
}

// DeleteBackendService deletes the backend service named name. It fails with [ErrNotFound]
// when there is none and with [ErrInUse] while a forwarding rule references it.
func (c *Cloud) DeleteBackendService(ctx context.Context, name string) error {
	return withCall0(ctx, c, BackendServicesDelete, name, func() error {
		if _, ok := c.backendServices[name]; !ok {
			return ErrNotFound
		}
		for _, f := range c.forwardingRules {
			if f.BackendService == name {
				return fmt.Errorf("used by forwarding rule %s: %w", f.Name, ErrInUse)
			}
		}
		delete(c.backendServices, name)
		return nil
	})
}

// GetForwardingRule returns the forwarding rule named name, or an error wrapping
// [ErrNotFound].
func (c *Cloud) GetForwardingRule(ctx context.Context, name string) (ForwardingRule, error) {
	return withCall(ctx, c, ForwardingRulesGet, name, func() (ForwardingRule, error) {
		f, ok := c.forwardingRules[name]
		if !ok {
			return ForwardingRule{}, ErrNotFound
		}
		return cloneForwardingRule(f), nil
	})
}

// InsertForwardingRule creates f on f.IP, or on the lowest free IP when f.IP is empty, and
// returns the rule as created. f.IP may be reserved by an address, whoever named it. It fails
// with [ErrConflict] when the name exists or another forwarding rule uses the IP, and with
// [ErrInvalid] for an empty name, an IP outside [Subnet] or a backend service that does not
// exist.
func (c *Cloud) InsertForwardingRule(ctx context.Context, f ForwardingRule) (ForwardingRule, error) {
	return withCall(ctx, c, ForwardingRulesInsert, f.Name, func() (ForwardingRule, error) {
		if f.Name == "" {
			return ForwardingRule{}, fmt.Errorf("empty name: %w", ErrInvalid)
		}
		if _, ok := c.forwardingRules[f.Name]; ok {
			return ForwardingRule{}, fmt.Errorf("name exists: %w", ErrConflict)
		}
		if _, ok := c.backendServices[f.BackendService]; !ok {
			return ForwardingRule{}, fmt.Errorf("backend service %q does not exist: %w", f.BackendService, ErrInvalid)
		}
		if f.IP == "" {
			ip, err := c.freeIP()
			if err != nil {
				return ForwardingRule{}, err
			}
			f.IP = ip
		} else {
			ip, err := parseIP(f.IP)
			if err != nil {
				return ForwardingRule{}, err
			}
			f.IP = ip
			for _, other := range c.forwardingRules {
				if other.IP == ip {
					return ForwardingRule{}, fmt.Errorf("IP %s is used by forwarding rule %s: %w", ip, other.Name, ErrConflict)
				}
			}
		}
		f = cloneForwardingRule(f)
		c.forwardingRules[f.Name] = f
		return cloneForwardingRule(f), nil
	})
}

// DeleteForwardingRule deletes the forwarding rule named name, or fails with [ErrNotFound].
// Its IP becomes free unless an address reserves it.
func (c *Cloud) DeleteForwardingRule(ctx context.Context, name string) error {
	return withCall0(ctx, c, ForwardingRulesDelete, name, func() error {
		if _, ok := c.forwardingRules[name]; !ok {
			return ErrNotFound
		}
		delete(c.forwardingRules, name)
		return nil
	})
}

// withCall makes one logged, fault-checked call of op on name: faults and ctx first, then do
// under the lock. It wraps any error with the operation and the name.
func withCall[T any](ctx context.Context, c *Cloud, op Op, name string, do func() (T, error)) (T, error) {
	i, nth := c.begin(op, name)
	err := c.inject(ctx, op, nth)
	if err == nil {
		c.mu.Lock()
		var v T
		v, err = do()
		c.mu.Unlock()
		if err == nil {
			c.end(i, nil)
			return v, nil
		}
	}
	err = fmt.Errorf("%s %s: %w", op, name, err)
	c.end(i, err)
	var zero T
	return zero, err
}

// withCall0 is withCall for calls that return only an error.
func withCall0(ctx context.Context, c *Cloud, op Op, name string, do func() error) error {
	_, err := withCall(ctx, c, op, name, func() (struct{}, error) { return struct{}{}, do() })
	return err
}

// begin logs a call of op on name and counts it. It returns the call's index in the log, which
// end uses to record the result, and its number among the calls of op (1 for the first), which
// faults are matched against. Both are taken under the lock, so concurrent calls each get their
// own.
func (c *Cloud) begin(op Op, name string) (i, nth int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts[op]++
	c.log = append(c.log, Call{Op: op, Name: name})
	return len(c.log) - 1, c.counts[op]
}

// end records the result of the call at index i of the log.
func (c *Cloud) end(i int, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.log[i].Err = err
}

// freeIP returns the lowest IP of the subnet that no address reserves and no forwarding rule
// uses. The caller holds c.mu.
func (c *Cloud) freeIP() (string, error) {
	used := map[string]bool{}
	for _, a := range c.addresses {
		used[a.IP] = true
	}
	for _, f := range c.forwardingRules {
		used[f.IP] = true
	}
	// Skip the network and gateway addresses; stop before the broadcast address.
	ip := subnet.Addr().Next().Next()
	for ; subnet.Contains(ip.Next()); ip = ip.Next() {
		if !used[ip.String()] {
			return ip.String(), nil
		}
	}
	return "", fmt.Errorf("no free IP in %s: %w", Subnet, ErrConflict)
}

// addressByIP returns the address that reserves ip. The caller holds c.mu.
func (c *Cloud) addressByIP(ip string) (Address, bool) {
	for _, a := range c.addresses {
		if a.IP == ip {
			return a, true
		}
	}
	return Address{}, false
}

// parseIP returns s in canonical form, or an error wrapping [ErrInvalid] when it is not an IP
// of the subnet.
func parseIP(s string) (string, error) {
	ip, err := netip.ParseAddr(s)
	if err != nil || !subnet.Contains(ip) {
		return "", fmt.Errorf("IP %q is not in subnet %s: %w", s, Subnet, ErrInvalid)
	}
	return ip.String(), nil
}

func cloneFirewall(f Firewall) Firewall {
	f.Ports = slices.Clone(f.Ports)
	return f
}

func cloneForwardingRule(f ForwardingRule) ForwardingRule {
	f.Ports = slices.Clone(f.Ports)
	return f
}

// sortedValues returns copies (made by clone) of m's values sorted by name, or nil when m is
// empty, so that no caller shares memory with the cloud.
func sortedValues[V any](m map[string]V, name func(V) string, clone func(V) V) []V {
	if len(m) == 0 {
		return nil
	}
	vs := make([]V, 0, len(m))
	for _, v := range m {
		vs = append(vs, clone(v))
	}
	slices.SortFunc(vs, func(a, b V) int { return cmp.Compare(name(a), name(b)) })
	return vs
}

func same[V any](v V) V { return v }
