// Package admission reproduces kubernetes#97437, the ClusterIP Service that a ResourceQuota
// refused for NodePorts it does not ask for, with the real corev1.ResourceList and
// resource.Quantity types.
//
// The hazard is a zero entry in a usage delta. Creating a ClusterIP Service uses
// {services: 1, services.loadbalancers: 0, services.nodeports: 0}. Kubernetes v1.20.1 skipped
// the quota check only when every entry was zero, so it compared used+0 <= hard for
// services.nodeports, and a quota lowered below what was in use (hard 0, used 2) refused the
// Service. The rules that follow, and that [CheckFixed] keeps:
//
//  1. Filter the delta with quota.NonZero before looking at any quota.
//  2. Admit at once when nothing is left: the request consumes nothing.
//  3. Compare only what is left with the limits of each quota.
//
// [ServiceUsage] computes a Service's delta the way the v1.20 service evaluator did,
// [CheckOld] is the admission check in the v1.20.1 shape, [CheckFixed] the same check in the
// shape of the fix (kubernetes#97451), and [Scenario] plays the bug against both for
// go run ./examples and go run ./examples/servicequota.
package admission
