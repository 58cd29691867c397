// Package kernelpath runs the scenario of package
// [github.com/safereconcile/safereconcile/examples/nodeport/proxy] on a real Linux kernel: a
// [Lab] is three network namespaces, client — node — pod, built by the module's
// internal/netnstest harness, in which the node's iptables nat rules, conntrack table and the
// library's real conntrack backends take the place of the model.
//
// The hazard it guards against is a reproduction that touches the machine it runs on, leaves
// namespaces behind, or passes for the wrong reason. Rules:
//
//   - Call [Check] first: it says what is missing (root, ip, iptables, ip6tables,
//     iptables-restore, conntrack), and a test skips with its sentence.
//   - Every namespace gets a name unique to the process, and [Lab.Close] closes the Lab's
//     sockets and deletes all of its namespaces, which also removes their interfaces, rules and
//     conntrack entries. [New] deletes what it made when it fails; the caller closes the Lab on
//     every other path, also when its context was cancelled (a signal).
//   - Only addresses in 198.18.0.0/15, and only inside the Lab's own namespaces, are ever
//     configured.
//   - The node tracks connections from the first packet: it gets a FORWARD rule that needs
//     conntrack, since the kernel tracks nothing in a namespace until some rule does, and a
//     stale-entry reproduction would then pass without any entry to be stale.
//
// A Lab is a [proxy.Datapath]. Its clock is the real one: [Lab.Wait] sleeps. To show a stale
// entry expiring within seconds, [Options.UDPTimeout] shortens the node namespace's
// nf_conntrack_udp_timeout; the host's is not touched.
//
// Usage:
//
//	if err := kernelpath.Check(); err != nil {
//		return err // says what is missing
//	}
//	lab, err := kernelpath.New(ctx, kernelpath.Options{Backend: kernelpath.Netlink})
//	if err != nil {
//		return err
//	}
//	defer lab.Close()
//	res, err := proxy.Play(ctx, os.Stdout, lab, proxy.FixedShape, opts)
//
// The package works on Linux only; on other systems it is empty.
package kernelpath
