// Package orphans reports the orphans of a controller-runtime reconciler where its operators
// look, and records them on the reconciled object so that they outlive the process that made
// them.
//
// An orphan is a resource whose release failed (a [*lease.OrphanError] from the acquire
// package): a reserved address, say, that the cloud refused to give back. In memory it dies
// with the process, and a controller that crashes, restarts or loses its leader lease leaks it
// (kubernetes#97740 leaked one reservation per failed sync). A [Tracker] makes each orphan
//
//   - seen: Warning Events on the object (events.k8s.io, reason [ReasonReleaseFailed]), at
//     most one per outcome and reconcile, each naming its orphans, or counting them and naming
//     the first few; the error [Tracker.Run] returns, which names the first few too, for the
//     reconciler to return and controller-runtime to log; a line per orphan at V(1) in the
//     reconcile's log ([log.FromContext]: keys "orphan", "kind" and "error"); the counter
//     safereconcile_orphans_total{controller,kind}, next to the gauges
//     safereconcile_orphans_recorded and safereconcile_orphans_unrecorded and the counter
//     safereconcile_orphan_retries_total{controller,kind,result}, all on controller-runtime's
//     metrics registry. The kind label is [lease.OrphanError.Kind], from the lease-naming
//     convention "<kind>/<id>" (see [lease.New]); names never become labels. A controller
//     that owns its kind's status can show [Tracker.Condition] there too;
//   - durable: recorded in an annotation of the object (its name is [Key] of the controller)
//     in the same reconcile, and retried by name at the start of every later reconcile of the
//     object, in whichever process or replica runs it, until it is released and the record
//     removed. The reconcile records its orphans even when it panics or its context is
//     cancelled. A finalizer of the same name, added in the write that records the first
//     orphan unless the object's deletion has already begun, holds the deletion while
//     anything is recorded.
//
// The record takes at most [RecordBudget] bytes of the object, so that its other writers keep
// the rest. Orphans that do not fit, and those of a write that failed, are held in the memory
// of the process, counted in safereconcile_orphans_unrecorded, named in a Warning Event
// (reason [ReasonNotRecorded]), and recorded by the object's next reconcile in that process as
// room allows. Until then a crash of that process loses them; the next rule is what finds
// them again.
//
// # Rules for callers
//
//   - Name every lease "<kind>/<id>", in valid UTF-8, with an id the external system knows
//     the resource by, and give the [Tracker] a [Kind] for each kind: Release, idempotent by
//     name (releasing what is gone returns nil), and Owns, which recognises the ids this
//     controller creates for an object. A record Owns rejects is reported and kept, never
//     released. An orphan with another name is reported, never recorded ([ErrInvalidName]).
//   - Derive ids from the object (its UID), so that the next attempt acquires the same name
//     again. A process killed between acquiring a resource and recording its orphan has left
//     no record; the same name is what lets the next reconcile find and release it, with no
//     write-ahead record and so no write on the happy path.
//   - Run each reconcile's acquisitions in [Tracker.Run], passing the object as read. Return its
//     error: while orphans stay recorded it wraps [ErrRecorded], and the requeue with backoff is
//     the retry. Remove a finalizer of your own only after a Run that returned nil.
//
// # Cost
//
// A reconcile in which nothing fails and nothing is recorded makes no API request for the
// tracker: no read, since the object the reconciler already holds carries the record, and no
// write. A reconcile that records new orphans, or removes released ones, makes one PATCH
// (conditional on the resourceVersion; a conflict rereads the object and merges) and one Event
// per outcome; a retry that fails again makes an Event and no write.
//
//	tracker := orphans.NewForManager(mgr, "ilb-controller", map[string]orphans.Kind{
//		"address": {Release: cloud.ReleaseAddress, Owns: ownsAddress},
//	})
//	...
//	err := tracker.Run(ctx, svc, func(ctx context.Context, s *acquire.Scope) error {
//		addr, err := acquire.Temporary(s, "address/"+name, reserve, release)
//		...
//	})
//
// The [github.com/safereconcile/safereconcile/orphans/ilbcontroller] package is a complete
// controller built this way.
package orphans
