package ilb

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/safereconcile/safereconcile/acquire"
	"github.com/safereconcile/safereconcile/examples/gceaddress/gcecloud"
)

// Ensure ensures the internal load balancer of svc and returns its status. It is the fixed
// shape of [EnsureV1201]: no return path leaves the controller's address reservation behind.
//
// The reservation is an [acquire.Temporary] of the ensure's scope, so it is released when
// Ensure returns, whether the ensure succeeded, failed, panicked or had its ctx cancelled: the
// release runs under [context.WithoutCancel] of ctx, bounded by the scope's release timeout.
// The health check, firewall rule, backend service and forwarding rule are durable: they are
// the result and outlive Ensure. A failed ensure leaves them for the next sync to complete, and
// [EnsureDeleted] removes them.
//
// When the release fails, Ensure returns a nil status and an error that [errors.As] finds as a
// [*lease.OrphanError] (joined to the ensure's own error, if any), and the [acquire.OnOrphan]
// handler in opts hears of it once. The controller then retries, as it does for any error, and
// the next sync finds the reservation by its name, reuses it and releases it.
//
// An address the user reserved for the requested IP under their own name is used and never
// released: it never enters the scope, so no return path can release it.
//
// opts configure the scope ([acquire.OnOrphan], [acquire.ReleaseTimeout]). Ensure is safe for
// concurrent use on different Services.
func Ensure(ctx context.Context, c *gcecloud.Cloud, svc *corev1.Service, opts ...acquire.Option) (*corev1.LoadBalancerStatus, error) {
	lb, err := newLoadBalancer(svc)
	if err != nil {
		return nil, err
	}
	var st *corev1.LoadBalancerStatus
	err = acquire.Run(ctx, func(ctx context.Context, s *acquire.Scope) error {
		existing, err := existingRule(ctx, c, lb)
		if err != nil {
			return err
		}
		if err := ensureHealthCheck(ctx, c, lb); err != nil {
			return err
		}

		ip, err := holdAddress(ctx, s, c, lb, ipToUse(lb, existing))
		if err != nil {
			return err
		}
		// From here on the scope releases the reservation whatever happens (kubernetes#97740):
		// these returns are as safe as the last line.
		if err := ensureFirewall(ctx, c, lb, ip); err != nil {
			return err
		}
		if err := ensureBackendService(ctx, c, lb); err != nil {
			return err
		}
		// The forwarding rule is deliberately not a Temporary or Tentative of the scope. Its
		// lifetime is the Service's, not this sync's: it keeps the IP after the reservation
		// goes. Deleting it because a later step of one sync failed (as Tentative would) would
		// take a working load balancer's IP away.
		if err := ensureForwardingRule(ctx, c, lb, existing, ip); err != nil {
			return err
		}
		// Read the rule back. Run releases the reservation after this, when the rule exists
		// and holds the IP, or after whichever step above failed.
		st, err = status(ctx, c, lb)
		return err
	}, opts...)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// holdAddress holds ip (any IP when empty) for the forwarding rule and returns the IP held.
//
// The controller's own reservation is acquired through s, so the scope releases it. An address
// the user reserved under their own name is only looked up and used: there is nothing of ours
// to release, and registering a release for it, even one cancelled right after with
// [lease.Lease.Keep], would leave a window in which an early return or a panic deletes a
// customer's address (kubernetes#20663).
func holdAddress(ctx context.Context, s *acquire.Scope, c *gcecloud.Cloud, lb loadBalancer, ip string) (string, error) {
	release := func(ctx context.Context, _ gcecloud.Address) error { return releaseOwn(ctx, c, lb) }
	own, err := acquire.Temporary(s, "address/"+lb.name,
		func(ctx context.Context) (gcecloud.Address, error) { return reserveOwn(ctx, c, lb, ip) },
		release)
	if err == nil {
		return own.Value().IP, nil
	}
	if !errors.Is(err, gcecloud.ErrConflict) || ip == "" {
		return "", err
	}

	// The IP is reserved under another name: find out whose.
	a, err := c.GetAddressByIP(ctx, ip)
	if err != nil {
		return "", fmt.Errorf("ilb: find the address that reserves %s: %w", ip, err)
	}
	if a.Name != lb.name {
		return a.IP, nil // the user's: use it, never release it
	}
	// Ours after all: another sync reserved it between our lookup and our insert. It is a
	// reservation like any other of ours, so the scope releases it.
	own, err = acquire.Temporary(s, "address/"+lb.name,
		func(context.Context) (gcecloud.Address, error) { return a, nil },
		release)
	if err != nil {
		return "", err
	}
	return own.Value().IP, nil
}
