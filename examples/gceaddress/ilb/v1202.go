package ilb

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/safereconcile/safereconcile/examples/gceaddress/gcecloud"
)

// EnsureV1202 ensures the internal load balancer of svc in the shape of Kubernetes v1.20.2, the
// upstream fix of kubernetes#97740, and returns its status. It is here to be measured against
// [EnsureV1201] and [Ensure]; copy [Ensure] instead.
//
// It defers the release right after the reservation succeeds, so no error return leaves the
// reservation behind. Two gaps remain. A release that fails is only logged in v1.20.2; here it
// is dropped, and EnsureV1202 reports success with the reservation still in place: the orphan
// nobody is told about. And the deferred release runs under ctx: when ctx is cancelled it fails
// like any other call. v1.20.2's cloud calls took no context, so it had no such failure; a port
// to context-aware calls that keeps its defer gains one, which is why [Ensure] releases under
// [context.WithoutCancel].
//
// An address the user reserved for the requested IP under their own name is used and never
// released. EnsureV1202 is safe for concurrent use on different Services.
func EnsureV1202(ctx context.Context, c *gcecloud.Cloud, svc *corev1.Service) (*corev1.LoadBalancerStatus, error) {
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
	if owned {
		// kubernetes#97740's fix: release on every return path from here on. v1.20.2 logged a
		// failed release ("possibly causing an orphan") and returned whatever the ensure did.
		defer func() { _ = releaseOwn(ctx, c, lb) }()
	}
	if err := ensureFirewall(ctx, c, lb, ip); err != nil {
		return nil, err
	}
	if err := ensureBackendService(ctx, c, lb); err != nil {
		return nil, err
	}
	if err := ensureForwardingRule(ctx, c, lb, existing, ip); err != nil {
		return nil, err
	}
	return status(ctx, c, lb)
}
