package orphans_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/safereconcile/safereconcile/acquire"
	"github.com/safereconcile/safereconcile/lease"
	"github.com/safereconcile/safereconcile/orphans"
)

// BenchmarkRunHappyPath is the reconcile users run most: nothing recorded, nothing fails.
// "tracker" is Tracker.Run, "acquire" the same scope with acquire.Run alone: the difference
// is what the tracker costs in memory and CPU. Its client is nil-backed and would panic if
// the tracker made a request.
func BenchmarkRunHappyPath(b *testing.B) {
	obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm", UID: "u1", ResourceVersion: "1",
		Annotations: map[string]string{"unrelated": "x"}}}
	release := func(context.Context, string) error { return nil }
	fn := func(ctx context.Context, s *acquire.Scope) error {
		for _, id := range []string{"address/a", "forwarding-rule/a"} {
			if _, err := acquire.Temporary(s, id, func(context.Context) (string, error) { return id, nil }, release); err != nil {
				return err
			}
		}
		return nil
	}
	ctx := context.Background()
	b.Run("tracker", func(b *testing.B) {
		tr := orphans.New(panicClient{}, nopRecorder{}, map[string]orphans.Kind{"address": {
			Release: release, Owns: func(client.Object, string) bool { return true }}})
		b.ReportAllocs()
		for b.Loop() {
			if err := tr.Run(ctx, obj, fn); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("acquire", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := acquire.Run(ctx, fn, acquire.OnOrphan(func(context.Context, *lease.OrphanError) {})); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// panicClient is a client.Client whose every method panics (through the nil interface).
type panicClient struct{ client.Client }
