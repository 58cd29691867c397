// Package gcecloud is a deterministic, in-memory fake of the regional Compute Engine API that
// the Kubernetes internal load balancer controller calls: addresses (reserve by name, get,
// release), firewall rules, health checks, backend services and forwarding rules.
//
// It exists so that a test can do what the regression test for kubernetes#97740 did: make one
// cloud call fail, run the ensure function, then look in the cloud for what the failed attempt
// left behind. A test that only checks the returned error cannot see a leaked reservation; a
// test that looks the address up again can.
//
// # Why not MockGCE
//
// The upstream test used MockGCE from github.com/GoogleCloudPlatform/k8s-cloud-provider, and
// the conformance test in examples/gceaddress/upstream runs the real v1.20.1 and v1.20.2 code
// on it. The reproductions here need what MockGCE does not model. It hands every ephemeral
// address the same IP and never allocates from a subnet; a forwarding rule inserted without an
// IP gets none, and one may take an IP that another rule uses; any resource can be deleted
// while another references it. It ignores the caller's context, so a sync cancelled in the
// middle cannot be played. And it has no nth-call faults: hooks and per-key error maps fail
// every call until they are removed, and the hooks run first, so the two do not combine. It is
// also tied to k8s.io/* v0.20-era modules, which cannot share a build list with this module's
// k8s.io/* v0.34.
//
// # Semantics kept from the real API
//
//   - An address reserves an IP under a name. Reserving a name that exists, or an IP that
//     another address reserves, is a conflict ([ErrConflict]); reserving the IP of an existing
//     forwarding rule is allowed (it makes the rule's IP static).
//   - A forwarding rule may use any free IP of the subnet or an IP that an address reserves,
//     whoever owns that address. Releasing the address later does not take the IP from the
//     rule: the rule keeps it. This is why the controller's reservation is temporary: it only
//     has to hold the IP until the rule exists.
//   - References are checked: a backend service needs its health check, a forwarding rule its
//     backend service, and neither can be deleted while referenced ([ErrInUse]).
//   - A missing resource is [ErrNotFound]. Errors name the operation and the resource, and wrap
//     the sentinel, so callers test them with [errors.Is].
//
// # Faults
//
// [Cloud.Fail] makes the nth call of an operation fail, or every call; [Cloud.Before] runs a
// function just before the nth call, for example to cancel the caller's context in the middle of
// an ensure. [Cloud.Heal] removes every fault. Every call honours its context: a call whose
// context is done fails with the context's error and changes nothing.
//
// # Inspection
//
// [Cloud.State] returns a copy of everything that exists, and [Cloud.Calls] the calls made so far
// in order. Neither is a cloud call: faults do not apply to them and they are not logged.
//
// # Determinism
//
// No clock, no randomness, no goroutines. IPs are allocated lowest first from [Subnet], skipping
// those that are reserved or in use; State lists every kind of resource sorted by name. The same
// sequence of calls always gives the same results.
//
//	c := gcecloud.New()
//	c.Fail(gcecloud.FirewallsInsert, 1, nil) // the next firewall insert fails
//	err := ensure(ctx, c)
//	fmt.Println(err, c.State().Addresses) // what did the failed attempt leave behind?
package gcecloud
