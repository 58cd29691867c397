// Package ilb reproduces kubernetes#97740, the address reservation that outlived a failed sync
// of the GCE internal load balancer controller, and fixes it with the acquire package.
//
// Ensuring an internal load balancer for a Service creates a health check, reserves an IP
// address under the load balancer's name, creates a firewall rule and a backend service, and
// finally a forwarding rule on the reserved IP. The reservation is temporary: it only holds the
// IP until the forwarding rule exists, because the rule keeps its IP once the reservation is
// released. The rule itself is durable: it lives as long as the Service.
//
// Three shapes of the ensure are here, one version story: Kubernetes v1.20.1 leaks, v1.20.2
// has the fix (k8s.io/legacy-cloud-providers v0.20.1 and v0.20.2).
//
// [EnsureV1201] is the shape of v1.20.1: the reservation is released at the end of the success
// path, so every error return between the reservation and that release leaves the reservation
// behind, once per failed sync, and a failed release is only logged.
//
// [EnsureV1202] is the shape of v1.20.2, the upstream fix: the release is deferred right after
// the reservation, so no error return leaves it behind, but a failed release is still only
// logged and the ensure reports success.
//
// [Ensure] is the shape to copy: the reservation is an [acquire.Temporary] of the ensure's
// scope, so it is released on every return path (error, panic, a cancelled context), and a
// release that fails comes back as a [*lease.OrphanError] and reaches the [acquire.OnOrphan]
// handler instead of a log line. The forwarding rule is not acquired through the scope: it is
// the result, not a temporary.
//
// The two upstream shapes are replicas, and they are checked against the real code:
// testdata/upstream.json holds what they do when each call fails, and the modules under
// examples/gceaddress/upstream run k8s.io/legacy-cloud-providers v0.20.1 and v0.20.2 on the
// upstream tests' MockGCE and require the same table, row for row. The real code also makes
// calls the replicas do not: the node's instance group and, of the operations the replicas
// use, five more (a second health check read, the legacy and health check firewalls, and the
// read-back of the reserved address). Those five are failed too and logged, not compared. The read-back is the one that matters: the real v1.20.2 leaks the reservation when
// it fails, because its defer is registered only once the address manager has returned. The
// fake returns the IP from the insert, so the replicas make no read-back.
//
// # Whose address
//
// The controller's reservation is named after the load balancer, so the next sync finds a
// leftover by name and reuses it. When the Service asks for an IP (spec.loadBalancerIP) that the
// user reserved under a name of their own, the controller uses the IP but never releases the
// user's address: reviewers preferred leaking an IP to deleting a customer's (kubernetes#20663).
// All three shapes keep that rule; see [Ensure] for how the fixed shape expresses it.
//
// [Scenario] plays the three shapes against the in-memory cloud of package
// [github.com/safereconcile/safereconcile/examples/gceaddress/gcecloud], one failing call at a
// time, and prints what each left behind.
package ilb
