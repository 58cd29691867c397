package orphans_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/safereconcile/safereconcile/acquire"
	"github.com/safereconcile/safereconcile/orphans"
)

// A release fails: the orphan is recorded on the object, and the next reconcile releases it
// by name before anything else, then removes the record. (The module's tests run this on a
// real API server; a fake client keeps the example self-contained.)
func ExampleTracker_Run() {
	ctx := context.Background()
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "a1b2"}}
	c := fake.NewClientBuilder().WithObjects(svc).Build()
	_ = c.Get(ctx, client.ObjectKeyFromObject(svc), svc)

	cloudDown := true
	release := func(_ context.Context, id string) error {
		if cloudDown {
			return errors.New("cloud: 503 backend unavailable")
		}
		fmt.Println("released", id)
		return nil
	}
	tracker := orphans.New(c, events.NewFakeRecorder(10), map[string]orphans.Kind{
		"address": {
			Release: release,
			Owns:    func(obj client.Object, id string) bool { return id == "k8s-ilb-"+string(obj.GetUID()) },
		},
	})
	reconcile := func() error {
		return tracker.Run(ctx, svc, func(ctx context.Context, s *acquire.Scope) error {
			name := "k8s-ilb-" + string(svc.UID)
			_, err := acquire.Temporary(s, "address/"+name,
				func(context.Context) (string, error) { return "10.0.0.7", nil },
				func(ctx context.Context, _ string) error { return release(ctx, name) })
			return err
		})
	}

	err := reconcile()
	var recs []orphans.Record
	_ = json.Unmarshal([]byte(svc.Annotations[tracker.Key()]), &recs)
	fmt.Println(errors.Is(err, orphans.ErrRecorded), recs[0].Name, recs[0].Error, svc.Finalizers)

	cloudDown = false
	err = reconcile()
	fmt.Println(err, len(svc.Annotations[tracker.Key()]), svc.Finalizers)
	// Output:
	// true address/k8s-ilb-a1b2 cloud: 503 backend unavailable [orphans.safereconcile.io/orphans]
	// released k8s-ilb-a1b2
	// released k8s-ilb-a1b2
	// <nil> 0 []
}

// A controller that owns its kind's status reports the orphans there too, and writes the
// status only when the condition changes. (A Service stands in for such a kind here.)
func ExampleTracker_Condition() {
	ctx := context.Background()
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "a1b2", Generation: 3}}
	c := fake.NewClientBuilder().WithObjects(svc).WithStatusSubresource(svc).Build()
	_ = c.Get(ctx, client.ObjectKeyFromObject(svc), svc)
	cloudDown := true
	tracker := orphans.New(c, events.NewFakeRecorder(10), map[string]orphans.Kind{
		"address": {
			Release: func(context.Context, string) error {
				if cloudDown {
					return errors.New("cloud: 503 backend unavailable")
				}
				return nil
			},
			Owns: func(obj client.Object, id string) bool { return id == "k8s-ilb-"+string(obj.GetUID()) },
		},
	})
	reconcile := func() {
		_ = tracker.Run(ctx, svc, func(ctx context.Context, s *acquire.Scope) error {
			s.Defer("address/k8s-ilb-"+string(svc.UID), func(ctx context.Context) error {
				if cloudDown {
					return errors.New("cloud: 503 backend unavailable")
				}
				return nil
			})
			return nil
		})
		cond := tracker.Condition(svc)
		if meta.SetStatusCondition(&svc.Status.Conditions, cond) {
			_ = c.Status().Update(ctx, svc)
			fmt.Printf("wrote %s=%s %s: %s\n", cond.Type, cond.Status, cond.Reason, cond.Message)
		} else {
			fmt.Println("condition unchanged: no write")
		}
	}

	reconcile()
	reconcile()
	cloudDown = false
	reconcile()
	// Output:
	// wrote OrphansReleased=False ReleaseFailed: Orphans recorded in orphans.safereconcile.io/orphans and retried on every reconcile (1): address/k8s-ilb-a1b2
	// condition unchanged: no write
	// wrote OrphansReleased=True Released: No orphans recorded in orphans.safereconcile.io/orphans
}
