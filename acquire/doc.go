// Package acquire releases what an operation acquired on every return path of that operation:
// normal return, error return, panic, [runtime.Goexit] and a cancelled context.
//
// The hazard is the temporary reservation that a failed attempt leaves behind. In Kubernetes
// v1.20.1 the GCE internal load balancer controller reserved an IP address, created firewall
// rules, a health check, a backend service and a forwarding rule, and released the reservation
// only at the end of the success path; any error in between returned early and leaked it, once
// per failed sync (kubernetes#97740, fixed in v1.20.2). A controller retries forever, so every
// attempt must leave the world in a state the next attempt can handle.
//
// A [Scope] is the lifetime of one operation. Acquire through it, and its end releases:
//
//   - [Temporary]: a resource needed only while the operation runs, such as that reservation.
//     It is released when the scope ends, whatever the outcome.
//   - [Tentative]: a resource that is part of the result if the operation succeeds, and
//     garbage if it fails. It is released only when the scope ends in failure; on success its
//     lease is [lease.Kept].
//   - [Scope.Defer]: any other cleanup, on the same stack.
//
// # Rules
//
// Register a resource the moment it exists: acquire it with Temporary or Tentative, which
// register the release before they return, so no later step can fail in between. Name it
// "<kind>/<id>" (see [lease.New]). Do not release by hand on the success path; let the scope
// do it.
//
// Acquire through a scope only what is yours to release, and decide that first: an address the
// user reserved under their own name is looked up and used, and never enters the scope (see
// the Scope example "userAddress"). Registering it and calling [lease.Lease.Keep] right after
// is not the same: an early return or a panic between the two deletes a customer's address
// (kubernetes#20663; see Keep for what it is for).
//
// When the scope ends, releases run one at a time, newest first, as deferred calls do: a
// forwarding rule that uses an address is torn down before the address. Each release runs
// under context.WithTimeout([context.WithoutCancel](ctx), d), as a hand-written defer would:
// the scope's values (loggers, trace spans) stay, a cancelled or expired operation still
// releases what it acquired, bounded by the release's own deadline ([ReleaseTimeout], 30s by
// default), and a context the release derives, directly or after adding values of its own as
// SDK wrappers do, starts no goroutine. A release that fails is an orphan: [Run] returns it,
// and [Scope.End] appends it to the error it is given, as a [*lease.OrphanError] joined to the
// operation's own error (with go.uber.org/multierr; [errors.Is] and [errors.As] reach each
// one), and [OnOrphan] hears of it once. Nothing is only logged. With one Temporary, [Run]
// costs that hand-written defer and two allocations more, the scope and the lease: 1.17× its
// instructions when the release derives a context, as SDK calls do, and 1.41× when it ignores
// it. [New] and End add a stack capture (see [New]).
//
//	err := acquire.Run(ctx, func(ctx context.Context, s *acquire.Scope) error {
//		addr, err := acquire.Temporary(s, "address/"+name,
//			func(ctx context.Context) (string, error) { return cloud.ReserveAddress(ctx, name) },
//			cloud.ReleaseAddress)
//		if err != nil {
//			return err
//		}
//		return cloud.EnsureForwardingRule(ctx, name, addr.Value()) // may fail: addr is released
//	})
//
// A function that cannot be wrapped in a closure uses [New] and a deferred [Scope.End] on a
// named error result instead, both in that function.
//
// # Concurrency
//
// A Scope is safe for concurrent use by goroutines started inside the operation. Those
// goroutines should finish before the scope ends. After the end, [Temporary] and [Tentative]
// no longer call their acquire function and report [ErrEnded]; an acquisition that was already
// running when the scope ended is released as soon as it returns, and reports ErrEnded too.
package acquire
