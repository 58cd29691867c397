package ilbcontroller_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/safereconcile/safereconcile/orphans"
	"github.com/safereconcile/safereconcile/orphans/ilbcontroller"
)

// memCloud is an ilbcontroller.Cloud in memory whose releases fail while down is set.
type memCloud struct {
	mu        sync.Mutex
	down      bool
	addresses map[string]string
	rules     map[string]string
}

var _ ilbcontroller.Cloud = (*memCloud)(nil)

func (c *memCloud) ReserveAddress(_ context.Context, name string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.addresses[name] = "10.0.0.7"
	return "10.0.0.7", nil
}

func (c *memCloud) ReleaseAddress(_ context.Context, name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.down {
		return errors.New("cloud: 503 backend unavailable")
	}
	delete(c.addresses, name)
	return nil
}

func (c *memCloud) EnsureForwardingRule(_ context.Context, name, ip string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rules[name] = ip
	return nil
}

func (c *memCloud) DeleteForwardingRule(_ context.Context, name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.rules, name)
	return nil
}

func (c *memCloud) setDown(down bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.down = down
}

func (c *memCloud) state() (addresses, rules []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Sorted(maps.Keys(c.addresses)), slices.Sorted(maps.Keys(c.rules))
}

// One reconcile whose release fails, and the next one, which releases the orphan it recorded.
// (The tests run the controller on a real API server, and kill it; a fake client and a cloud
// in memory keep the example self-contained.)
func ExampleReconciler_Reconcile() {
	ctx := context.Background()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "a1b2"},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer},
	}
	c := fake.NewClientBuilder().WithObjects(svc).WithStatusSubresource(svc).Build()
	cloud := &memCloud{down: true, addresses: map[string]string{}, rules: map[string]string{}}
	r := &ilbcontroller.Reconciler{Client: c, Cloud: cloud,
		Orphans: orphans.New(c, events.NewFakeRecorder(10), ilbcontroller.Kinds(cloud), orphans.Controller(ilbcontroller.Name))}
	req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(svc)}
	show := func(err error) {
		_ = c.Get(ctx, req.NamespacedName, svc)
		addresses, rules := cloud.state()
		fmt.Printf("recorded: %t, finalizers: %v, reservations: %v, rules: %v\n",
			svc.Annotations[orphans.Key(ilbcontroller.Name)] != "", svc.Finalizers, addresses, rules)
		cond := svc.Status.Conditions[0]
		fmt.Printf("condition: %s=%s %s\n", cond.Type, cond.Status, cond.Reason)
		fmt.Println("error:", err != nil, errors.Is(err, orphans.ErrRecorded))
	}

	_, err := r.Reconcile(ctx, req)
	show(err)
	cloud.setDown(false)
	_, err = r.Reconcile(ctx, req)
	show(err)
	// Output:
	// recorded: true, finalizers: [ilb.example.safereconcile.io/cleanup orphans.safereconcile.io/ilb-controller], reservations: [k8s-ilb-a1b2], rules: [k8s-ilb-a1b2]
	// condition: OrphansReleased=False ReleaseFailed
	// error: true true
	// recorded: false, finalizers: [ilb.example.safereconcile.io/cleanup], reservations: [], rules: [k8s-ilb-a1b2]
	// condition: OrphansReleased=True Released
	// error: false false
}
