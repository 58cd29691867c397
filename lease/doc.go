// Package lease holds an external resource for a bounded lifetime and releases it at most once.
//
// A lease here is a hold on something outside the process that a controller created and must
// give back: a reserved IP address, a temporary firewall opening, a lock row in a database. It
// is not a coordination.k8s.io Lease and has nothing to do with leader election.
//
// The hazard it closes is the reservation that outlives a failed attempt. In Kubernetes v1.20.2
// the GCE internal load balancer controller reserved an address, then returned early on an
// error and never released it; every failing sync left one more reservation behind
// (kubernetes#97740). A [Lease] ties the resource to the one function that gives it back, and
// records whether that has happened, so that nothing can forget it and nothing can do it twice.
//
// Rules for callers:
//
//   - Create a lease with [New] immediately after the resource exists, before any other step
//     can fail. Release it on every return path: the [github.com/safereconcile/safereconcile/acquire]
//     package does that for a whole scope.
//   - Treat an [*OrphanError] as a resource that still exists: report it, and release it again
//     later or let the next attempt find it by name.
//   - Call [Lease.Keep] when the resource turns out to be needed for longer than the lease, or
//     not to be yours at all (an address the user reserved): the lease then never releases it.
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
// result. Keep never blocks, and the release function may call the lease's own methods. A
// [Ledger] is safe for concurrent use too.
//
// # Proving that nothing leaked
//
// A [Ledger] records leases and lists those still Held or Orphaned. Put one in a context with
// [WithLedger] and every lease the acquire package creates under that context is recorded in
// it; the [github.com/safereconcile/safereconcile/lease/leasetest] package fails a test for each
// lease still outstanding when the test ends.
//
//	addr, err := cloud.ReserveAddress(ctx, name)
//	if err != nil {
//		return err
//	}
//	l := lease.New(name, addr, cloud.ReleaseAddress)
//	defer func() {
//		// Released even when ctx was cancelled, and never without a deadline.
//		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
//		defer cancel()
//		err = multierr.Append(err, l.Release(rctx))
//	}()
package lease
