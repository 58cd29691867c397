// Package kubeproxybench measures conntrackorder's netlink reconcile beside kube-proxy's own
// conntrack cleanup, CleanStaleEntries from k8s.io/kubernetes/pkg/proxy/conntrack with the
// netlink-backed Interface of conntrack.New(), on the same kernel table of a busy node.
//
// It is a module of its own, outside go.work and outside the test command, because it builds
// the real kube-proxy code: go.mod pins k8s.io/kubernetes v1.34.2, and go.v137.mod v1.37.2
// (go test -modfile=go.v137.mod). kube-proxy's maps come from real corev1.Services and
// discoveryv1.EndpointSlices through kube-proxy's own change trackers, the way its proxier
// builds them; this module's plan and desired state come from a conntrackorder.Tracker that
// saw the same objects before and after the changes. Both run in one network namespace, on a
// table netnstest.NewNodeTable builds: established TCP and UDP entries to service IPs and
// NodePorts of 500 service ports, 1% of the UDP entries stale, on an IPv4-only, an IPv6-only
// and a dual-stack node. On a single-stack node kube-proxy runs one proxier, and cleans that
// family's table only; the Tracker is told the node's families
// (conntrackorder.Tracker.SetNodeFamilies), and the bare dumps read that family's table.
//
// # Where the two delete different entries
//
// TestSameDeletions runs each side on a fresh table and compares what is left, entry by
// entry, with what each side's semantics say. Both delete the UDP entries NATed to an endpoint
// that was removed or no longer serves, and the entry a datagram left before the rule existed
// (kubernetes#98305). This module's reconcile also deletes, and is right to:
//
//   - the entries of a service with no serving endpoint left. v1.34 skips such a service, so
//     a flow DNATed to its last endpoint keeps going there while the client sends, since the
//     REJECT rule matches the service IP, not a DNATed flow (kubernetes#139629); v1.37 deletes
//     the service-IP entries too, and skips its NodePort.
//   - the entries of a deleted service, to its service IPs and its NodePort: kube-proxy's
//     reconcile knows only the services that exist, and nothing else clears them
//     (kubernetes#141371). The Tracker collected filters for them when the deletion arrived.
//   - the entries to a NodePort the service no longer has, for the same reason.
//
// Two differences the table does not contain: kube-proxy judges a UDP flow by its service IP
// and port and, separately, by a NodePort of the same number, so it deletes a healthy flow to
// a service port that is another service's NodePort; conntrackorder.Desired judges such a flow
// by its service port alone. And v1.37 leaves the entries to a NodePort of a service without
// serving endpoints, which conntrackorder.Desired contradicts.
//
// # Measured
//
// BenchmarkNodeTable's doc has the commands; the figures and the machine are in its comment.
package kubeproxybench
