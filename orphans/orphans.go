package orphans

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/multierr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/safereconcile/safereconcile/acquire"
	"github.com/safereconcile/safereconcile/lease"
)

// The reason and actions of the Events a [Tracker] records on a reconciled object.
const (
	// ReasonReleaseFailed is the reason of the Warning Event for a release that failed, in a
	// scope (action [ActionRelease]) or on retry (action [ActionRetryRelease]).
	ReasonReleaseFailed = "ReleaseFailed"
	// ReasonReleased is the reason of the Normal Event for a recorded orphan released on
	// retry (action [ActionRetryRelease]).
	ReasonReleased = "Released"
	// ReasonRecordInvalid is the reason of the Warning Event for an object whose record the
	// tracker cannot use: a malformed annotation (action [ActionReadRecord]), or an entry it
	// will not release because no release function claims it (action [ActionRetryRelease]).
	ReasonRecordInvalid = "OrphanRecordInvalid"

	ActionRelease      = "Release"
	ActionRetryRelease = "RetryRelease"
	ActionReadRecord   = "ReadOrphanRecord"
)

// ErrRecorded is wrapped by the error [Tracker.Run] returns while orphans are still recorded
// on the object after the run: the reconcile must come again (controller-runtime requeues an
// error with backoff), and a controller must not yet remove a finalizer of its own.
var ErrRecorded = errors.New("orphans: orphans still recorded on the object")

// A Kind says how to release recorded orphans of one kind of resource by id.
type Kind struct {
	// Release releases the resource the external system knows as id. It must be idempotent
	// by name: releasing a resource that is already gone returns nil. That is the contract
	// that lets any process retry a record, twice if two replicas race, and lets a process
	// that died before recording an orphan leave it to the next attempt, which acquires and
	// releases the same name again.
	Release func(ctx context.Context, id string) error
	// Owns reports whether id names a resource this controller creates for obj, typically by
	// recomputing the name from obj's UID. A record that fails it (hand-edited, or copied
	// with the object's YAML to another object) is reported and kept, never released.
	Owns func(obj client.Object, id string) bool
}

// A Tracker reports the orphans of a controller-runtime reconciler where its operators look
// (an Event, the reconcile's log, metrics) and records them on the reconciled object, so that
// the next reconcile in any process releases them. Create one per controller with [New] or
// [NewForManager]; it is safe for concurrent use by the controller's workers.
type Tracker struct {
	client   client.Client
	reader   client.Reader
	recorder events.EventRecorder
	kinds    map[string]Kind
	cfg      config
	key      string // Key(cfg.controller)

	mu       sync.Mutex
	pending  map[types.UID][]Record       // orphans whose record could not be written yet
	recorded map[types.UID]map[string]int // per object, recorded orphans by kind (the gauge)
	totals   map[string]int               // recorded orphans by kind, over all objects
}

// New returns a tracker that writes records with c, records Events with recorder and
// releases recorded orphans with the [Kind] of their name's kind. New panics with a message
// starting "orphans:" when c or recorder is nil, a Kind lacks Release or Owns, or the
// controller name (see [Controller]) does not fit in an annotation key.
func New(c client.Client, recorder events.EventRecorder, kinds map[string]Kind, opts ...Option) *Tracker {
	if c == nil || recorder == nil {
		panic("orphans: New needs a client and an event recorder")
	}
	for k, kind := range kinds {
		if kind.Release == nil || kind.Owns == nil {
			panic(fmt.Sprintf("orphans: kind %q needs both Release and Owns", k))
		}
		if k == "" || strings.Contains(k, "/") {
			panic(fmt.Sprintf("orphans: kind %q is not a lease kind (a short noun without \"/\")", k))
		}
	}
	t := &Tracker{
		client:   c,
		recorder: recorder,
		kinds:    maps.Clone(kinds),
		cfg:      config{controller: "orphans", timeout: DefaultReleaseTimeout, conflicts: 5, now: time.Now},
		pending:  make(map[types.UID][]Record),
		recorded: make(map[types.UID]map[string]int),
		totals:   make(map[string]int),
	}
	for _, o := range opts {
		o.apply(&t.cfg)
	}
	t.key = Key(t.cfg.controller)
	if errs := validation.IsQualifiedName(t.key); len(errs) > 0 {
		panic(fmt.Sprintf("orphans: controller name %q cannot name an annotation: %s", t.cfg.controller, strings.Join(errs, "; ")))
	}
	t.reader = t.cfg.reader
	if t.reader == nil {
		t.reader = c
	}
	return t
}

// NewForManager returns a tracker on mgr's client, its API reader and its events.k8s.io
// recorder named name (the Events' reportingController), with metrics labelled name.
func NewForManager(mgr manager.Manager, name string, kinds map[string]Kind, opts ...Option) *Tracker {
	opts = append([]Option{Controller(name), APIReader(mgr.GetAPIReader())}, opts...)
	return New(mgr.GetClient(), mgr.GetEventRecorder(name), kinds, opts...)
}

// Run is one reconcile of obj, as read by the reconciler (from the cache is fine):
//
//  1. It retries the release of each orphan recorded on obj, by name, and drops the record of
//     each that succeeds.
//  2. It calls fn in an [acquire.Run] scope whose failed releases become orphans: each gets a
//     Warning Event on obj, a log line through [log.FromContext], and a count in
//     safereconcile_orphans_total.
//  3. When the records changed, it writes them to obj's annotation [Tracker.Key] in one patch,
//     with the finalizer of the same name while any remain, conditional on obj's
//     resourceVersion; a conflict rereads
//     the object and merges again, so no record is dropped. When nothing changed, and that is
//     every reconcile in which nothing fails, Run makes no API request at all.
//
// Run returns fn's error, one [*lease.OrphanError] per failed release, the write's error,
// and, while orphans remain recorded, an error wrapping [ErrRecorded]. A record Run could not
// write is kept in memory and written by the object's next Run in this process. After a
// write obj holds the object as the API server returned it.
//
// A record Run cannot parse stops the run before fn: Run records a Warning Event and
// returns the error, and changes nothing until a person repairs or removes the annotation.
func (t *Tracker) Run(ctx context.Context, obj client.Object, fn func(ctx context.Context, s *acquire.Scope) error) error {
	recs, err := t.records(ctx, obj)
	if err != nil {
		return err
	}

	released, err := t.retry(ctx, obj, recs)

	var (
		mu     sync.Mutex // OnOrphan may be called by goroutines of fn
		added  []Record
		closed bool // this run has taken added; a later orphan waits for the next run
	)
	uid := obj.GetUID()
	onOrphan := func(ctx context.Context, oe *lease.OrphanError) {
		t.report(ctx, obj, oe)
		r := newRecord(oe.Name, oe.Err, t.cfg.now())
		mu.Lock()
		if closed {
			// A goroutine of fn released after the scope ended (acquire.Scope.Defer after
			// the end): too late for this run's write, so the object's next run writes it.
			mu.Unlock()
			t.keepPending(uid, []Record{r})
			return
		}
		added = append(added, r)
		mu.Unlock()
	}
	err = multierr.Append(err, acquire.Run(ctx, fn, acquire.OnOrphan(onOrphan), acquire.ReleaseTimeout(t.cfg.timeout)))

	mu.Lock()
	closed = true
	added = append(t.takePending(uid), added...)
	mu.Unlock()

	final, werr := t.write(ctx, obj, recs, released, added)
	if werr != nil {
		t.keepPending(uid, added)
		return multierr.Append(err, werr)
	}
	t.setRecorded(uid, final)
	if len(final) > 0 {
		names := make([]string, len(final))
		for i, r := range final {
			names[i] = r.Name
		}
		err = multierr.Append(err, fmt.Errorf("%w on %s: %s", ErrRecorded, key(obj), strings.Join(names, ", ")))
	}
	return err
}

// records returns the records on obj, or reports and returns why they cannot be read.
func (t *Tracker) records(ctx context.Context, obj client.Object) ([]Record, error) {
	value, ok := obj.GetAnnotations()[t.key]
	if !ok {
		return nil, nil
	}
	recs, err := decodeRecords(t.key, value)
	if err != nil {
		err = fmt.Errorf("%s: %w", key(obj), err)
		t.recorder.Eventf(obj, nil, corev1.EventTypeWarning, ReasonRecordInvalid, ActionReadRecord,
			"Orphan record %s cannot be read, so nothing is retried or recorded until it is repaired: %v", t.key, err)
		log.FromContext(ctx).Error(err, "orphan record cannot be read", "annotation", t.key)
		return nil, err
	}
	return recs, nil
}

// retry releases each recorded orphan by name and returns the records of those released.
func (t *Tracker) retry(ctx context.Context, obj client.Object, recs []Record) (released []Record, err error) {
	if len(recs) == 0 {
		return nil, nil // the happy path: not even a logger to look up
	}
	logger := log.FromContext(ctx)
	for _, r := range recs {
		kindName, id, _ := lease.SplitName(r.Name)
		kind, ok := t.kinds[kindName]
		if !ok || !kind.Owns(obj, id) {
			// Not ours to release: a record of a kind this controller does not know, or a
			// name it would never create for this object. Releasing it could delete a
			// resource somebody else owns (kubernetes#20663), so a person decides.
			retriesTotal.WithLabelValues(t.cfg.controller, kindName, "skipped").Inc()
			t.recorder.Eventf(obj, nil, corev1.EventTypeWarning, ReasonRecordInvalid, ActionRetryRelease,
				"Recorded orphan %s is not one this controller releases for this object; remove it from %s once it is gone", r.Name, t.key)
			logger.Info("recorded orphan not released: not ours", "orphan", r.Name, "kind", kindName)
			err = multierr.Append(err, fmt.Errorf("orphans: %s: recorded orphan %s is not owned by this controller", key(obj), r.Name))
			continue
		}
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), t.cfg.timeout)
		rerr := kind.Release(rctx, id)
		cancel()
		if rerr != nil {
			retriesTotal.WithLabelValues(t.cfg.controller, kindName, "failed").Inc()
			oe := &lease.OrphanError{Name: r.Name, Err: rerr}
			t.recorder.Eventf(obj, nil, corev1.EventTypeWarning, ReasonReleaseFailed, ActionRetryRelease,
				"Release of recorded orphan %s failed again: %s", r.Name, truncate(rerr.Error()))
			logger.Error(rerr, "retried release failed; orphan stays recorded", "orphan", r.Name, "kind", kindName, "since", r.Since)
			err = multierr.Append(err, oe)
			continue
		}
		retriesTotal.WithLabelValues(t.cfg.controller, kindName, "released").Inc()
		t.recorder.Eventf(obj, nil, corev1.EventTypeNormal, ReasonReleased, ActionRetryRelease,
			"Released recorded orphan %s", r.Name)
		logger.Info("released recorded orphan", "orphan", r.Name, "kind", kindName, "since", r.Since)
		released = append(released, r)
	}
	return released, err
}

// report tells the operator about one failed release of the scope.
func (t *Tracker) report(ctx context.Context, obj client.Object, oe *lease.OrphanError) {
	orphansTotal.WithLabelValues(t.cfg.controller, oe.Kind()).Inc()
	t.recorder.Eventf(obj, nil, corev1.EventTypeWarning, ReasonReleaseFailed, ActionRelease,
		"Release of %s failed; recorded on the object and retried on the next reconcile: %s", oe.Name, truncate(oe.Err.Error()))
	log.FromContext(ctx).Error(oe.Err, "release failed; orphan recorded on the object", "orphan", oe.Name, "kind", oe.Kind())
}

// write brings obj's record to cur without released, plus added, and returns what is
// recorded afterwards. It makes no request when that is what obj already has.
func (t *Tracker) write(ctx context.Context, obj client.Object, cur, released, added []Record) ([]Record, error) {
	for attempt := 0; ; attempt++ {
		next := merge(cur, released, added)
		_, annotated := obj.GetAnnotations()[t.key]
		finalizers := wantFinalizers(obj, t.key, len(next) > 0)
		if sameRecords(cur, next) && annotated == (len(next) > 0) && slices.Equal(finalizers, obj.GetFinalizers()) {
			return next, nil
		}
		patch, err := recordPatch(obj.GetResourceVersion(), t.key, next, finalizers)
		if err != nil {
			return nil, err
		}
		err = t.client.Patch(ctx, obj, client.RawPatch(types.MergePatchType, patch))
		if err == nil {
			return next, nil
		}
		if !apierrors.IsConflict(err) || attempt >= t.cfg.conflicts {
			return nil, fmt.Errorf("orphans: record orphans on %s: %w", key(obj), err)
		}
		// Someone else wrote the object since it was read. Read it again from the API
		// server and merge into what is there now: their records stay, ours are added, and
		// only the exact records this run released are dropped.
		if err := t.reader.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			return nil, fmt.Errorf("orphans: record orphans on %s: reread after a conflict: %w", key(obj), err)
		}
		if cur, err = t.records(ctx, obj); err != nil {
			return nil, err
		}
	}
}

// wantFinalizers returns obj's finalizers as they should be: with key while records
// remain, without it when none do. The API server refuses a new finalizer on an object that
// is being deleted, so none is added then; the records are still written.
func wantFinalizers(obj client.Object, key string, recorded bool) []string {
	fins := slices.Clone(obj.GetFinalizers())
	has := controllerutil.ContainsFinalizer(obj, key)
	switch {
	case recorded && !has && obj.GetDeletionTimestamp() == nil:
		fins = append(fins, key)
	case !recorded && has:
		fins = slices.DeleteFunc(fins, func(f string) bool { return f == key })
	}
	return fins
}

// recordPatch returns a JSON merge patch that sets the record and the finalizers, and that
// the API server applies only to the object at resourceVersion rv (optimistic concurrency).
func recordPatch(rv, key string, recs []Record, finalizers []string) ([]byte, error) {
	if rv == "" {
		return nil, errors.New("orphans: object has no resourceVersion: pass the object as read from the API")
	}
	var value any // null removes the annotation
	if len(recs) > 0 {
		value = encodeRecords(recs)
	}
	if finalizers == nil {
		finalizers = []string{}
	}
	return json.Marshal(map[string]any{"metadata": map[string]any{
		"resourceVersion": rv,
		"annotations":     map[string]any{key: value},
		"finalizers":      finalizers,
	}})
}

func (t *Tracker) takePending(uid types.UID) []Record {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.pending[uid]
	delete(t.pending, uid)
	return p
}

func (t *Tracker) keepPending(uid types.UID, recs []Record) {
	if len(recs) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pending[uid] = merge(t.pending[uid], nil, recs)
}

// setRecorded updates the recorded-orphans gauge with what obj has now.
func (t *Tracker) setRecorded(uid types.UID, recs []Record) {
	byKind := make(map[string]int)
	for _, r := range recs {
		k, _, _ := lease.SplitName(r.Name)
		byKind[k]++
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	old := t.recorded[uid]
	if len(byKind) == 0 && len(old) == 0 {
		return // the happy path: nothing recorded before or after
	}
	changed := make(map[string]bool)
	for k, n := range old {
		t.totals[k] -= n
		changed[k] = true
	}
	for k, n := range byKind {
		t.totals[k] += n
		changed[k] = true
	}
	if len(byKind) == 0 {
		delete(t.recorded, uid)
	} else {
		t.recorded[uid] = byKind
	}
	for k := range changed {
		recordedGauge.WithLabelValues(t.cfg.controller, k).Set(float64(t.totals[k]))
	}
}

// Key returns the annotation and finalizer the tracker records orphans under: [Key] of its
// controller name.
func (t *Tracker) Key() string { return t.key }

// Forget drops what the tracker remembers of the object with uid: its contribution to the
// recorded-orphans gauge, and records it could not write. Call it when the reconciler finds
// the object gone for good.
func (t *Tracker) Forget(uid types.UID) {
	t.setRecorded(uid, nil)
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.pending, uid)
}

func key(obj client.Object) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns + "/" + obj.GetName()
	}
	return obj.GetName()
}
