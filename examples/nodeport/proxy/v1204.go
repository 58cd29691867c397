package proxy

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/safereconcile/safereconcile/conntrackorder"
)

// V1204 is the proxy in the shape of Kubernetes v1.20.4, bug included. It is here to be
// measured against [Fixed]; do not copy it.
//
// Its Sync opens each new UDP NodePort and deletes the port's entries right away, then
// programs the rules, then deletes the entries of every ClusterIP whose Service's endpoints
// went from none to some. The NodePort clear runs once, before the rules exist, whatever the
// endpoints: a datagram that arrives after it and before the NodePort's rule leaves an entry
// that nothing deletes any more (kubernetes#98305).
//
// Use [NewV1204]. A V1204 is not safe for concurrent use.
type V1204 struct {
	cfg          Config
	state        state
	openPorts    map[uint16]bool // NodePorts the proxy holds
	hadEndpoints map[string]bool // service port name → it had ready endpoints at the last sync
}

var _ Proxy = (*V1204)(nil)

// NewV1204 returns a proxy in the v1.20.4 shape. It panics if cfg lacks NodeIP, Program or
// Flusher.
func NewV1204(cfg Config) *V1204 {
	cfg.check()
	return &V1204{cfg: cfg, openPorts: make(map[uint16]bool), hadEndpoints: make(map[string]bool)}
}

// SetService records svc for the next Sync.
func (p *V1204) SetService(svc *corev1.Service) error {
	_, err := p.state.setService(svc)
	return err
}

// SetEndpointSlice records es for the next Sync.
func (p *V1204) SetEndpointSlice(es *discoveryv1.EndpointSlice) error {
	_, err := p.state.setEndpointSlice(es)
	return err
}

// Sync programs the rules and clears conntrack entries in v1.20.4's order. A failed clear does
// not stop it (v1.20.4 logged it); the failures are returned together at the end. A failed
// programming returns at once, and the endpoints that went from none to some are forgotten
// all the same, as in v1.20.4 (kubernetes#112604).
func (p *V1204) Sync(ctx context.Context) error {
	var errs []error
	var stale conntrackorder.Plan
	for _, key := range p.state.keys() {
		ports, err := p.state.ports(key)
		if err != nil {
			return err
		}
		for _, sp := range ports {
			if sp.sp.Protocol != conntrackorder.UDP {
				continue
			}
			// The bug: the NodePort is cleared when the proxy opens it, before the rules
			// for it exist and whether or not the Service has endpoints. A datagram in the
			// window between this clear and the rule re-creates the unNATed entry, and no
			// later sync clears the port again (kubernetes#98305).
			if np := sp.sp.NodePort; np != 0 && !p.openPorts[np] {
				p.openPorts[np] = true
				errs = append(errs, p.flush(ctx, conntrackorder.Filter{Protocol: conntrackorder.UDP, DstPort: np}))
			}
			has := len(sp.serving) > 0
			if has && !p.hadEndpoints[sp.sp.Name] {
				// None to some: v1.20.4 cleared the service IPs, after programming
				// (conntrack -D --orig-dst <ip> -p udp). Not the NodePort.
				for _, ip := range sp.sp.ClusterIPs {
					stale = append(stale, conntrackorder.Filter{Protocol: conntrackorder.UDP, OrigDst: ip})
				}
			}
			p.hadEndpoints[sp.sp.Name] = has
		}
	}
	rules, err := p.state.rules(p.cfg.NodeIP)
	if err != nil {
		return err
	}
	if err := p.cfg.Program(ctx, rules); err != nil {
		return errors.Join(append(errs, fmt.Errorf("proxy: program: %w", err))...)
	}
	for _, f := range stale {
		errs = append(errs, p.flush(ctx, f))
	}
	return errors.Join(errs...)
}

// flush deletes the entries of one filter, one conntrack(8) command as v1.20.4 ran it.
func (p *V1204) flush(ctx context.Context, f conntrackorder.Filter) error {
	if err := p.cfg.Flusher.Flush(ctx, conntrackorder.Plan{f}); err != nil {
		return fmt.Errorf("proxy: clear %s: %w", f, err)
	}
	return nil
}
