// Package ilb reproduces kubernetes#97740, the address reservation that outlived a failed sync
// of the GCE internal load balancer controller, and fixes it with the acquire package.
//
// Ensuring an internal load balancer for a Service creates a health check, reserves an IP
// address under the load balancer's name, creates a firewall rule and a backend service, and
// finally a forwarding rule on the reserved IP. The reservation is temporary: it only holds the
// IP until the forwarding rule exists, because the rule keeps its IP once the reservation is
// released. The rule itself is durable: it lives as long as the Service.
//
// [EnsureV1201] is the shape of Kubernetes v1.20.1: the reservation is released at the end of
// the success path, so every error return between the reservation and that release leaves the
// reservation behind, once per failed sync, and a failed release is only logged.
//
// [Ensure] is the fixed shape: the reservation is an [acquire.Temporary] of the ensure's scope,
// so it is released on every return path (error, panic, a cancelled context), and a release that
// fails comes back as a [*lease.OrphanError] and reaches the [acquire.OnOrphan] handler instead of
// a log line. The forwarding rule is not acquired through the scope: it is the result, not a
// temporary.
//
// # Whose address
//
// The controller's reservation is named after the load balancer, so the next sync finds a
// leftover by name and reuses it. When the Service asks for an IP (spec.loadBalancerIP) that the
// user reserved under a name of their own, the controller uses the IP but never releases the
// user's address: reviewers preferred leaking an IP to deleting a customer's (kubernetes#20663).
// Both shapes keep that rule; see [Ensure] for how the fixed shape expresses it.
//
// [Scenario] plays both shapes against the in-memory cloud of package
// [github.com/safereconcile/safereconcile/examples/gceaddress/gcecloud], one failing call at a
// time, and prints what each left behind.
package ilb
