// Command realkernel plays the scenario of ./examples/nodeport, kubernetes#98305, on a real
// Linux kernel: a UDP NodePort Service created without endpoints, one client sending to the
// NodePort and one to the ClusterIP from fixed source ports, then the endpoint. It runs the
// proxy in the shape of Kubernetes v1.20.4 and in the fixed shape built on package
// conntrackorder, each in three fresh network namespaces (client, node, pod; addresses in
// 198.18.0.0/15) with the library's real conntrack backend, and prints what each proxy
// programmed and flushed, whether each datagram was answered, and the node's conntrack table
// (`conntrack -L`, one entry a line) at each step, with the old shape's mistakes marked.
//
// It needs Linux, root (CAP_NET_ADMIN and CAP_SYS_ADMIN), and ip, iptables, ip6tables,
// iptables-restore and conntrack in PATH; without them it says what is missing and exits with status 2. It
// deletes every namespace it made before it exits, also after a failure or a SIGINT or SIGTERM
// (status 130). It exits with status 1 if the bug did not reproduce.
//
//	sudo go run ./examples/nodeport/realkernel [-backend auto|netlink|exec] [-after 5] [-udp-timeout 3s]
//
// The node namespace's nf_conntrack_udp_timeout is lowered to -udp-timeout (3s by default; the
// kernel's is 30s), so that the pause after which the stale entry expires takes seconds. The
// host's timeout is not touched. -udp-timeout 0 keeps 30s and skips the pause.
package main
