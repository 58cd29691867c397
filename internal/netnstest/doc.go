// Package netnstest builds throwaway Linux network namespaces for tests that need a real
// kernel: conntrack, iptables NAT and UDP traffic between a client, a node and a pod.
//
// The hazard it prevents is a kernel test that touches the machine it runs on, collides with
// a parallel run, leaves namespaces or rules behind, or passes for the wrong reason. Rules:
//
//   - Call [Require] first: it skips the test with a sentence that says what is missing (root or
//     CAP_NET_ADMIN and CAP_SYS_ADMIN, ip, iptables, ip6tables, conntrack). A program calls
//     [Check], which returns that sentence as an error wrapping [ErrUnsupported].
//   - Every [Namespace] gets a name unique to the process (pid, counter, random part), so
//     parallel tests and test binaries never collide. Deleting a namespace also removes its
//     interfaces, iptables rules and conntrack entries.
//   - Each constructor comes twice: for tests, one that takes a testing.TB, registers the
//     cleanup and fails or skips the test ([New], [NewTopology], [Namespace.StartUDPEcho],
//     [Namespace.ListenUDP], [Namespace.Table]); for programs, one that returns an error and
//     leaves the cleanup to the caller ([Create], [BuildTopology], [Namespace.ListenUDPEcho],
//     [Namespace.OpenUDPClient], [Namespace.OpenTable]). The test forms register the
//     namespace's deletion first, so it runs after the sockets and handles made in it are
//     closed, also when the test fails.
//   - Only addresses in 198.18.0.0/15 and 2001:db8::/32, and only inside namespaces made here,
//     are ever configured.
//   - [NewTopology] enables conntrack in the node namespace with a rule that needs it: the
//     kernel tracks nothing in a namespace until some rule does, and a stale-entry test would
//     then pass without any entry to be stale.
//   - [Namespace.Do] runs a function with its OS thread in the namespace. Sockets (UDP,
//     netlink) and processes created inside stay in that namespace after Do returns; goroutines
//     started inside do not run in it.
//
// Usage:
//
//	netnstest.Require(t)
//	topo := netnstest.NewTopology(t)
//	topo.Pod.StartUDPEcho(t, netip.AddrPortFrom(topo.IPv4.Pod, 8080))
//	client := topo.Client.ListenUDP(t, netip.AddrPortFrom(topo.IPv4.Client, 40000))
//	replied, err := client.Exchange(netip.AddrPortFrom(topo.IPv4.Node, 30080), time.Second)
//
// The package works on Linux only; on other systems it is empty.
package netnstest
