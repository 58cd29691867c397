package orphans_test

import (
	"context"
	"errors"
	"regexp"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/safereconcile/safereconcile/acquire"
	"github.com/safereconcile/safereconcile/lease"
	"github.com/safereconcile/safereconcile/orphans"
	"github.com/safereconcile/safereconcile/orphans/internal/kubetest"
)

var errCloud = errors.New("cloud: 503 backend unavailable")

func TestFailedReleaseIsReportedOnceAndRecordedUntilReleased(t *testing.T) {
	f := newFixture(t)
	obj := f.object("one")
	labels := map[string]string{"controller": f.name, "kind": "address"}

	f.cloud.setFail(errCloud)
	err := f.reconcile(obj, 1)
	var oe *lease.OrphanError
	require.ErrorAs(t, err, &oe, "the orphan is returned as well as recorded")
	assert.Equal(t, "address", oe.Kind())
	assert.ErrorIs(t, err, orphans.ErrRecorded)
	name := oe.Name

	// One record, with the finalizer that holds deletion, in one write.
	recs := f.records(obj)
	assert.Regexp(t, `^\[\{"name":"`+regexp.QuoteMeta(name)+`","error":"cloud: 503 backend unavailable","since":"[^"]+"\}\]$`, recs)
	assert.True(t, controllerutil.ContainsFinalizer(obj, f.tracker.Key()))

	// One Warning Event on the object, through events.k8s.io.
	evs := f.events("one", 1)
	require.Len(t, evs, 1)
	assert.Equal(t, corev1.EventTypeWarning, evs[0].Type)
	assert.Equal(t, orphans.ReasonReleaseFailed, evs[0].Reason)
	assert.Equal(t, orphans.ActionRelease, evs[0].Action)
	assert.Contains(t, evs[0].Note, name)
	assert.Contains(t, evs[0].Note, errCloud.Error())
	assert.Equal(t, f.name, evs[0].ReportingController)
	assert.Nil(t, evs[0].Series)

	// One log entry at V(1), with lowerCamelCase keys, none at error level (the error Run
	// returns is the reconciler's to log), and one count.
	logged := f.logs.with("release failed")
	require.Len(t, logged, 1)
	assert.Equal(t, 1, logged[0].level)
	assert.Equal(t, []any{"orphan", name, "kind", "address", "error", errCloud.Error()}, logged[0].kv)
	assert.Empty(t, f.logs.errorsNaming(name))
	assert.Equal(t, 1.0, metric(t, "safereconcile_orphans_total", labels))
	assert.Equal(t, 1.0, metric(t, "safereconcile_orphans_recorded", labels))

	// The cloud recovers: the next reconcile releases the orphan by name first, and removes
	// the record and the finalizer.
	f.cloud.setFail(nil)
	require.NoError(t, f.reconcile(obj, 0))
	assert.Empty(t, f.records(obj))
	assert.NotContains(t, obj.GetAnnotations(), f.tracker.Key())
	assert.False(t, controllerutil.ContainsFinalizer(obj, f.tracker.Key()))
	held, releases := f.cloud.state()
	assert.Empty(t, held)
	assert.Equal(t, []string{name[len("address/"):], name[len("address/"):]}, releases)
	assert.Equal(t, 1.0, metric(t, "safereconcile_orphans_total", labels), "a retry is not a new orphan")
	assert.Equal(t, 1.0, metric(t, "safereconcile_orphan_retries_total", map[string]string{"controller": f.name, "result": "released"}))
	assert.Equal(t, 0.0, metric(t, "safereconcile_orphans_recorded", labels))
	evs = f.events("one", 2)
	require.Len(t, evs, 2)
}

func TestRetryThatFailsKeepsTheRecord(t *testing.T) {
	f := newFixture(t)
	obj := f.object("stuck")
	f.cloud.setFail(errCloud)
	require.Error(t, f.reconcile(obj, 1))
	before := f.records(obj)
	rv := obj.GetResourceVersion()

	err := f.reconcile(obj, 0)
	assert.ErrorIs(t, err, orphans.ErrRecorded)
	assert.ErrorIs(t, err, errCloud)
	assert.Equal(t, before, f.records(obj))
	assert.Equal(t, rv, obj.GetResourceVersion(), "a retry that fails again writes nothing")
	assert.Len(t, f.logs.with("retried release failed"), 1)
}

func TestDeletionWaitsForRecordedOrphans(t *testing.T) {
	f := newFixture(t)
	obj := f.object("doomed")
	f.cloud.setFail(errCloud)
	require.Error(t, f.reconcile(obj, 2))
	ctx := context.Background()
	require.NoError(t, f.c.Delete(ctx, obj))

	require.NoError(t, f.get(obj), "the finalizer holds the object")
	assert.NotNil(t, obj.GetDeletionTimestamp())
	require.Error(t, f.reconcile(obj, 0))
	require.NoError(t, f.get(obj), "still held: the releases failed again")

	f.cloud.setFail(nil)
	require.NoError(t, f.reconcile(obj, 0))
	err := f.get(obj)
	assert.True(t, apierrors.IsNotFound(err), "released, so the object is gone: %v", err)
	held, _ := f.cloud.state()
	assert.Empty(t, held)
}

func TestConflictMergesRecords(t *testing.T) {
	f := newFixture(t)
	obj := f.object("contended")
	stale := obj.DeepCopy()
	f.cloud.setFail(errCloud)

	// Another replica records an orphan first; this one still has the object as it was.
	require.Error(t, f.reconcile(obj, 1))
	require.Error(t, f.tracker.Run(f.ctx(), stale, func(ctx context.Context, s *acquire.Scope) error {
		_, err := acquire.Temporary(s, "address/"+string(stale.UID)+"-other",
			func(context.Context) (string, error) { return "", nil }, f.cloud.release)
		return err
	}))
	recs := f.records(obj)
	assert.Contains(t, recs, string(obj.UID)+"-0", "the other writer's record survived the conflict")
	assert.Contains(t, recs, string(obj.UID)+"-other")
}

func TestWriteErrorKeepsTheOrphanForTheNextRun(t *testing.T) {
	f := newFixture(t)
	obj := f.object("flaky-api")
	var failPatch atomic.Bool
	failPatch.Store(true)
	errAPI := apierrors.NewServiceUnavailable("etcd is having a moment")
	c := interceptor.NewClient(f.c, interceptor.Funcs{
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			if failPatch.Load() {
				return errAPI
			}
			return c.Patch(ctx, obj, patch, opts...)
		},
	})
	tracker := orphans.New(c, nopRecorder{}, f.kinds(), orphans.Controller(f.name))
	run := func() error {
		return tracker.Run(f.ctx(), obj, func(ctx context.Context, s *acquire.Scope) error {
			_, err := acquire.Temporary(s, "address/"+string(obj.UID)+"-0",
				func(context.Context) (string, error) { return "", nil }, f.cloud.release)
			return err
		})
	}
	f.cloud.setFail(errCloud)
	err := run()
	assert.ErrorIs(t, err, errAPI)
	assert.Empty(t, f.records(obj))

	// The API is back, and this reconcile's own release succeeds: the orphan of the first is
	// still written, because only a write or a release ends it.
	failPatch.Store(false)
	f.cloud.setFail(nil)
	require.ErrorIs(t, tracker.Run(f.ctx(), obj, func(context.Context, *acquire.Scope) error { return nil }), orphans.ErrRecorded)
	assert.Contains(t, f.records(obj), string(obj.UID)+"-0")
	require.NoError(t, tracker.Run(f.ctx(), obj, func(context.Context, *acquire.Scope) error { return nil }))
	assert.Empty(t, f.records(obj))
}

func TestBadRecords(t *testing.T) {
	tests := []struct {
		name    string
		give    func(obj *corev1.ConfigMap) string
		wantErr string
		runs    bool // fn runs: the record was readable
	}{
		{name: "malformed", give: func(*corev1.ConfigMap) string { return `[{"name":"address/x"` }, wantErr: "not a JSON array", runs: false},
		{name: "hand-edited field", give: func(*corev1.ConfigMap) string { return `[{"name":"address/x","force":true}]` }, wantErr: "unknown field", runs: false},
		{name: "not owned", give: func(*corev1.ConfigMap) string {
			return `[{"name":"address/customer-reserved","since":"2026-01-02T15:04:05Z"}]`
		},
			wantErr: "not owned", runs: true},
		{name: "unknown kind", give: func(obj *corev1.ConfigMap) string {
			return `[{"name":"disk/` + string(obj.UID) + `-0","since":"2026-01-02T15:04:05Z"}]`
		}, wantErr: "not owned", runs: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			obj := f.object("bad")
			value := tt.give(obj)
			obj.Annotations = map[string]string{f.tracker.Key(): value}
			require.NoError(t, f.c.Update(context.Background(), obj))

			ran := false
			err := f.tracker.Run(f.ctx(), obj, func(context.Context, *acquire.Scope) error { ran = true; return nil })
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
			assert.Contains(t, err.Error(), "orphans: ")
			assert.Equal(t, tt.runs, ran)
			assert.Equal(t, value, f.records(obj), "nothing lost")
			_, releases := f.cloud.state()
			assert.Empty(t, releases, "nothing released that was not ours")
			evs := f.events("bad", 1)
			require.Len(t, evs, 1)
			assert.Equal(t, orphans.ReasonRecordInvalid, evs[0].Reason)
		})
	}
}

func TestFinalizerWithoutAnnotationIsRemovedOnDeletion(t *testing.T) {
	f := newFixture(t)
	obj := f.object("hand-cleaned")
	obj.Finalizers = []string{f.tracker.Key()}
	require.NoError(t, f.c.Update(context.Background(), obj))
	require.NoError(t, f.c.Delete(context.Background(), obj))
	require.NoError(t, f.get(obj))
	require.NoError(t, f.reconcile(obj, 0))
	assert.True(t, apierrors.IsNotFound(f.get(obj)))
}

// TestRequestsPerReconcile counts, on the API server, what the tracker costs: nothing on the
// happy path; one write per reconcile in which the record changes. Counted from the API
// server's side (apiserver_request_total, on a real kube-apiserver and etcd), with
//
//	KUBEBUILDER_ASSETS="$(.ci/envtest-assets)" go test -run RequestsPerReconcile -v ./orphans/...
//
// it logs: 0 requests in 100 tracker runs with nothing failing; a failed release 1 PATCH and
// 1 Event; a retry that fails again 1 Event; a successful retry 1 PATCH and 1 Event.
func TestRequestsPerReconcile(t *testing.T) {
	f := newFixture(t)
	obj := f.object("counted")
	ctx := context.Background()
	measure := func(fn func()) kubetest.Counts {
		before, err := kubetest.RequestCounts(ctx, f.cfg)
		require.NoError(t, err)
		fn()
		after, err := kubetest.RequestCounts(ctx, f.cfg)
		require.NoError(t, err)
		return after.Sub(before).Only("configmaps", "events")
	}
	happy := measure(func() {
		for range 100 {
			require.NoError(t, f.reconcile(obj, 3))
		}
	})
	assert.Zero(t, happy.Total(), "happy path: %v", happy)

	f.cloud.setFail(errCloud)
	failed := measure(func() { require.Error(t, f.reconcile(obj, 1)); f.events("counted", 1) })
	assert.Equal(t, kubetest.Counts{"PATCH configmaps": 1, "POST events": 1}, failed)
	failedAgain := measure(func() { require.Error(t, f.reconcile(obj, 0)); f.events("counted", 2) })
	assert.Equal(t, kubetest.Counts{"POST events": 1}, failedAgain)
	f.cloud.setFail(nil)
	retried := measure(func() { require.NoError(t, f.reconcile(obj, 0)); f.events("counted", 3) })
	assert.Equal(t, kubetest.Counts{"PATCH configmaps": 1, "POST events": 1}, retried)
	t.Logf("API requests: happy path %v per 100 reconciles; failed release %v; failed retry %v; successful retry %v",
		happy, failed, failedAgain, retried)
}

type nopRecorder struct{}

func (nopRecorder) Eventf(_, _ runtime.Object, _, _, _, _ string, _ ...any) {}

// TestNameARecordCannotHoldIsRefused: an orphan whose lease name a record cannot hold exactly
// is refused with an error, never recorded or released under another name; the other orphans
// of the reconcile are recorded as usual.
func TestNameARecordCannotHoldIsRefused(t *testing.T) {
	tests := []struct {
		name    string
		give    func(uid string) string
		wantErr string
	}{
		{name: "not UTF-8", give: func(uid string) string { return "address/" + uid + "-bad\xffutf8" }, wantErr: `-bad\xffutf8" is not valid UTF-8`},
		{name: "no kind", give: func(uid string) string { return uid + "-bare" }, wantErr: `-bare" is not "<kind>/<id>"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			obj := f.object("named")
			bad := tt.give(string(obj.UID))
			f.cloud.setFail(errCloud)
			err := f.tracker.Run(f.ctx(), obj, func(ctx context.Context, s *acquire.Scope) error {
				if err := f.acquireN(s, obj, "0"); err != nil {
					return err
				}
				_, err := acquire.Temporary(s, bad, func(context.Context) (string, error) { return "", nil },
					func(ctx context.Context, _ string) error { return f.cloud.release(ctx, "refused") })
				return err
			})
			require.ErrorIs(t, err, orphans.ErrInvalidName)
			assert.Contains(t, err.Error(), tt.wantErr)
			assert.Contains(t, err.Error(), "orphans: ")
			var oe *lease.OrphanError
			assert.ErrorAs(t, err, &oe, "the orphan is still returned")

			recs := f.records(obj)
			assert.Contains(t, recs, string(obj.UID)+"-0")
			assert.NotContains(t, recs, "bad", "recorded under no name")
			assert.NotContains(t, recs, "bare")

			// The cloud recovers: what is recorded is released, under its own name only.
			f.cloud.setFail(nil)
			require.NoError(t, f.reconcile(obj, 0))
			_, releases := f.cloud.state()
			for _, id := range releases {
				assert.True(t, id == string(obj.UID)+"-0" || id == "refused", "released %q", id)
			}
		})
	}
}
