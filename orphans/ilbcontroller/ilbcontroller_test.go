package ilbcontroller_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/safereconcile/safereconcile/orphans"
	"github.com/safereconcile/safereconcile/orphans/ilbcontroller"
	"github.com/safereconcile/safereconcile/orphans/internal/fakecloud"
	"github.com/safereconcile/safereconcile/orphans/internal/kubetest"
)

// startManager runs the controller in this process against w's cloud (in memory) and
// returns a channel that triggers a reconcile of an object without writing to it.
func startManager(t *testing.T, w *world, cfg *rest.Config) chan<- event.GenericEvent {
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{w.ns: {}}},
	})
	require.NoError(t, err)
	trigger := make(chan event.GenericEvent)
	_, err = ilbcontroller.SetupWithManager(mgr, w.cloud, skipNameValidation, func(b *builder.Builder) *builder.Builder {
		return b.WatchesRawSource(source.Channel(trigger, &handler.EnqueueRequestForObject{}))
	})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() { cancel(); require.NoError(t, <-done) })
	return trigger
}

func TestOrphanRecordedThenReleasedThroughTheController(t *testing.T) {
	cfg := env.Need(t)
	w := newWorld(t, "ilb-basic")
	failing := true
	w.inject = func(string) bool { return failing }
	startManager(t, w, cfg)
	w.createServices(1)

	// The release fails: one record, one Event, the reservation still there.
	w.await("record the orphan", 30*time.Second, func() (bool, string) {
		s := w.services()[0]
		return s.Annotations[orphans.Key(ilbcontroller.Name)] != "", "no record yet"
	})
	assert.Len(t, w.cloud.Addresses(), 1)
	w.mu.Lock()
	failing = false
	w.mu.Unlock()
	w.await("converge", 30*time.Second, w.converged)
	assert.NotEmpty(t, w.notes(orphans.ReasonReleaseFailed))
}

func TestDeletionHeldUntilTheOrphanIsReleased(t *testing.T) {
	cfg := env.Need(t)
	w := newWorld(t, "ilb-delete")
	trigger := startManager(t, w, cfg)
	w.createServices(1)
	w.await("converge", 30*time.Second, w.converged)

	// The cloud starts failing releases; the next reconcile leaves an orphan and records it.
	w.mu.Lock()
	w.inject = func(string) bool { return true }
	w.mu.Unlock()
	svc := w.services()[0]
	trigger <- event.GenericEvent{Object: &svc}
	w.await("record the orphan", 30*time.Second, func() (bool, string) {
		s := w.services()[0]
		return s.Annotations[orphans.Key(ilbcontroller.Name)] != "", "no record yet"
	})
	svc = w.services()[0]
	assert.Contains(t, svc.Finalizers, orphans.Key(ilbcontroller.Name))
	require.NoError(t, w.c.Delete(context.Background(), &svc))

	time.Sleep(2 * time.Second) // reconciles with failing retries, with backoff
	require.Len(t, w.services(), 1, "held while the release keeps failing")
	assert.Equal(t, []string{ilbcontroller.ResourceName(&svc)}, w.cloud.Addresses())
	assert.Empty(t, w.cloud.Rules(), "the rule is deleted; only the orphan holds the Service")

	w.mu.Lock()
	w.inject = nil
	w.mu.Unlock()
	w.await("finish the deletion", 60*time.Second, w.gone)
}

// TestRequestsPerReconcile counts, on the API server, the requests of reconciles in steady
// state (triggered without a write): none. go test -run RequestsPerReconcile -v
// ./orphans/ilbcontroller logs 0 requests in 50 steady-state reconciles, each reserving and
// releasing an address; the Service's condition is unchanged, so it is not written either.
func TestRequestsPerReconcile(t *testing.T) {
	cfg := env.Need(t)
	w := newWorld(t, "ilb-requests")
	trigger := startManager(t, w, cfg)
	w.createServices(1)
	w.await("converge", 30*time.Second, w.converged)
	time.Sleep(time.Second) // let the last reconcile of the convergence finish

	ctx := context.Background()
	svc := w.services()[0]
	before, err := kubetest.RequestCounts(ctx, cfg)
	require.NoError(t, err)
	releases := w.cloud.Calls(fakecloud.ReleaseAddress)
	const n = 50
	for range n {
		trigger <- event.GenericEvent{Object: &svc}
		// One at a time, so that the workqueue cannot fold two triggers into one reconcile:
		// each reconcile ends by releasing its reservation.
		releases++
		w.await("reconcile", 10*time.Second, func() (bool, string) {
			return w.cloud.Calls(fakecloud.ReleaseAddress) >= releases, "not yet"
		})
	}
	after, err := kubetest.RequestCounts(ctx, cfg)
	require.NoError(t, err)
	// This test's own two reads of /metrics are non-resource requests and not counted; the
	// controller touches only Services and Events.
	got := after.Sub(before).Only("services", "events")
	assert.Zero(t, got.Total(), "requests in %d steady-state reconciles: %v", n, got)
	t.Logf("API requests in %d steady-state reconciles (each reserving and releasing an address): %v", n, got)
}

// TestConditionShowsOrphansOnServiceStatus: while an orphan is recorded the Service's
// status.conditions say so, naming it; once it is released they say that. (The steady-state
// reconciles of TestRequestsPerReconcile write nothing, condition included.)
func TestConditionShowsOrphansOnServiceStatus(t *testing.T) {
	cfg := env.Need(t)
	w := newWorld(t, "ilb-condition")
	w.mu.Lock()
	failing := true
	w.inject = func(string) bool { return failing }
	w.mu.Unlock()
	startManager(t, w, cfg)
	w.createServices(1)

	condition := func() *metav1.Condition {
		s := w.services()[0]
		return meta.FindStatusCondition(s.Status.Conditions, orphans.ConditionReleased)
	}
	w.await("a False condition naming the orphan", 30*time.Second, func() (bool, string) {
		c := condition()
		if c == nil || c.Status != metav1.ConditionFalse {
			return false, fmt.Sprintf("condition %+v", c)
		}
		return true, ""
	})
	c := condition()
	svc := w.services()[0]
	assert.Equal(t, orphans.ReasonReleaseFailed, c.Reason)
	assert.Contains(t, c.Message, "address/"+ilbcontroller.ResourceName(&svc))

	w.mu.Lock()
	failing = false
	w.mu.Unlock()
	w.await("converge", 30*time.Second, w.converged)
	w.await("a True condition", 30*time.Second, func() (bool, string) {
		c := condition()
		return c != nil && c.Status == metav1.ConditionTrue && c.Reason == orphans.ReasonReleased, fmt.Sprintf("condition %+v", c)
	})
}
