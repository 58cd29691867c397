package orphans_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"

	"github.com/safereconcile/safereconcile/acquire"
	"github.com/safereconcile/safereconcile/orphans"
)

// TestOrphansLoggedAtErrorLevelOncePerReconcile runs a controller-runtime controller whose
// first reconcile orphans three resources; the cloud recovers after it, so the second
// releases them. Counting controller-runtime's own "Reconciler error" line, each orphan is
// named by exactly one error-level line, and its detail is at V(1).
func TestOrphansLoggedAtErrorLevelOncePerReconcile(t *testing.T) {
	f := newFixture(t)
	obj := f.object("logged")
	f.cloud.setFail(errCloud)
	var calls atomic.Int32
	_, stop := f.startController(func(ctx context.Context, tr *orphans.Tracker, cm *corev1.ConfigMap) error {
		first := calls.Add(1) == 1
		err := tr.Run(ctx, cm, func(ctx context.Context, s *acquire.Scope) error {
			if !first {
				return nil
			}
			return f.acquireN(s, cm, "a", "b", "c")
		})
		if first {
			f.cloud.setFail(nil)
		}
		return err
	})
	f.await("the second reconcile releases the orphans", 30*time.Second, func() bool {
		return len(f.logs.with("released recorded orphan")) == 3
	})
	stop()

	assert.Len(t, f.logs.with("Reconciler error"), 1, "controller-runtime logs the error of the first reconcile")
	for _, sfx := range []string{"a", "b", "c"} {
		name := "address/" + string(obj.UID) + "-" + sfx
		assert.Len(t, f.logs.errorsNaming(name), 1, "%s: error-level lines", name)
		var detail []logEntry
		for _, e := range f.logs.with("release failed") {
			if e.kv[1] == name {
				detail = append(detail, e)
			}
		}
		if assert.Len(t, detail, 1, name) {
			assert.Equal(t, 1, detail[0].level, "per-orphan detail is at V(1)")
			assert.False(t, detail[0].isError)
		}
	}
}
