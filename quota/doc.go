// Package quota keeps zero entries out of a resource usage delta before the delta is checked
// against a quota.
//
// # The hazard
//
// A zero entry and an absent entry are different inputs to a quota check. The first says "this
// request uses none of that resource, and here is the resource's name"; the second says nothing.
// A check that compares used+requested <= hard for every name in the delta that the quota
// limits treats the two differently as soon as a quota is already over its limit, which happens
// whenever an administrator lowers a quota below what is in use.
//
// Kubernetes v1.20.0 and v1.20.1 had exactly this bug (kubernetes#97437). Creating a ClusterIP
// Service produced the delta {services: 1, services.nodeports: 0}. Admission only short-circuited
// when the whole delta was zero, so it went on to compare used+0 <= hard for
// services.nodeports. In a namespace whose quota had been lowered to services.nodeports=0 while
// two NodePort Services existed, every ClusterIP Service was then rejected with
//
//	exceeded quota: <name>, requested: services.nodeports=0, used: services.nodeports=2, limited: services.nodeports=0
//
// for a Service that asks for no NodePort at all. The fix (kubernetes#97451) drops the zero
// entries from the delta first.
//
// # Rules
//
// Code that admits a request against a quota must:
//
//  1. Filter the delta with [NonZero] before it looks at any quota.
//  2. Return early, admitting the request, when the filtered delta is empty: the request
//     consumes nothing, so no quota can refuse it.
//  3. Compare only the filtered entries against the quota's hard limits.
//
// A delta that is all zero and a delta that is empty then take the same path, and a request is
// only ever refused for a resource it actually consumes.
//
//	delta = quota.NonZero(delta)
//	if len(delta) == 0 {
//		return nil // consumes nothing: admit
//	}
//	for name, requested := range delta {
//		// compare used[name]+requested with hard[name], when the quota limits name
//	}
//
// [NonZero] works on any map whose values have an IsZero method, with a value or a pointer
// receiver, so it takes a corev1.ResourceList directly without this module depending on
// Kubernetes.
package quota
