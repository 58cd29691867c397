// Package kubeproxybench measures conntrackorder's netlink reconcile beside kube-proxy's own
// conntrack cleanup, CleanStaleEntries from k8s.io/kubernetes/pkg/proxy/conntrack with the
// netlink-backed Interface of conntrack.New(), on the same kernel table of a busy node.
//
// It is a module of its own, outside go.work and outside the test command, because it builds
// the real kube-proxy code: go.mod pins k8s.io/kubernetes v1.34.2, and go.v137.mod v1.37.2.
package kubeproxybench
