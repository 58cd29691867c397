// Package conntrackordertest provides a recording [conntrackorder.Flusher] and
// [conntrackorder.Reconciler] for tests of code that uses a [conntrackorder.Syncer].
//
// The hazard it helps test is a proxy that clears at the wrong time, loses what it should
// clear, or clears too much: a test drives service and endpoint updates, calls Sync, and then
// checks which plans were flushed, in which order relative to programming, what happens when
// a flush fails, and, in reconcile mode, which flows the desired state would have deleted.
//
// Rules: create one [Flusher] per test; read what it recorded with [Flusher.Calls] or
// [Flusher.Flushed] after the Syncs under test have returned; tell it to fail before the Sync
// that should see the failure.
//
// Usage:
//
//	rec := conntrackordertest.New()
//	syncer := conntrackorder.NewSyncer(tracker, program, rec)
//	rec.FailNext(1, errors.New("conntrack: permission denied"))
//	err := syncer.Sync(ctx) // fails; the plan stays pending
//	err = syncer.Sync(ctx)  // flushes it
//	plans := rec.Flushed()
//
// In reconcile mode the same Flusher records the desired state of each call:
//
//	syncer := conntrackorder.NewReconcileSyncer(tracker, program, rec)
//	err := syncer.Sync(ctx)
//	call := rec.Calls()[0]
//	deleted := call.Desired.Contradicts(flow) // a real backend deletes it, whatever the plan
//	kept := call.Desired.Keeps(flow)          // a real backend keeps it, whatever the plan
package conntrackordertest
