// Package conntrackordertest provides a recording [conntrackorder.Flusher] for tests of code
// that uses a [conntrackorder.Syncer].
//
// The hazard it helps test is a proxy that flushes at the wrong time or loses what it should
// flush: a test drives service and endpoint updates, calls Sync, and then checks which plans
// were flushed, in which order relative to programming, and what happens when a flush fails.
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
package conntrackordertest
