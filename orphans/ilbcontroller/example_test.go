package ilbcontroller_test

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/safereconcile/safereconcile/orphans"
	"github.com/safereconcile/safereconcile/orphans/ilbcontroller"
	"github.com/safereconcile/safereconcile/orphans/internal/fakecloud"
)

// One reconcile whose release fails, and the next one, which releases the orphan it recorded.
// (The tests run the controller on a real API server, and kill it; a fake client keeps the
// example self-contained.)
func ExampleReconciler_Reconcile() {
	ctx := context.Background()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "a1b2"},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer},
	}
	c := fake.NewClientBuilder().WithObjects(svc).WithStatusSubresource(svc).Build()
	down := true
	cloud := &fakecloud.Cloud{Hook: func(_ context.Context, op fakecloud.Op, _ string, done bool) error {
		if op == fakecloud.ReleaseAddress && !done && down {
			return errors.New("cloud: 503 backend unavailable")
		}
		return nil
	}}
	r := &ilbcontroller.Reconciler{Client: c, Cloud: cloud,
		Orphans: orphans.New(c, events.NewFakeRecorder(10), ilbcontroller.Kinds(cloud), orphans.Controller(ilbcontroller.Name))}
	req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(svc)}
	show := func(err error) {
		_ = c.Get(ctx, req.NamespacedName, svc)
		fmt.Printf("recorded: %t, finalizers: %v, reservations: %v, rules: %v\n",
			svc.Annotations[orphans.Key(ilbcontroller.Name)] != "", svc.Finalizers, cloud.Addresses(), cloud.Rules())
		fmt.Println("error:", err != nil, errors.Is(err, orphans.ErrRecorded))
	}

	_, err := r.Reconcile(ctx, req)
	show(err)
	down = false
	_, err = r.Reconcile(ctx, req)
	show(err)
	// Output:
	// recorded: true, finalizers: [ilb.example.safereconcile.io/cleanup orphans.safereconcile.io/ilb-controller], reservations: [k8s-ilb-a1b2], rules: [k8s-ilb-a1b2]
	// error: true true
	// recorded: false, finalizers: [ilb.example.safereconcile.io/cleanup], reservations: [], rules: [k8s-ilb-a1b2]
	// error: false false
}
