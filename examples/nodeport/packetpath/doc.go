// Package packetpath is a small, deterministic model of the part of a Linux node's packet path
// that decides where a UDP datagram sent to a Service goes: the conntrack table, the nat table's
// DNAT rules, and the pods behind them. It exists to replay kubernetes#98305, the UDP NodePort
// that stayed dark after its endpoint arrived, without root and without a clock.
//
// # What it models
//
//   - The conntrack table is keyed by the 5-tuple (protocol, source, destination). The first
//     datagram of a flow consults the rules installed at that moment and binds the flow's
//     NAT decision into its entry; every later datagram of the flow follows the entry and never
//     looks at the rules again. A datagram that arrives while no rule matches creates an entry
//     that is not NATed, printed by conntrack(8) as [UNREPLIED] with the node's own address as
//     the reply source.
//   - Entries are refreshed by every datagram of their flow, in either direction, and expire
//     on a fake clock that only [Node.Advance] moves. The timeouts are Linux's defaults:
//     [UnrepliedTimeout] (nf_conntrack_udp_timeout, 30 s) until a reply has been seen, and
//     [StreamTimeout] (nf_conntrack_udp_timeout_stream, 120 s) for a flow that has seen replies
//     and is still sending [StreamAfter] after it began; the entry is then [ASSURED].
//   - [Node.SetRules] replaces the whole rule set at once, as iptables-restore does.
//   - A pod added with [Node.AddPod] answers every datagram it receives, and its answer goes
//     back through the flow's entry, which undoes the DNAT for the client.
//   - [Flusher] deletes entries with the semantics of [conntrackorder.Filter], so that the
//     library's [conntrackorder.Syncer] runs unchanged against the model.
//
// # What it simplifies
//
//   - One node, one table, UDP only in practice (the protocol is carried but not interpreted);
//     no TCP state machine, no SNAT or masquerading, no REJECT rules, no ICMP errors, no
//     load balancing: a rule has exactly one backend.
//   - A datagram that matches no rule is accepted and answered by nobody: it goes to the node
//     itself (nothing listens there) or out of its default route. Either way it leaves an entry,
//     which is what the real kernel does once the entry is confirmed.
//   - No REJECT rule for a Service without endpoints. kube-proxy installs one, and a rejected
//     datagram is dropped before its entry is confirmed, so in a real cluster the stale entry
//     came from a datagram that slipped in between the early clear and the restore that
//     installed the rules: the flake of kubernetes#91236 (not measured here). The model keeps
//     that window open for as long as there are no endpoints, which makes the blackhole
//     deterministic; what it demonstrates, the order of clearing and programming, is the same.
//   - The reply to a datagram is instantaneous: a send and its answer happen at the same
//     instant of the fake clock.
//   - Entries expire exactly at their deadline; the kernel's garbage collector may remove them
//     a little later, which only lengthens a blackhole.
//
// A Node is not safe for concurrent use; the scenarios that drive it are sequential.
//
// Usage:
//
//	node := packetpath.NewNode()
//	node.AddPod(pod)
//	sent := node.Send(conntrackorder.UDP, client, nodePort) // no rule yet: an unNATed entry
//	node.SetRules(packetpath.Rule{Protocol: conntrackorder.UDP, Dst: nodePort, To: pod})
//	sent = node.Send(conntrackorder.UDP, client, nodePort) // follows the stale entry: no answer
//	err := packetpath.NewFlusher(node).Flush(ctx, conntrackorder.Plan{{Protocol: conntrackorder.UDP, DstPort: 30080}})
//	sent = node.Send(conntrackorder.UDP, client, nodePort) // a new entry, NATed: answered
package packetpath
