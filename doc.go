// Package safereconcile is a set of small primitives for controllers that retry failed work
// forever: every attempt must leave the world in a state the next attempt can handle. Each
// package closes one hazard that a real Kubernetes bug exposed.
//
//   - [github.com/safereconcile/safereconcile/lease]: a typed hold on an external resource,
//     released at most once, with failed releases reported as orphans.
//   - [github.com/safereconcile/safereconcile/acquire]: Acquire/Release scopes that release
//     temporary reservations on every return path, newest first (kubernetes#97740).
//   - [github.com/safereconcile/safereconcile/quota]: drops zero entries from a usage delta
//     before it is checked against a quota (kubernetes#97437).
//   - [github.com/safereconcile/safereconcile/conntrackorder]: deletes stale UDP and SCTP
//     conntrack entries only after the forwarding rules are programmed (kubernetes#98305), and
//     can reconcile the table against the desired state, so that a restart keeps healthy UDP
//     flows (kubernetes#122740).
//   - [github.com/safereconcile/safereconcile/releasepath] (a module of its own, on
//     golang.org/x/tools): an analyzer that reports each return that can skip the release of
//     something the function acquired, for code that does not use acquire (kubernetes#97740).
//   - [github.com/safereconcile/safereconcile/orphans] (a module of its own, on
//     controller-runtime): reports each failed release as an Event, a log line and a metric,
//     and records it on the reconciled object, so that any later reconcile, in any replica,
//     releases it.
//
// The module depends on no Kubernetes package; the runnable reproductions of the three bugs
// live in the separate module github.com/safereconcile/safereconcile/examples.
package safereconcile
