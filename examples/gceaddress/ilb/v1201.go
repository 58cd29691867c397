package ilb

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/safereconcile/safereconcile/examples/gceaddress/gcecloud"
)

// EnsureV1201 ensures the internal load balancer of svc in the shape of Kubernetes v1.20.1, bug
// included, and returns its status. It is here to be measured against [Ensure]; do not copy it.
//
// It reserves the IP and releases the reservation only at the end of the success path: every
// error return after the reservation leaves it behind (kubernetes#97740), and so does a context
// cancelled in between. A failed release is only logged in v1.20.1; here it is dropped, and
// EnsureV1201 reports success with the reservation still in place. A leftover is found by name
// and reused by the next sync, and released by the first one that succeeds.
//
// An address the user reserved for the requested IP under their own name is used and never
// released. EnsureV1201 is safe for concurrent use on different Services.
func EnsureV1201(ctx context.Context, c *gcecloud.Cloud, svc *corev1.Service) (*corev1.LoadBalancerStatus, error) {
	lb, err := newLoadBalancer(svc)
	if err != nil {
		return nil, err
	}
	existing, err := existingRule(ctx, c, lb)
	if err != nil {
		return nil, err
	}
	if err := ensureHealthCheck(ctx, c, lb); err != nil {
		return nil, err
	}

	ip, owned, err := holdAddressUpstream(ctx, c, lb, ipToUse(lb, existing))
	if err != nil {
		return nil, err
	}
	// kubernetes#97740: from here to the release below, each of these returns leaves the
	// reservation behind. Nothing ties the reservation to the function's return paths.
	if err := ensureFirewall(ctx, c, lb, ip); err != nil {
		return nil, err
	}
	if err := ensureBackendService(ctx, c, lb); err != nil {
		return nil, err
	}
	if err := ensureForwardingRule(ctx, c, lb, existing, ip); err != nil {
		return nil, err
	}

	if owned {
		// Now that the forwarding rule exists it holds the IP, so the reservation can go.
		// v1.20.1 only logged a failure here ("possibly causing an orphan") and reported
		// success: nothing but a later sync that happens to run releases the leftover.
		_ = releaseOwn(ctx, c, lb)
	}
	return status(ctx, c, lb)
}

// holdAddressUpstream holds ip the way the address manager of v1.20.1 and v1.20.2 did. owned
// reports whether the reservation is the controller's own, to be released at the end of
// ensure; it is false for an address the user reserved under their own name.
func holdAddressUpstream(ctx context.Context, c *gcecloud.Cloud, lb loadBalancer, ip string) (addr string, owned bool, err error) {
	a, err := reserveOwn(ctx, c, lb, ip)
	if err == nil {
		return a.IP, true, nil
	}
	if !errors.Is(err, gcecloud.ErrConflict) || ip == "" {
		return "", false, err
	}
	// The IP is reserved under another name: find out whose.
	a, err = c.GetAddressByIP(ctx, ip)
	if err != nil {
		return "", false, fmt.Errorf("ilb: find the address that reserves %s: %w", ip, err)
	}
	return a.IP, a.Name == lb.name, nil
}
