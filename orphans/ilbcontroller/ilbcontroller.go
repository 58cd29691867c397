package ilbcontroller

import (
	"context"
	"fmt"

	"go.uber.org/multierr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/safereconcile/safereconcile/acquire"
	"github.com/safereconcile/safereconcile/orphans"
)

// Name is the controller's name: its Events' reportingController and its metrics' label.
const Name = "ilb-controller"

// Finalizer holds a Service's deletion until its forwarding rule is deleted, as the
// Kubernetes service controller's load-balancer-cleanup finalizer does.
const Finalizer = "ilb.example.safereconcile.io/cleanup"

// Cloud is what the controller needs of a cloud. Every call is idempotent by name.
type Cloud interface {
	// ReserveAddress reserves an internal address called name, or returns the one already
	// reserved under that name.
	ReserveAddress(ctx context.Context, name string) (ip string, err error)
	// ReleaseAddress releases the reservation called name; nil when there is none.
	ReleaseAddress(ctx context.Context, name string) error
	EnsureForwardingRule(ctx context.Context, name, ip string) error
	// DeleteForwardingRule deletes the rule called name; nil when there is none.
	DeleteForwardingRule(ctx context.Context, name string) error
}

// ResourceName returns the name of the cloud resources (address and forwarding rule) of svc.
func ResourceName(svc client.Object) string { return "k8s-ilb-" + string(svc.GetUID()) }

// Kinds returns the release functions the tracker retries recorded orphans with: addresses,
// released by name, and only the one each Service's own UID names.
func Kinds(cloud Cloud) map[string]orphans.Kind {
	return map[string]orphans.Kind{
		"address": {
			Release: cloud.ReleaseAddress,
			Owns:    func(obj client.Object, id string) bool { return id == ResourceName(obj) },
		},
	}
}

// Reconciler ensures the internal load balancer of each Service of type LoadBalancer.
type Reconciler struct {
	Client  client.Client
	Cloud   Cloud
	Orphans *orphans.Tracker
}

// SetupWithManager registers the controller with mgr, with a tracker on mgr, and returns the
// reconciler. opts configure the controller (concurrency, extra sources).
func SetupWithManager(mgr ctrl.Manager, cloud Cloud, opts ...func(*builder.Builder) *builder.Builder) (*Reconciler, error) {
	r := &Reconciler{
		Client:  mgr.GetClient(),
		Cloud:   cloud,
		Orphans: orphans.NewForManager(mgr, Name, Kinds(cloud)),
	}
	b := ctrl.NewControllerManagedBy(mgr).Named(Name).For(&corev1.Service{})
	for _, o := range opts {
		b = o(b)
	}
	return r, b.Complete(r)
}

// Reconcile ensures, or on deletion removes, the load balancer of the Service req names.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	svc := &corev1.Service{}
	if err := r.Client.Get(ctx, req.NamespacedName, svc); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	_, recorded := svc.Annotations[r.Orphans.Key()]
	ours := controllerutil.ContainsFinalizer(svc, Finalizer)
	wanted := svc.Spec.Type == corev1.ServiceTypeLoadBalancer && svc.DeletionTimestamp == nil
	if !wanted && !ours && !recorded {
		return ctrl.Result{}, nil // never had a load balancer from us
	}
	if wanted && !ours {
		// The finalizer goes on before anything exists in the cloud, so that a deletion
		// always comes through here first.
		patch := client.MergeFromWithOptions(svc.DeepCopy(), client.MergeFromWithOptimisticLock{})
		controllerutil.AddFinalizer(svc, Finalizer)
		if err := r.Client.Patch(ctx, svc, patch); err != nil {
			return ctrl.Result{}, fmt.Errorf("ilbcontroller: add finalizer: %w", err)
		}
	}

	err := r.Orphans.Run(ctx, svc, func(ctx context.Context, s *acquire.Scope) error {
		if !wanted {
			return r.cleanup(ctx, s, svc)
		}
		return r.ensure(ctx, s, svc)
	})
	err = multierr.Append(err, r.publishCondition(ctx, svc))
	if err != nil {
		// Orphans still recorded, or the reconcile failed: come back with backoff.
		return ctrl.Result{}, err
	}
	if !wanted && controllerutil.ContainsFinalizer(svc, Finalizer) {
		// Only now, with the rule gone and nothing recorded, may the Service go.
		patch := client.MergeFromWithOptions(svc.DeepCopy(), client.MergeFromWithOptimisticLock{})
		controllerutil.RemoveFinalizer(svc, Finalizer)
		if err := r.Client.Patch(ctx, svc, patch); err != nil && !apierrors.IsNotFound(err) {
			return ctrl.Result{}, fmt.Errorf("ilbcontroller: remove finalizer: %w", err)
		}
	}
	return ctrl.Result{}, nil
}

// publishCondition shows the orphans of svc in its status.conditions, for people and tools
// that read status, and writes the status only when the condition changed, so that a
// reconcile in steady state writes nothing. The annotation and finalizer Run wrote stay the
// durable record.
func (r *Reconciler) publishCondition(ctx context.Context, svc *corev1.Service) error {
	if !meta.SetStatusCondition(&svc.Status.Conditions, r.Orphans.Condition(svc)) {
		return nil
	}
	if err := r.Client.Status().Update(ctx, svc); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("ilbcontroller: publish condition: %w", err)
	}
	return nil
}

// cleanup deletes the forwarding rule, and then releases the address by name, in case an
// attempt died holding a reservation (the release is idempotent, so this costs one call).
// A failed release becomes an orphan, recorded like any other, and holds the deletion.
func (r *Reconciler) cleanup(ctx context.Context, s *acquire.Scope, svc *corev1.Service) error {
	name := ResourceName(svc)
	s.Defer("address/"+name, func(ctx context.Context) error { return r.Cloud.ReleaseAddress(ctx, name) })
	if err := r.Cloud.DeleteForwardingRule(ctx, name); err != nil {
		return fmt.Errorf("ilbcontroller: delete forwarding rule %s: %w", name, err)
	}
	return nil
}

// ensure reserves the address, points the forwarding rule at it and publishes it. The
// reservation is Temporary: once the rule exists the rule holds the address, and the scope
// releases the reservation on every return path, the successful one included.
func (r *Reconciler) ensure(ctx context.Context, s *acquire.Scope, svc *corev1.Service) error {
	name := ResourceName(svc)
	addr, err := acquire.Temporary(s, "address/"+name,
		func(ctx context.Context) (string, error) { return r.Cloud.ReserveAddress(ctx, name) },
		func(ctx context.Context, _ string) error { return r.Cloud.ReleaseAddress(ctx, name) })
	if err != nil {
		return err
	}
	ip := addr.Value()
	if err := r.Cloud.EnsureForwardingRule(ctx, name, ip); err != nil {
		return fmt.Errorf("ilbcontroller: forwarding rule %s: %w", name, err)
	}
	if in := svc.Status.LoadBalancer.Ingress; len(in) == 1 && in[0].IP == ip {
		return nil // steady state: nothing to write
	}
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: ip}}
	if err := r.Client.Status().Update(ctx, svc); err != nil {
		return fmt.Errorf("ilbcontroller: publish %s: %w", ip, err)
	}
	return nil
}
