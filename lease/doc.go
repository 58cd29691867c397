// Package lease holds an external resource for a bounded lifetime and releases it at most once.
//
// A lease here is a hold on something outside the process that a controller created and must
// give back: a reserved IP address, a temporary firewall opening, a lock row in a database. It
// is not a coordination.k8s.io Lease and has nothing to do with leader election.
//
// The hazard it closes is the reservation that outlives a failed attempt. In Kubernetes v1.20.1
// the GCE internal load balancer controller reserved an address, then returned early on an
// error and never released it; every failing sync left one more reservation behind
// (kubernetes#97740, fixed in v1.20.2). A [Lease] ties the resource to the one function that
// gives it back, and records whether that has happened, so that nothing can forget it and
// nothing can do it twice.
//
// Rules for callers:
//
//   - Lease only what is yours to release, and decide that first: an address the user reserved
//     under their own name is used, never leased (kubernetes#20663).
//   - Create a lease with [New] immediately after the resource exists, before any other step
//     can fail, and name it "<kind>/<id>" (see [New]). Release it on every return path: the
//     [github.com/safereconcile/safereconcile/acquire] package does that for a whole scope.
//   - Treat an [*OrphanError] as a resource that still exists: report it, and release it again
//     later or let the next attempt find it by name.
//   - Call [Lease.Keep] when the resource outlives the lease, handed to a longer-lived owner:
//     the lease then never releases it.
//
// By hand, the release goes in a deferred call right after the lease exists:
//
//	addr, err := cloud.ReserveAddress(ctx, name)
//	if err != nil {
//		return err
//	}
//	l := lease.New("address/"+name, addr, cloud.ReleaseAddress)
//	defer func() {
//		// Released even when ctx was cancelled, and never without a deadline.
//		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
//		defer cancel()
//		err = multierr.Append(err, l.Release(rctx))
//	}()
//
// # States
//
// A lease starts [Held]. A successful [Lease.Release] moves it to [Released]; a failed one to
// [Orphaned], from which a later Release may try again. [Lease.Keep] moves a Held or Orphaned
// lease to [Kept]. Released and Kept are final:
//
//	Held ──Release ok──▶ Released
//	Held ──Release err─▶ Orphaned ──Release ok──▶ Released
//	Held/Orphaned ──Keep──▶ Kept
//
// # Concurrency
//
// All methods of a [Lease] are safe for concurrent use. The release function never runs twice
// at the same time: a Release that finds another in progress waits for it and returns its
// result. Keep never blocks. The release function may call the lease's own methods; a Release
// from inside it returns an error wrapping [ErrInProgress] instead of waiting for itself. A
// [Ledger] is safe for concurrent use too.
//
// # Proving that nothing leaked
//
// A [Ledger] records leases and lists those still Held or Orphaned. Put one in a context with
// [WithLedger] and every lease the acquire package creates under that context is recorded in
// it:
//
//	func TestEnsureFailsCleanly(t *testing.T) {
//		var g lease.Ledger
//		err := ensure(lease.WithLedger(ctx, &g), cloud) // uses acquire.Run(ctx, ...)
//		require.Error(t, err)
//		for _, l := range g.Outstanding() {
//			t.Errorf("%s is still %s", l.Name(), l.State())
//		}
//	}
//
// The [github.com/safereconcile/safereconcile/lease/leasetest] package does the same in one
// line, when the test ends.
package lease
