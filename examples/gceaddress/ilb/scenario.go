package ilb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/safereconcile/safereconcile/acquire"
	"github.com/safereconcile/safereconcile/examples/gceaddress/gcecloud"
	"github.com/safereconcile/safereconcile/examples/internal/scenario"
	"github.com/safereconcile/safereconcile/lease"
)

// Scenario plays kubernetes#97740 for the examples command. For every call a successful
// ensure makes, it runs [EnsureV1201], [EnsureV1202] and [Ensure] on a fresh in-memory cloud
// with that one call failing, then looks the controller's reservation up by name, as
// TestEnsureInternalLoadBalancerErrors does. It also plays a context cancelled mid-ensure,
// several failing syncs followed by a good one, and an IP the user reserved. It prints a table
// of what each shape left behind and returns a row computed from those results.
//
// The v1.20.1 and v1.20.2 columns of the per-call table are kept in testdata/upstream.json,
// and the conformance test in examples/gceaddress/upstream requires the real
// k8s.io/legacy-cloud-providers v0.20.1 and v0.20.2 to produce the same table.
var Scenario = scenario.Scenario{Name: "gceaddress", Run: run}

// A shape is one version of ensure, driven the same way.
type shape struct {
	name   string
	ensure func(ctx context.Context, c *gcecloud.Cloud, svc *corev1.Service, opts ...acquire.Option) (*corev1.LoadBalancerStatus, error)
}

var (
	v1201Shape = shape{"v1.20.1", func(ctx context.Context, c *gcecloud.Cloud, svc *corev1.Service, _ ...acquire.Option) (*corev1.LoadBalancerStatus, error) {
		return EnsureV1201(ctx, c, svc)
	}}
	v1202Shape = shape{"v1.20.2", func(ctx context.Context, c *gcecloud.Cloud, svc *corev1.Service, _ ...acquire.Option) (*corev1.LoadBalancerStatus, error) {
		return EnsureV1202(ctx, c, svc)
	}}
	fixedShape = shape{"acquire", Ensure}
)

// demoService returns the Service every run of the scenario ensures.
func demoService() *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "default", Name: "ilb", UID: "9c0e6d7a-4b1f-4e55-a0c2-3f6b1d2e8a91",
			Annotations: map[string]string{"networking.gke.io/load-balancer-type": "Internal"},
		},
		Spec: corev1.ServiceSpec{
			Type:  corev1.ServiceTypeLoadBalancer,
			Ports: []corev1.ServicePort{{Protocol: corev1.ProtocolTCP, Port: 80}},
		},
	}
}

// An outcome is what one run of ensure left: its error, the controller's reservation if it
// is still there, and how many orphans the scope reported.
type outcome struct {
	err     error
	left    *gcecloud.Address
	orphans int
}

// leaked reports whether the reservation was left behind with nobody told: the ensure returned
// no orphan for it.
func (o outcome) leaked() bool {
	var orphan *lease.OrphanError
	return o.left != nil && !errors.As(o.err, &orphan)
}

func (o outcome) String() string {
	var orphan *lease.OrphanError
	switch {
	case o.left == nil:
		return "clean"
	case errors.As(o.err, &orphan):
		return fmt.Sprintf("orphan reported x%d", o.orphans)
	case o.err == nil:
		return "LEAKED, said ok"
	}
	return "LEAKED"
}

// play runs sh once on c for svc and looks up what it left.
func play(ctx context.Context, sh shape, c *gcecloud.Cloud, svc *corev1.Service) outcome {
	var o outcome
	_, o.err = sh.ensure(ctx, c, svc, acquire.OnOrphan(func(context.Context, *lease.OrphanError) { o.orphans++ }))
	o.left = reservation(c, svc)
	return o
}

// reservation returns the controller's reservation for svc, or nil when there is none. It
// reads the cloud's state, so faults do not apply.
func reservation(c *gcecloud.Cloud, svc *corev1.Service) *gcecloud.Address {
	for _, a := range c.State().Addresses {
		if a.Name == LoadBalancerName(svc) {
			return &a
		}
	}
	return nil
}

// A failurePoint is one call of a successful ensure: the nth call of op.
type failurePoint struct {
	op  gcecloud.Op
	nth int
}

func (p failurePoint) String() string { return fmt.Sprintf("%s #%d", p.op, p.nth) }

// failurePoints runs each shape once without faults and returns every call they made, in the
// order the first shape made them, so that the table covers each call that can fail.
func failurePoints(ctx context.Context, svc *corev1.Service, shapes ...shape) ([]failurePoint, error) {
	var points []failurePoint
	seen := map[failurePoint]bool{}
	for _, sh := range shapes {
		c := gcecloud.New()
		if o := play(ctx, sh, c, svc); o.err != nil || o.left != nil {
			return nil, fmt.Errorf("ilb: %s shape without faults: error %v, reservation %v", sh.name, o.err, o.left)
		}
		count := map[gcecloud.Op]int{}
		for _, call := range c.Calls() {
			count[call.Op]++
			p := failurePoint{call.Op, count[call.Op]}
			if !seen[p] {
				seen[p] = true
				points = append(points, p)
			}
		}
	}
	return points, nil
}

// A failedCall is what each shape left when one call failed.
type failedCall struct {
	point               failurePoint
	v1201, v1202, fixed outcome
	fixedCloud          *gcecloud.Cloud // the cloud the fixed shape left, for the retry
}

// failEach fails each call a successful ensure makes, one per fresh cloud, under every shape.
func failEach(ctx context.Context, svc *corev1.Service) ([]failedCall, error) {
	points, err := failurePoints(ctx, svc, v1201Shape, v1202Shape, fixedShape)
	if err != nil {
		return nil, err
	}
	calls := make([]failedCall, 0, len(points))
	for _, p := range points {
		fc := failedCall{point: p}
		fc.v1201, _ = failAt(ctx, v1201Shape, svc, p)
		fc.v1202, _ = failAt(ctx, v1202Shape, svc, p)
		fc.fixed, fc.fixedCloud = failAt(ctx, fixedShape, svc, p)
		calls = append(calls, fc)
	}
	return calls, nil
}

func run(ctx context.Context, w io.Writer) (scenario.Row, error) {
	svc := demoService()
	row := scenario.Row{Bug: "#97740 ILB address reservation"}

	calls, err := failEach(ctx, svc)
	if err != nil {
		return row, err
	}
	fmt.Fprintf(w, "kubernetes#97740: ensureInternalLoadBalancer reserves an IP for the forwarding rule.\n")
	fmt.Fprintf(w, "v1.20.1 releases the reservation at the end of its success path and leaks it on error;\n")
	fmt.Fprintf(w, "v1.20.2 fixed that with a defer that only logs a failed release; acquire makes it a\n")
	fmt.Fprintf(w, "Temporary and reports a failed release. A successful ensure makes %d cloud calls; each\n", len(calls))
	fmt.Fprintf(w, "row fails one of them on a fresh cloud, then looks up address %s.\n", LoadBalancerName(svc))
	fmt.Fprintf(w, "The v1.20.1 and v1.20.2 columns are replicas checked against the real upstream code:\n")
	fmt.Fprintf(w, "TestUpstreamConformance (examples/gceaddress/upstream) runs k8s.io/legacy-cloud-providers\n")
	fmt.Fprintf(w, "v0.20.1 and v0.20.2 on MockGCE, call by call, and requires these rows; go run does not\n")
	fmt.Fprintf(w, "repeat that check.\n\n")

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "FAILURE\t%s\t%s\t%s\n", v1201Shape.name, v1202Shape.name, fixedShape.name)

	// The calls, one failing at a time. A failure of the release itself is counted apart: no
	// shape can release when the release fails; what matters is whether anyone is told.
	var oldLeaks, upstreamFixLeaks, fixedLeaks, failures int
	releaseReported := false
	for _, fc := range calls {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", fc.point, fc.v1201, fc.v1202, fc.fixed)
		var orphan *lease.OrphanError
		if errors.As(fc.fixed.err, &orphan) {
			// The release itself failed. The orphan is reported, and the retry that the error
			// causes finds the reservation by its name and releases it.
			next := play(ctx, fixedShape, fc.fixedCloud, svc)
			releaseReported = fc.fixed.orphans == 1 && orphan.Name == "address/"+LoadBalancerName(svc) &&
				next.err == nil && next.left == nil
			continue
		}
		failures++
		if fc.v1201.leaked() {
			oldLeaks++
		}
		if fc.v1202.leaked() {
			upstreamFixLeaks++
		}
		if fc.fixed.leaked() {
			fixedLeaks++
		}
	}

	// The other ways a sync ends badly, and the ownership case. Each must leave nothing of
	// ours with the fixed shape.
	fixedClean := true
	for _, cs := range []struct {
		label string
		play  func(ctx context.Context, sh shape, svc *corev1.Service) (string, bool, error)
	}{
		{"ctx cancelled mid-ensure", cancelledMidEnsure},
		{fmt.Sprintf("%d failing syncs, then ok", failingSyncs), syncsThenSuccess},
		{"IP the user reserved", usersAddress},
	} {
		var cells [3]string
		for i, sh := range []shape{v1201Shape, v1202Shape, fixedShape} {
			cell, clean, err := cs.play(ctx, sh, svc)
			if err != nil {
				return row, err
			}
			cells[i] = cell
			if sh.name == fixedShape.name {
				fixedClean = fixedClean && clean
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", cs.label, cells[0], cells[1], cells[2])
	}
	if err := tw.Flush(); err != nil {
		return row, err
	}

	fmt.Fprintf(w, "\nLEAKED: the reservation outlived the sync and nobody was told. v1.20.1 leaked it on %d of\n", oldLeaks)
	fmt.Fprintf(w, "%d failing calls, v1.20.2 on %d, acquire on %d. A failed release (addresses.delete) leaves\n", failures, upstreamFixLeaks, fixedLeaks)
	fmt.Fprintf(w, "it in every shape; the upstream ones say ok, acquire returns a *lease.OrphanError and\n")
	fmt.Fprintf(w, "the retry releases the address by its name. The cancelled ensure fails just before\n")
	fmt.Fprintf(w, "%s; v1.20.2's deferred release runs under that cancelled context. Failing syncs\n", gcecloud.FirewallsGet)
	fmt.Fprintf(w, "fail at %s; the user's IP runs a failing sync, a good one and a delete.\n", gcecloud.FirewallsInsert)

	row.Old = fmt.Sprintf("%d of %d failed syncs leaked it, as real v1.20.1 does", oldLeaks, failures)
	row.Fixed = fmt.Sprintf("%d of %d; failed release lost", fixedLeaks, failures)
	if releaseReported {
		row.Fixed = fmt.Sprintf("%d of %d; failed release reported", fixedLeaks, failures)
	}
	row.Reproduced = oldLeaks > 0 && fixedLeaks == 0 && releaseReported && fixedClean
	return row, nil
}

// failAt runs sh on a fresh cloud whose call p fails, and returns the outcome and the cloud.
func failAt(ctx context.Context, sh shape, svc *corev1.Service, p failurePoint) (outcome, *gcecloud.Cloud) {
	c := gcecloud.New()
	c.Fail(p.op, p.nth, nil)
	return play(ctx, sh, c, svc), c
}

// cancelledMidEnsure cancels the sync's context just before the firewall lookup. The fake
// fails every call made under a cancelled context, releases included.
func cancelledMidEnsure(ctx context.Context, sh shape, svc *corev1.Service) (string, bool, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := gcecloud.New()
	c.Before(gcecloud.FirewallsGet, 1, cancel)
	o := play(ctx, sh, c, svc)
	if !errors.Is(o.err, context.Canceled) {
		return "", false, fmt.Errorf("ilb: %s shape: cancelled ensure returned %v", sh.name, o.err)
	}
	return o.String(), o.left == nil, nil
}

// failingSyncs is how many failing syncs syncsThenSuccess runs before the good one.
const failingSyncs = 3

// syncsThenSuccess runs failing syncs, then a good one, on the same cloud, and counts the syncs
// after which the reservation was there.
func syncsThenSuccess(ctx context.Context, sh shape, svc *corev1.Service) (string, bool, error) {
	c := gcecloud.New()
	c.Fail(gcecloud.FirewallsInsert, 0, nil)
	left := 0
	for range failingSyncs {
		if o := play(ctx, sh, c, svc); o.left != nil {
			left++
		}
	}
	c.Heal()
	good := play(ctx, sh, c, svc)
	if good.err != nil {
		return "", false, fmt.Errorf("ilb: %s shape: good sync after failing ones: %w", sh.name, good.err)
	}
	return fmt.Sprintf("left %d/%d, then %s", left, failingSyncs, good), left == 0 && good.left == nil, nil
}

// usersAddress asks for an IP that the user reserved under their own name, then runs a failing
// sync, a good one and a delete. Neither shape may release the user's address, nor leave one
// of its own.
func usersAddress(ctx context.Context, sh shape, svc *corev1.Service) (string, bool, error) {
	c := gcecloud.New()
	user, err := c.InsertAddress(ctx, gcecloud.Address{Name: "users-ilb-ip", IP: "10.128.0.50"})
	if err != nil {
		return "", false, err
	}
	svc = svc.DeepCopy()
	svc.Spec.LoadBalancerIP = user.IP
	c.Fail(gcecloud.FirewallsInsert, 1, nil)
	failed := play(ctx, sh, c, svc)
	good := play(ctx, sh, c, svc)
	if good.err != nil {
		return "", false, fmt.Errorf("ilb: %s shape with the user's IP: %w", sh.name, good.err)
	}
	if err := EnsureDeleted(ctx, c, svc); err != nil {
		return "", false, err
	}
	if left := c.State().Addresses; len(left) != 1 || left[0] != user {
		return "user's DELETED", false, nil
	}
	if failed.left != nil || good.left != nil {
		return "user's kept, LEAKED", false, nil
	}
	return "user's kept, clean", true, nil
}
