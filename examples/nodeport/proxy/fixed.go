package proxy

import (
	"context"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/safereconcile/safereconcile/conntrackorder"
)

// Fixed is the proxy in the fixed shape: every change reaches a [conntrackorder.Tracker] after
// it is recorded in the state the rules are built from, and Sync is a
// [conntrackorder.Syncer.Sync], which programs the rules and only then flushes what the Tracker
// collected. When a UDP Service's endpoints go from none to some, that is every ClusterIP with
// the port and the NodePort, deleted after the rules that NAT them exist.
//
// Use [NewFixed]. A Fixed is not safe for concurrent use.
type Fixed struct {
	cfg     Config
	state   state
	names   map[string][]string // service key → the Tracker names of its ports
	tracker *conntrackorder.Tracker
	syncer  *conntrackorder.Syncer
}

var _ Proxy = (*Fixed)(nil)

// NewFixed returns a proxy in the fixed shape. It panics if cfg lacks NodeIP, Program or
// Flusher.
func NewFixed(cfg Config) *Fixed {
	cfg.check()
	p := &Fixed{cfg: cfg, names: make(map[string][]string), tracker: conntrackorder.NewTracker()}
	p.syncer = conntrackorder.NewSyncer(p.tracker, p.program, cfg.Flusher)
	return p
}

// program installs the rules for the state recorded so far: at least as new as every change
// reported to the Tracker, as NewSyncer requires.
func (p *Fixed) program(ctx context.Context) error {
	rules, err := p.state.rules(p.cfg.NodeIP)
	if err != nil {
		return err
	}
	return p.cfg.Program(ctx, rules)
}

// SetService records svc, then reports its ports and their ready endpoints to the Tracker. A
// port the Service no longer has is deleted from the Tracker.
func (p *Fixed) SetService(svc *corev1.Service) error {
	key, err := p.state.setService(svc)
	if err != nil {
		return err
	}
	return p.report(key)
}

// SetEndpointSlice records es, then reports the ready endpoints of its Service's ports to the
// Tracker.
func (p *Fixed) SetEndpointSlice(es *discoveryv1.EndpointSlice) error {
	key, err := p.state.setEndpointSlice(es)
	if err != nil {
		return err
	}
	return p.report(key)
}

// report tells the Tracker the current ports and endpoints of the Service called key. The
// state is already recorded: a Sync that runs from here on programs rules at least this new.
func (p *Fixed) report(key string) error {
	ports, err := p.state.ports(key)
	if err != nil {
		return err
	}
	var errs []error
	names := make([]string, 0, len(ports))
	for _, sp := range ports {
		names = append(names, sp.sp.Name)
		errs = append(errs, p.tracker.SetService(sp.sp), p.tracker.SetEndpoints(sp.sp.Name, sp.serving))
	}
	for _, old := range p.names[key] {
		if !slices.Contains(names, old) {
			p.tracker.DeleteService(old)
		}
	}
	p.names[key] = names
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("proxy: service %s: %w", key, err)
	}
	return nil
}

// Sync programs the rules, then flushes the filters collected since the last successful flush
// (see [conntrackorder.Syncer.Sync]). On error nothing collected is lost; call Sync again.
func (p *Fixed) Sync(ctx context.Context) error {
	return p.syncer.Sync(ctx)
}
