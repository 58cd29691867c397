// Package ctnetlink is a conntrackorder.Flusher that deletes conntrack entries over netlink, in
// one pass over the table, instead of running conntrack(8) once per filter.
//
// The hazard it prevents is the cost of clearing stale UDP entries on a big node. One
// conntrack(8) process per filter dumps the whole table each time, so a plan of N filters over
// a table of M entries costs N dumps and N×M comparisons (about 7 s for 1,000 NodePorts).
// kube-proxy's first netlink reconciler repeated the product in memory: one filter per stale
// flow, each tested against every flow (kubernetes#129982, #135323). A [Flusher] dumps the
// table once per address family and looks each entry up in sets built from the plan, so a
// flush costs the table size plus the plan size.
//
// Rules:
//
//   - Create the Flusher with [New] in the network namespace whose table it clears: its netlink
//     socket stays bound to the namespace of the calling thread, whatever thread calls Flush
//     later.
//   - Call [Flusher.Close] when done; a closed Flusher refuses to flush rather than fall back to
//     another socket.
//   - Deleting entries needs CAP_NET_ADMIN; without it Flush returns an error for which
//     errors.Is(err, fs.ErrPermission) holds.
//   - The netlink library cannot see SCTP ports (github.com/vishvananda/netlink v1.3.1 parses
//     ports for TCP and UDP only). Flush refuses a plan with an SCTP filter that sets a port
//     ([ErrSCTPPort]) before it touches the table, rather than delete nothing in silence, as
//     kube-proxy did for years (kubernetes#115299). Use the conntrack(8) backend,
//     [github.com/safereconcile/safereconcile/conntrackorder/ctexec], for SCTP services.
//   - Flush refuses, like every backend, a filter that fails conntrackorder.Filter.Validate,
//     such as one that sets only the protocol and would delete every flow of it.
//
// Usage, with the Syncer of package conntrackorder:
//
//	f, err := ctnetlink.New()
//	if err != nil {
//		return err
//	}
//	defer f.Close()
//	s := conntrackorder.NewSyncer(tracker, programRules, f)
//
// The package works on Linux only; on other systems it is empty.
package ctnetlink
