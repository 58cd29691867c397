package orphans_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/safereconcile/safereconcile/acquire"
	"github.com/safereconcile/safereconcile/orphans"
)

// TestPanickingReconcileKeepsItsOrphans runs a controller-runtime controller, which recovers
// panics, whose first reconcile orphans a resource and then writes to a nil map. The orphan
// must be recorded, with the finalizer, although Run never returned.
func TestPanickingReconcileKeepsItsOrphans(t *testing.T) {
	f := newFixture(t)
	obj := f.object("panicky")
	f.cloud.setFail(errCloud)
	var calls atomic.Int32
	f.startController(func(ctx context.Context, tr *orphans.Tracker, cm *corev1.ConfigMap) error {
		return tr.Run(ctx, cm, func(ctx context.Context, s *acquire.Scope) error {
			if calls.Add(1) > 1 {
				return nil // later reconciles only retry what is recorded
			}
			if err := f.acquireN(s, cm, "0"); err != nil {
				return err
			}
			var counts map[string]int
			counts["reconciles"]++ // a nil map write: the panic controller-runtime recovers
			return nil
		})
	})

	key := orphans.Key(f.name)
	f.await("the orphan of the panicking reconcile is recorded", 30*time.Second, func() bool {
		return f.get(obj) == nil && strings.Contains(obj.GetAnnotations()[key], string(obj.UID)+"-0")
	})
	assert.True(t, controllerutil.ContainsFinalizer(obj, key))
	assert.GreaterOrEqual(t, metric(t, "controller_runtime_reconcile_panics_total", map[string]string{"controller": f.name}), 1.0,
		"the reconcile did panic, and controller-runtime recovered it")
	held, _ := f.cloud.state()
	assert.Equal(t, []string{string(obj.UID) + "-0"}, held, "the resource is still held: the record is what releases it")
	assert.NotEmpty(t, f.logs.with("reconcile panicked after releases failed"),
		"no error carries the orphan to a log, so the tracker logs it")
}

// TestPanickingReleaseKeepsTheOtherOrphans: one release of the scope fails and another
// panics. Both orphans are recorded before the panic goes on.
func TestPanickingReleaseKeepsTheOtherOrphans(t *testing.T) {
	f := newFixture(t)
	obj := f.object("release-panics")
	f.cloud.setFail(errCloud)
	exploding := string(obj.UID) + "-exploding"
	assert.PanicsWithValue(t, "release exploded", func() {
		_ = f.tracker.Run(f.ctx(), obj, func(ctx context.Context, s *acquire.Scope) error {
			if err := f.acquireN(s, obj, "0"); err != nil {
				return err
			}
			// Released first (newest first), and panics.
			_, err := acquire.Temporary(s, "address/"+exploding,
				func(context.Context) (string, error) { return exploding, nil },
				func(context.Context, string) error { panic("release exploded") })
			return err
		})
	})
	recs := f.records(obj)
	assert.Contains(t, recs, string(obj.UID)+"-0", "the failed release's orphan")
	assert.Contains(t, recs, exploding, "the panicking release's orphan: its resource's fate is unknown")
	assert.True(t, controllerutil.ContainsFinalizer(obj, f.tracker.Key()))
}

// TestShutdownStillRecordsTheOrphansOfTheReconcileItCancels stops the manager while a
// reconcile is running; the reconcile's context is cancelled, its release fails, and the record
// must still be written before the manager has stopped.
func TestShutdownStillRecordsTheOrphansOfTheReconcileItCancels(t *testing.T) {
	f := newFixture(t)
	obj := f.object("shutdown")
	f.cloud.setFail(errCloud)
	started := make(chan struct{})
	var calls atomic.Int32
	_, stop := f.startController(func(ctx context.Context, tr *orphans.Tracker, cm *corev1.ConfigMap) error {
		return tr.Run(ctx, cm, func(ctx context.Context, s *acquire.Scope) error {
			if calls.Add(1) > 1 {
				return nil
			}
			if err := f.acquireN(s, cm, "0"); err != nil {
				return err
			}
			close(started)
			<-ctx.Done() // the manager stops
			return ctx.Err()
		})
	})
	<-started
	stop()
	require.NoError(t, f.get(obj))
	assert.Contains(t, obj.GetAnnotations()[orphans.Key(f.name)], string(obj.UID)+"-0")
	assert.True(t, controllerutil.ContainsFinalizer(obj, orphans.Key(f.name)))
}

// TestCancelledRunStillRecordsItsOrphans is the same without a manager: fn's context is
// cancelled before its release fails.
func TestCancelledRunStillRecordsItsOrphans(t *testing.T) {
	f := newFixture(t)
	obj := f.object("cancelled")
	f.cloud.setFail(errCloud)
	ctx, cancel := context.WithCancel(f.ctx())
	err := f.tracker.Run(ctx, obj, func(ctx context.Context, s *acquire.Scope) error {
		if err := f.acquireN(s, obj, "0"); err != nil {
			return err
		}
		cancel()
		return ctx.Err()
	})
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorIs(t, err, orphans.ErrRecorded)
	assert.Contains(t, f.records(obj), string(obj.UID)+"-0")
}
