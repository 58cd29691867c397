// Package proxy reproduces kubernetes#98305, the UDP NodePort that stayed dark after its
// endpoint arrived, with a miniature kube-proxy in two shapes, and fixes it with package
// conntrackorder.
//
// A datagram that reaches a node before the DNAT rule for its destination exists creates a
// conntrack entry that is not NATed. The kernel consults the rules only for the first datagram
// of a flow, so once the rule is installed a client that keeps sending from the same source
// port keeps following that entry, which is refreshed by every datagram and never expires: the
// NodePort stays dark for that client. Deleting the entry after the rule exists is the cure;
// deleting it before is useless, because the next datagram re-creates it.
//
// [V1204] is the shape of Kubernetes v1.20.4: it deletes the NodePort's UDP entries
// (`conntrack -D -p udp --dport <nodePort>`) once, when it opens the NodePort, before it
// programs any rule and whether or not the Service has endpoints. It clears the ClusterIP
// (`--orig-dst`) the right way, after programming, when the Service's endpoints go from none to
// some, which is why the ClusterIP worked while the NodePort did not. Do not copy it.
//
// [Fixed] is the fixed shape: it reports every Service and EndpointSlice to a
// [conntrackorder.Tracker] and syncs through a [conntrackorder.Syncer], which programs the rules
// and only then flushes the filters collected for the endpoints' arrival, the NodePort's
// included (kubernetes#98305, 1.20: #99017).
//
// Both shapes program and flush through a [Datapath]: the model of package
// [github.com/safereconcile/safereconcile/examples/nodeport/packetpath] for [Scenario], or a
// real kernel in network namespaces for the realkernel command. [Play] drives either through
// the same timeline: a UDP NodePort Service created without endpoints, two clients sending
// from fixed source ports, one to the NodePort and one to the ClusterIP, then the endpoint.
// The two shapes meet the same events and datagrams, so their timelines differ only where
// they flush and in what that changes; the timeline marks, from the rules programmed so far,
// a flush that comes before any rule for it and an entry left stale. [Intro] says how to read
// it.
//
// The proxies are deliberately small: one node address, the rules of one DNAT per ClusterIP and
// NodePort to the first ready endpoint, one EndpointSlice per Service, no Service deletion, and
// none of kube-proxy's other conntrack clears (removed endpoints, changed addresses).
package proxy
