// Package ctnetlink deletes conntrack entries over netlink, in one pass over the table,
// instead of running conntrack(8) once per filter. Its [Flusher] implements both
// conntrackorder.Flusher and conntrackorder.Reconciler.
//
// The hazard it prevents is the cost of clearing stale UDP entries on a big node. One
// conntrack(8) process per filter dumps the whole table each time, so a plan of N filters over
// a table of M entries costs N dumps and N×M comparisons: for 300 NodePorts, hundreds of
// times as long as one Flush of this package (BenchmarkNodePorts).
// kube-proxy's first netlink reconciler repeated the product in memory: one filter per stale
// flow, each tested against every flow (kubernetes#135323), after reading the whole table into
// memory (12 GB, kubernetes#129982). A [Flusher] reads the table once per address family,
// message by message, and looks each entry up in sets built from the plan and the desired
// state, so a pass costs the table size plus the plan and desired sizes, and its memory does
// not grow with the table.
//
// Rules:
//
//   - Create the Flusher with [New] in the network namespace whose table it clears: its netlink
//     sockets stay bound to the namespace of the calling thread, whatever thread calls Flush
//     or Reconcile later.
//   - Call [Flusher.Close] when done; a closed Flusher refuses to flush rather than fall back to
//     another socket.
//   - Deleting entries needs CAP_NET_ADMIN; without it Flush and Reconcile return an error for
//     which errors.Is(err, fs.ErrPermission) holds.
//   - Flush refuses, like every backend, a filter that fails conntrackorder.Filter.Validate,
//     such as one that sets only the protocol and would delete every flow of it.
//
// Usage, with the Syncer of package conntrackorder, in reconcile mode:
//
//	f, err := ctnetlink.New()
//	if err != nil {
//		return err
//	}
//	defer f.Close()
//	s := conntrackorder.NewReconcileSyncer(tracker, programRules, f)
//
// or, to flush only the filters the Tracker collects, conntrackorder.NewSyncer(tracker,
// programRules, f).
//
// # SCTP
//
// SCTP filters are applied as UDP filters are, ports included: a NodePort, a service IP and
// port, the flows NATed to an endpoint that has gone. A Flusher reads the ports of every
// protocol that has them. github.com/vishvananda/netlink v1.3.1 parses ports for TCP and UDP
// only, so through its ConntrackDeleteFilters an SCTP filter with a port matches nothing, in
// silence, as kube-proxy's SCTP clearing did for years (kubernetes#115299). In reconcile mode
// the SCTP filters are applied in the same pass as the desired state, which judges only UDP
// flows.
//
// # Memory and time
//
// netlink v1.3.1's ConntrackDeleteFilters reads the whole dump into memory, and parses every
// entry into a ConntrackFlow, before it matches anything. A Flusher instead sends the dump
// request on a netlink socket of its own (golang.org/x/sys/unix), reads the answers into one
// reused 64 KiB buffer, and judges each message there with a parser that reads the two tuples
// without allocating; it queues the delete of a matching entry on a second socket, sends the
// queue many requests to a write, and keeps nothing. Peak memory is the buffers whatever the
// table size; time is linear in the number of entries, plus the plan and the desired state,
// plus one netlink round trip per batch of deletes. On a 100,000-entry table with 2,000 stale
// entries (BenchmarkReconcile100k, whose comment has the figures and the machine),
// ConntrackDeleteFilters with the same judgment took about 4.3 times as long as one
// Reconcile, allocated about 830 times as many bytes, and raised resident memory about 580
// times as much; a bare dump of the table, which judges and deletes nothing, took 0.87×.
//
// On a busy node's table of 220,000 entries (200,000 of them TCP, 200 UDP entries stale), a
// Reconcile told the node's families took 0.025-0.030× the time of kube-proxy's own cleanup,
// CleanStaleEntries of k8s.io/kubernetes/pkg/proxy/conntrack at v1.34 and v1.37, on an
// IPv4-only or IPv6-only node, with kube-proxy run for that family as a single-stack
// kube-proxy runs it, and 0.055× on a dual-stack node; at a million entries 0.031-0.040×
// single-stack and 0.051-0.056× dual-stack. Against a bare dump of the node's UDP entries
// from the same table, in the same process, it took 0.94-1.09× on every node shape and
// size, within the method's noise (a process's median moves by about a tenth): the kernel's
// walk of the whole table is most of both, and the Reconcile adds its judgment of each UDP
// entry, about 0.13 µs (one lookup of the verdict its pass remembers for the entry's
// destination and reply source), and its deletes. Not told, on a single-stack node it took
// 1.5-1.9× that dump: it also read the other family's empty table, which the kernel walks
// whole. It allocated 0.0001× kube-proxy's bytes, and its resident memory did not grow
// where kube-proxy's grew by 74-196 MB (430-959 MB at a million entries). The module
// internal/kubeproxybench holds that benchmark, its figures, the commands that take them,
// and the entries the two delete differently.
//
// # Kernel-side filtering
//
// On a node most conntrack entries are TCP, and a reconcile judges only UDP. When every
// filter of the plan and the desired state can match only one protocol, a Flusher asks the
// kernel to dump only that protocol's entries (CTA_FILTER on the original tuple, Linux 5.8
// and later), so that the others are never sent, parsed and dropped here. It does not
// filter on the reply tuple, which kernels before late 2021 filtered wrongly, nor on the
// status: the [UNREPLIED] NodePort entry of kubernetes#98305 was never DNATed, and only the
// per-entry judgment recognizes it.
//
// The filter only saves work: every entry the kernel sends is judged in full, protocol
// included. A kernel older than 5.8 ignores the attribute and sends the whole table, which
// then costs what it did before; one that refuses it is asked again without it, and never
// again by that Flusher. The kernel walks the whole table for each family's dump, whatever it
// sends: a dump is made only for a family the plan or the desired state needs, and a NodePort
// makes each of the node's families needed: both, unless the Tracker was told the node is
// single-stack (conntrackorder.Tracker.SetNodeFamilies, conntrackorder.Desired.NodeFamilies).
//
// The package works on Linux only; on other systems it is empty.
package ctnetlink
