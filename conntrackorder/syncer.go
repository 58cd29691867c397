package conntrackorder

import (
	"context"
	"errors"
	"fmt"
	"reflect"
)

// A Flusher deletes the conntrack entries that match any filter of a plan.
//
// Flush must either apply the whole plan or return an error; a plan that was only partly
// applied is retried whole by [Syncer.Sync], so deleting an entry twice must be harmless
// (it is: a second delete matches nothing).
type Flusher interface {
	Flush(ctx context.Context, plan Plan) error
}

// A Reconciler deletes, in one read of the conntrack table per address family, every entry
// that a desired state contradicts ([Desired.Contradicts]) or that matches a filter of a plan
// (with the semantics of [Filter]) and that the desired state does not keep
// ([Desired.Keeps]). A nil desired contradicts and keeps nothing.
//
// The desired state decides every flow to one of its service IPs and ports: a filter that
// also selects such a flow NATed to a current serving endpoint must leave it (the filter for
// a lost NodePort whose number is another service's port).
//
// Reconcile must either apply the whole plan and the whole desired state or return an error;
// a failed reconcile is retried whole by [Syncer.Sync], so deleting an entry twice must be
// harmless (it is: a second delete matches nothing). It must not delete any other entry.
//
// [github.com/safereconcile/safereconcile/conntrackorder/ctnetlink] implements it.
type Reconciler interface {
	Reconcile(ctx context.Context, plan Plan, desired *Desired) error
}

// A Syncer programs the forwarding rules and then clears the stale conntrack entries, in that
// order. A Syncer made by [NewSyncer] flushes the filters a [Tracker] collected; one made by
// [NewReconcileSyncer] also reconciles the table against the Tracker's desired state.
//
// Use [NewSyncer] or [NewReconcileSyncer]; the zero value is not usable, and its Sync returns
// an error. A Syncer is safe for concurrent use: Sync calls run one at a time.
type Syncer struct {
	tracker    *Tracker
	program    func(ctx context.Context) error
	flusher    Flusher       // nil in reconcile mode
	reconciler Reconciler    // nil in flush mode
	running    chan struct{} // holds a token while a Sync runs
}

// NewSyncer returns a Syncer that flushes the filters t collects with f, each time after
// program has installed the forwarding rules.
//
// program must install rules for a state at least as new as every change reported to t before
// Sync called it: record a change in the state program reads before reporting it to t. A
// filter collected for a change that program has not installed yet would be flushed too early.
//
// NewSyncer panics if t, program or f is nil, f also when it is an interface holding a nil
// pointer (a nil *ctexec.Flusher), which would panic in the first Flush instead.
func NewSyncer(t *Tracker, program func(ctx context.Context) error, f Flusher) *Syncer {
	if t == nil || program == nil || isNil(f) {
		panic("conntrackorder: NewSyncer needs a tracker, a program function and a flusher")
	}
	return &Syncer{tracker: t, program: program, flusher: f, running: make(chan struct{}, 1)}
}

// NewReconcileSyncer returns a Syncer that, each time after program has installed the
// forwarding rules, hands r the desired state of t ([Tracker.Desired]) and the filters t
// collected that the desired state does not cover, so that r deletes in one pass every UDP
// flow that contradicts the desired state and every flow a remaining filter selects, except
// the flows the desired state keeps ([Desired.Keeps]). See
// "What reconcile mode deletes" in the package documentation for when to use it.
//
// program has the same obligation as for [NewSyncer]. In addition, t must hold the whole
// state before the first Sync: every service port and its serving endpoints, for example once
// the informers have synced. A UDP service port whose endpoints were not reported yet has
// none as far as the reconcile knows, and its flows would be deleted.
//
// NewReconcileSyncer panics if t, program or r is nil, r also when it is an interface holding
// a nil pointer.
func NewReconcileSyncer(t *Tracker, program func(ctx context.Context) error, r Reconciler) *Syncer {
	if t == nil || program == nil || isNil(r) {
		panic("conntrackorder: NewReconcileSyncer needs a tracker, a program function and a reconciler")
	}
	return &Syncer{tracker: t, program: program, reconciler: r, running: make(chan struct{}, 1)}
}

// Sync takes a snapshot of the pending plan, calls program, and only if program succeeded
// clears the stale entries:
//   - made by [NewSyncer], it calls Flush with the snapshot, unless the snapshot is empty;
//   - made by [NewReconcileSyncer], it also takes a snapshot of the desired state together
//     with the plan, and calls Reconcile with the desired state and the filters of the plan
//     that the desired state does not cover: those for addresses, ports and NodePorts no
//     current UDP service port has, and every SCTP filter. It calls Reconcile on every Sync,
//     unless no filter is left and the desired state holds no UDP service address or NodePort.
//
// Filters that Flush or Reconcile applied are no longer pending; so are the filters the
// desired state covered, since the reconcile cleared what they were collected for.
//
// If program, Flush or Reconcile fails, Sync returns the error, wrapped, and the snapshot stays
// pending together with whatever was collected in the meantime, so the next successful Sync
// clears it after programming again. Changes reported to the Tracker while Sync runs are
// cleared by a later Sync, even a filter that is also in the snapshot.
//
// Sync waits for a running Sync to return first; if ctx is done before then, it returns
// ctx's error and does nothing. ctx is passed to program, Flush and Reconcile.
//
// Sync returns an error and does nothing when ctx is nil, and when s is nil or the zero
// Syncer, which has no tracker, program or backend.
func (s *Syncer) Sync(ctx context.Context) error {
	if s == nil || s.tracker == nil {
		return errNotMade
	}
	if ctx == nil {
		return errors.New("conntrackorder: sync: nil context")
	}
	// Checked first, so that a context already done never runs program, even when no Sync is
	// running and the select below could pick either case.
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("conntrackorder: sync: %w", err)
	}
	select {
	case s.running <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("conntrackorder: wait for the running sync: %w", ctx.Err())
	}
	defer func() { <-s.running }()

	// Snapshot before programming: every filter in it was collected for a change that the
	// state program reads already holds, so once program returns, the rules that NAT new
	// flows for that change are in place, and a flow deleted by the flush is re-created
	// through them. A filter collected after this line may describe a change program did not
	// see; it waits for the next Sync (kubernetes#98305: flush before the rules exist and one
	// datagram in between re-creates the stale entry). The desired state is taken under the
	// same lock, so that it holds exactly the changes the plan was collected for.
	plan, mark, desired := s.tracker.snapshot(s.reconciler != nil)

	if err := s.program(ctx); err != nil {
		// Nothing is removed from the tracker until a flush succeeded, so the snapshot stays
		// pending. kube-proxy dropped the collected changes when iptables-restore failed, and
		// nothing cleared those entries again (kubernetes#112604).
		return fmt.Errorf("conntrackorder: program: %w", err)
	}
	if s.reconciler != nil {
		return s.reconcile(ctx, plan, mark, desired)
	}
	if len(plan) == 0 {
		return nil
	}
	// The snapshot is Flush's own: the tracker removes the snapshot's filters afterwards by
	// their marks, whatever Flush does with its slice.
	if err := s.flusher.Flush(ctx, plan); err != nil {
		// A failed flush may have applied part of the plan; the whole snapshot stays pending
		// and is flushed again, which deletes nothing twice.
		return fmt.Errorf("conntrackorder: flush: %w", err)
	}
	s.tracker.flushed(mark)
	return nil
}

var errNotMade = errors.New("conntrackorder: sync: Syncer not made by NewSyncer or NewReconcileSyncer")

// isNil reports whether v is nil or holds a nil pointer, map, channel, function or slice.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Chan, reflect.Func, reflect.Slice, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// reconcile is the second half of Sync in reconcile mode, after program succeeded.
func (s *Syncer) reconcile(ctx context.Context, plan Plan, mark uint64, desired *Desired) error {
	// A filter for a destination the desired state holds would delete the healthy flows there
	// with the stale ones: a fresh process sees every service go from no endpoints to some,
	// and flushing those filters wiped every UDP flow on each restart (kubernetes#122740).
	// The desired state deletes exactly the stale flows among them. What it cannot see stays
	// in the plan: a deleted service, a lost address or NodePort, SCTP (kubernetes#141371).
	rest := desired.prune(plan)
	if len(rest) == 0 && desired.empty() {
		// Then the plan was empty too: every filter a desired state covers is one of its
		// destinations.
		return nil
	}
	if err := s.reconciler.Reconcile(ctx, rest, desired); err != nil {
		// The whole snapshot stays pending, also the filters the desired state covered: the
		// next Sync covers them again, or flushes them if their destination is gone by then.
		return fmt.Errorf("conntrackorder: reconcile: %w", err)
	}
	s.tracker.flushed(mark)
	return nil
}
