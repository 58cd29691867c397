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
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/retry"
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
	// ReasonNotRecorded is the reason of the Warning Event for orphans held in memory, not
	// recorded on the object: its record is at [RecordBudget], or the write failed (action
	// [ActionRecord]).
	ReasonNotRecorded = "OrphansNotRecorded"

	ActionRelease      = "Release"
	ActionRetryRelease = "RetryRelease"
	ActionReadRecord   = "ReadOrphanRecord"
	ActionRecord       = "RecordOrphans"
)

// ErrRecorded is wrapped by the error [Tracker.Run] returns while orphans are still recorded
// on the object after the run, or held in memory for it: the reconcile must come again
// (controller-runtime requeues an error with backoff), and a controller must not yet remove a
// finalizer of its own.
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
// (Events, the reconcile's log, metrics) and records them on the reconciled object, so that
// the next reconcile in any process releases them. Create one per controller with [New] or
// [NewForManager]; it is safe for concurrent use by the controller's workers.
//
// Each [Tracker.Run] records at most one Event per outcome on the object: releases that
// failed, recorded orphans that failed again, recorded orphans released, records not owned,
// orphans not recorded. Each note counts its orphans and names the first few. The Event's
// related object is the object at the resourceVersion the reconcile read, which every write
// of the record changes, so that client-go, which folds Events of one type, reason, action,
// regarding and related object into a series that keeps the first note, folds only reports
// of one and the same record.
type Tracker struct {
	client   client.Client
	reader   client.Reader
	recorder events.EventRecorder
	kinds    map[string]Kind
	cfg      config
	key      string // Key(cfg.controller)

	mu            sync.Mutex
	pending       map[types.UID][]Record       // orphans whose record could not be written yet
	pendingTotals map[string]int               // those by kind, over all objects (the gauge)
	recorded      map[types.UID]map[string]int // per object, recorded orphans by kind (the gauge)
	totals        map[string]int               // recorded orphans by kind, over all objects
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
		cfg: config{controller: "orphans", timeout: DefaultReleaseTimeout, writeTimeout: DefaultWriteTimeout,
			conflicts: 5, now: time.Now},
		pending:       make(map[types.UID][]Record),
		pendingTotals: make(map[string]int),
		recorded:      make(map[types.UID]map[string]int),
		totals:        make(map[string]int),
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
//  2. It calls fn in an [acquire.Run] scope whose failed releases become orphans, each counted
//     in safereconcile_orphans_total and logged at V(1) through [log.FromContext].
//  3. When the records changed, it writes them to obj's annotation [Tracker.Key] in one patch,
//     with the finalizer of the same name while any remain, conditional on obj's
//     resourceVersion; a conflict rereads the object and merges again, so no record is
//     dropped. The write runs under [context.WithoutCancel] of ctx, bounded by
//     [WriteTimeout], so that a reconcile cancelled by a shutdown still records what it
//     orphaned. When nothing changed, and that is every reconcile in which nothing fails, Run
//     makes no API request at all; an empty record left by hand, or this controller's
//     finalizer left without a record, costs one write, once, to remove it.
//  4. It records at most one Event per outcome on obj, naming the orphans (see [Tracker]).
//
// The record takes at most [RecordBudget] bytes. Orphans that do not fit, and those of a write
// that failed, are held in memory, counted in safereconcile_orphans_unrecorded, named in a
// Warning Event (reason [ReasonNotRecorded]), and written by the object's next Run in this
// process as room allows.
//
// When fn or a release panics (or calls runtime.Goexit), Run writes the records in the same
// way, logs the orphans once at error level, since no error will name them, and lets the panic
// go on. A lease name that a record cannot hold exactly (not valid UTF-8, or not
// "<kind>/<id>") is reported but never recorded: Run returns an error wrapping
// [ErrInvalidName].
//
// Run returns fn's error, the scope's failed releases, the retries that failed or were
// refused, the write's error, and, while orphans remain recorded or held, an error wrapping
// [ErrRecorded]. Each group of failures is one error whose text counts them and names the
// first few; [errors.Is] and [errors.As] reach each [*lease.OrphanError]. After a write obj
// holds the object as the API server returned it.
//
// A record Run cannot parse stops the run before fn: Run records a Warning Event and
// returns the error, and changes nothing until a person repairs or removes the annotation.
func (t *Tracker) Run(ctx context.Context, obj client.Object, fn func(ctx context.Context, s *acquire.Scope) error) error {
	recs, err := t.records(ctx, obj)
	if err != nil {
		return err
	}
	r := &run{recs: recs}
	t.retry(ctx, obj, r)

	returned := false
	defer func() {
		if returned {
			return
		}
		// fn or one of the scope's releases panicked, or called runtime.Goexit, and
		// acquire.Run has run every release and handed each failure to onOrphan. Record them
		// before the panic goes on: controller-runtime recovers it and requeues, and nothing
		// else remembers them. No error will carry them to a log, so they are logged here.
		werr, final, held := t.finish(ctx, obj, r)
		if names := r.orphanNames(); len(names) > 0 {
			logger := log.FromContext(ctx)
			if werr != nil {
				logger.Error(werr, "reconcile panicked after releases failed; orphans held in memory for the object's next reconcile",
					"orphans", listNames(names))
			} else {
				logger.Error(errPanicked, "reconcile panicked after releases failed; orphans recorded on the object",
					"orphans", listNames(names), "recorded", len(final), "held", len(held))
			}
		}
	}()
	serr := acquire.Run(ctx, fn,
		acquire.OnOrphan(func(ctx context.Context, oe *lease.OrphanError) { t.orphaned(ctx, obj, r, oe) }),
		acquire.ReleaseTimeout(t.cfg.timeout))
	returned = true

	werr, final, held := t.finish(ctx, obj, r)
	err = multierr.Combine(r.fnError(serr),
		listErr("release failed", "releases failed", orphanErrors(r.orphans)),
		listErr("orphan name refused", "orphan names refused", r.refused),
		listErr("recorded orphan failed again", "recorded orphans failed again", orphanErrors(r.again)),
		listErr("recorded orphan not owned", "recorded orphans not owned", r.notOwnedErrors(obj)),
		werr)
	if len(final)+len(held) > 0 {
		msg := "on " + objName(obj)
		if len(final) > 0 {
			msg += fmt.Sprintf(" (%d): %s", len(final), listNames(recordNames(final)))
		}
		if len(held) > 0 {
			msg += fmt.Sprintf("; %d more held in memory until the record has room", len(held))
		}
		err = multierr.Append(err, fmt.Errorf("%w %s", ErrRecorded, msg))
	}
	return err
}

// errPanicked is the error of the log line of a reconcile that panicked with orphans.
var errPanicked = errors.New("orphans: reconcile panicked")

// A run is what one [Tracker.Run] learns, for its write, its Events and its error.
type run struct {
	recs     []Record             // on the object when the run began
	released []Record             // recorded orphans released on retry
	again    []*lease.OrphanError // recorded orphans whose release failed again
	notOurs  []Record             // recorded orphans this controller does not release

	mu      sync.Mutex           // OnOrphan may be called by goroutines of fn
	orphans []*lease.OrphanError // the scope's failed releases
	added   []Record             // their records
	refused []error              // orphans whose names cannot be recorded
	closed  bool                 // finish has taken added; a later orphan waits for the next run
}

// fnError returns acquire.Run's error without the orphans that OnOrphan collected: fn's own.
func (r *run) fnError(err error) error {
	if err == nil || len(r.orphans) == 0 {
		return err
	}
	var rest []error
	for _, e := range multierr.Errors(err) {
		if oe, ok := e.(*lease.OrphanError); ok && slices.Contains(r.orphans, oe) {
			continue
		}
		rest = append(rest, e)
	}
	return multierr.Combine(rest...)
}

func (r *run) notOwnedErrors(obj client.Object) []error {
	errs := make([]error, len(r.notOurs))
	for i, rec := range r.notOurs {
		errs[i] = fmt.Errorf("orphans: %s: recorded orphan %s is not owned by this controller", objName(obj), rec.Name)
	}
	return errs
}

func (r *run) orphanNames() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	names := make([]string, len(r.orphans))
	for i, oe := range r.orphans {
		names[i] = oe.Name
	}
	return names
}

// orphaned takes one failed release of the scope.
func (t *Tracker) orphaned(ctx context.Context, obj client.Object, r *run, oe *lease.OrphanError) {
	// A label must be valid UTF-8, or Prometheus panics; the name is refused below, but the
	// failure is still counted.
	orphansTotal.WithLabelValues(t.cfg.controller, strings.ToValidUTF8(oe.Kind(), "\uFFFD")).Inc()
	logger := log.FromContext(ctx)
	logger.V(1).Info("release failed", "orphan", oe.Name, "kind", oe.Kind(), "error", oe.Err.Error())
	invalid := recordable(oe.Name)
	rec := newRecord(oe.Name, oe.Err, t.cfg.now())
	r.mu.Lock()
	if r.closed {
		// A goroutine of fn released after the scope ended (acquire.Scope.Defer after the
		// end): too late for this run's write and its error, so it is reported here, and
		// the object's next run writes it.
		r.mu.Unlock()
		logger.Error(oe, "release failed after the reconcile ended; the object's next reconcile records the orphan", "orphan", oe.Name, "kind", oe.Kind())
		t.event(obj, corev1.EventTypeWarning, ReasonReleaseFailed, ActionRelease, orphansNote(
			"Release failed after the reconcile ended; recorded by the object's next reconcile", []*lease.OrphanError{oe}))
		if invalid == nil {
			t.keepPending(obj.GetUID(), []Record{rec})
		}
		return
	}
	r.orphans = append(r.orphans, oe)
	if invalid != nil {
		r.refused = append(r.refused, invalid)
	} else {
		r.added = append(r.added, rec)
	}
	r.mu.Unlock()
}

// finish reports the run in Events and writes its records, or keeps them in memory.
// It returns the write's error, what is recorded on obj afterwards, and what is held in memory.
func (t *Tracker) finish(ctx context.Context, obj client.Object, r *run) (werr error, final, held []Record) {
	r.mu.Lock()
	r.closed = true
	added := r.added
	r.mu.Unlock()
	t.reportRun(obj, r)
	uid := obj.GetUID()
	added = append(t.takePending(uid), added...)
	if len(r.recs) == 0 && len(added) == 0 && !controllerutil.ContainsFinalizer(obj, t.key) {
		// The happy path: nothing was recorded and nothing is to be; write checks the same
		// and makes no request, but costs a context, a timer and an encoding to find out.
		if _, annotated := obj.GetAnnotations()[t.key]; !annotated {
			t.setRecorded(uid, nil) // another writer may have removed what this process counted
			return nil, nil, nil
		}
	}

	// The write makes the run's orphans durable, so it must happen even when ctx is done: a
	// manager that stops cancels every reconcile's context, and the process is about to
	// exit with the records in its memory. Like each release, it gets a deadline of its own.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), t.cfg.writeTimeout)
	defer cancel()
	final, held, werr = t.write(wctx, obj, r.recs, r.released, added)
	if werr != nil {
		final, held = r.recs, merge(nil, nil, added)
	} else {
		t.setRecorded(uid, final)
	}
	t.keepPending(uid, held)
	t.reportHeld(obj, held, werr)
	return werr, final, held
}

// records returns the records on obj, or reports and returns why they cannot be read.
func (t *Tracker) records(ctx context.Context, obj client.Object) ([]Record, error) {
	value, ok := obj.GetAnnotations()[t.key]
	if !ok {
		return nil, nil
	}
	recs, err := decodeRecords(t.key, value)
	if err != nil {
		err = fmt.Errorf("%s: %w", objName(obj), err)
		t.event(obj, corev1.EventTypeWarning, ReasonRecordInvalid, ActionReadRecord, truncateNote(fmt.Sprintf(
			"Orphan record %s cannot be read, so nothing is retried or recorded until it is repaired: %v", t.key, err)))
		// Run returns err, and the reconciler's caller logs it at error level.
		log.FromContext(ctx).V(1).Info("orphan record cannot be read", "annotation", t.key, "error", err.Error())
		return nil, err
	}
	return recs, nil
}

// retry releases each orphan recorded on obj by name, and notes the outcomes in r.
func (t *Tracker) retry(ctx context.Context, obj client.Object, r *run) {
	if len(r.recs) == 0 {
		return // the happy path: not even a logger to look up
	}
	logger := log.FromContext(ctx)
	for _, rec := range r.recs {
		kindName, id, _ := lease.SplitName(rec.Name)
		kind, ok := t.kinds[kindName]
		if !ok || !kind.Owns(obj, id) {
			// Not ours to release: a record of a kind this controller does not know, or a
			// name it would never create for this object. Releasing it could delete a
			// resource somebody else owns (kubernetes#20663), so a person decides.
			retriesTotal.WithLabelValues(t.cfg.controller, kindName, "skipped").Inc()
			logger.V(1).Info("recorded orphan not released: not ours", "orphan", rec.Name, "kind", kindName)
			r.notOurs = append(r.notOurs, rec)
			continue
		}
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), t.cfg.timeout)
		rerr := kind.Release(rctx, id)
		cancel()
		if rerr != nil {
			retriesTotal.WithLabelValues(t.cfg.controller, kindName, "failed").Inc()
			logger.V(1).Info("retried release failed; orphan stays recorded", "orphan", rec.Name, "kind", kindName, "since", rec.Since, "error", rerr.Error())
			r.again = append(r.again, &lease.OrphanError{Name: rec.Name, Err: rerr})
			continue
		}
		retriesTotal.WithLabelValues(t.cfg.controller, kindName, "released").Inc()
		logger.V(1).Info("released recorded orphan", "orphan", rec.Name, "kind", kindName, "since", rec.Since)
		r.released = append(r.released, rec)
	}
}

// write brings obj's record to cur without released, plus as much of added as fits in
// [RecordBudget], and returns what is recorded afterwards and what of added did not fit. It
// makes no request when that is what obj already has.
func (t *Tracker) write(ctx context.Context, obj client.Object, cur, released, added []Record) (next, held []Record, err error) {
	var failed error // a failure of this function's own, already phrased
	reread := false
	// retry.RetryOnConflict rather than a loop of our own: its short jittered pause lets the
	// other writer's reconcile finish before the reread, and it is the loop readers know.
	backoff := retry.DefaultRetry
	backoff.Steps = t.cfg.conflicts + 1
	err = retry.RetryOnConflict(backoff, func() error {
		if reread {
			// Someone else wrote the object since it was read. Read it again from the API
			// server and merge into what is there now: their records stay, ours are added,
			// and only the exact records this run released are dropped.
			if err := t.reader.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
				failed = fmt.Errorf("orphans: record orphans on %s: reread after a conflict: %w", objName(obj), err)
				return failed
			}
			var err error
			if cur, err = t.records(ctx, obj); err != nil {
				failed = err
				return failed
			}
		}
		reread = true
		next, held = fit(cur, released, added, RecordBudget)
		_, annotated := obj.GetAnnotations()[t.key]
		finalizers := wantFinalizers(obj, t.key, len(next) > 0)
		if sameRecords(cur, next) && annotated == (len(next) > 0) && slices.Equal(finalizers, obj.GetFinalizers()) {
			return nil
		}
		patch, err := recordPatch(obj.GetResourceVersion(), t.key, next, finalizers)
		if err != nil {
			failed = err
			return failed
		}
		return t.client.Patch(ctx, obj, client.RawPatch(types.MergePatchType, patch))
	})
	switch {
	case err == nil:
		return next, held, nil
	case failed != nil:
		return nil, nil, failed
	default:
		return nil, nil, fmt.Errorf("orphans: record orphans on %s: %w", objName(obj), err)
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
// It is built by hand rather than with client.MergeFrom, which would diff the whole object:
// this patch must carry only the record, the finalizers and the resourceVersion, whatever
// else the reconcile changed in obj without writing it.
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
	t.setPendingLocked(uid, nil)
	return p
}

func (t *Tracker) keepPending(uid types.UID, recs []Record) {
	if len(recs) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.setPendingLocked(uid, merge(t.pending[uid], nil, recs))
}

// setPendingLocked sets the records held in memory for uid, and the gauge that counts them.
func (t *Tracker) setPendingLocked(uid types.UID, recs []Record) {
	old := t.pending[uid]
	if len(old) == 0 && len(recs) == 0 {
		return // the happy path
	}
	for _, r := range old {
		k, _, _ := lease.SplitName(r.Name)
		t.pendingTotals[k]--
		unrecordedGauge.WithLabelValues(t.cfg.controller, k).Set(float64(t.pendingTotals[k]))
	}
	for _, r := range recs {
		k, _, _ := lease.SplitName(r.Name)
		t.pendingTotals[k]++
		unrecordedGauge.WithLabelValues(t.cfg.controller, k).Set(float64(t.pendingTotals[k]))
	}
	if len(recs) == 0 {
		delete(t.pending, uid)
	} else {
		t.pending[uid] = recs
	}
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
	t.setPendingLocked(uid, nil)
}

// objName returns obj's namespace/name, or its name when it has no namespace.
func objName(obj client.Object) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns + "/" + obj.GetName()
	}
	return obj.GetName()
}
