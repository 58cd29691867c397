// Package upstream checks the replicas of package ilb against the real code they replicate:
// ensureInternalLoadBalancer of k8s.io/legacy-cloud-providers v0.20.1 (Kubernetes v1.20.1, the
// leak of kubernetes#97740) and v0.20.2 (Kubernetes v1.20.2, the fix), run on MockGCE from
// github.com/GoogleCloudPlatform/k8s-cloud-provider, the fake the upstream regression test
// TestEnsureInternalLoadBalancerErrors used.
//
// [Conform] fails, on a fresh cloud each time, every call that the golden table of package ilb
// (examples/gceaddress/ilb/testdata/upstream.json) lists, runs the real EnsureLoadBalancer,
// then looks the address up by the load balancer's name, as the upstream test does, and
// requires the outcome the replica has in that row: whether the ensure returned an error and
// whether the reservation is still there.
//
// The cloud is built the supported way: [gce.NewFakeGCECloud] with
// [gce.DefaultTestClusterValues], then [gce.Cloud.Initialize] with a client of a Kubernetes API
// served on loopback by [net/http/httptest], which answers the few requests the code makes
// (the cluster ID's config map, the Service's finalizer patch, events). Nothing reaches into
// unexported fields.
//
// This module is not in the repository's go.work: it needs k8s.io/* v0.20 where the examples
// module is on v0.34, and a workspace has one build list. The modules v0201 and v0202 below
// it, one per upstream version, run [Conform]; build and test them with GOWORK=off. The test
// TestUpstreamConformance of package ilb runs them from the README's test command.
package upstream
