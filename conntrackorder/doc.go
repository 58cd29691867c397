// Package conntrackorder clears stale conntrack entries of UDP and SCTP services in the one
// order that works: program the forwarding rules first, then flush.
//
// # The hazard
//
// The kernel NATs only the first packet of a flow through the rules; every later packet
// follows the flow's conntrack entry. A UDP datagram that reaches a service address before
// its DNAT rule exists creates an entry that is not NATed. Its client keeps sending from the
// same source port, the entry never expires, and the service stays dark for that client after
// the rule is in place. Flows NATed to a backend that has gone, or through an address the
// service no longer has, keep going where the rules no longer send them. kube-proxy cleared
// such entries before restoring its rules, whether or not a service had endpoints, and a
// NodePort blackholed (kubernetes#98305); the entry must be deleted after the rules exist,
// because one datagram between a flush and the rules re-creates it.
//
// # Rules for callers
//
//   - Report every service port and every change of its serving endpoints to one [Tracker]:
//     [Tracker.SetService], [Tracker.DeleteService] and [Tracker.SetEndpoints], in any order
//     (endpoints may arrive before their service).
//   - Pass only serving endpoints: those the rules send traffic to. A not-ready endpoint is not
//     an endpoint.
//   - Record each change in the state your program function reads before reporting it to the
//     Tracker, so that a flush never runs ahead of the rules for the change it clears.
//   - Install rules only through the program function of a [Syncer], and call [Syncer.Sync]
//     whenever the proxy syncs; Sync programs, then flushes what was collected before it
//     programmed.
//   - Retry a failed Sync. Nothing collected is lost until a flush succeeds.
//
// Usage:
//
//	tracker := conntrackorder.NewTracker()
//	syncer := conntrackorder.NewSyncer(tracker, restoreRules, ctexec.New())
//
//	// in the informer handlers, after updating the proxy's own state:
//	err := tracker.SetService(conntrackorder.ServicePort{Name: "ns/dns:dns", Protocol: conntrackorder.UDP, ...})
//	err = tracker.SetEndpoints("ns/dns:dns", servingEndpoints)
//
//	// in the sync loop:
//	if err := syncer.Sync(ctx); err != nil {
//		// retry later; the filters stay pending
//	}
//
// # What is collected
//
// Only [UDP] and [SCTP] service ports produce filters: a TCP client whose flow lost its backend
// gets a reset or a timeout and opens a new flow, which the rules NAT. The filters are:
//
//   - Serving endpoints from none to some: every service IP with the service port, then the
//     NodePort. For a dual-stack service, also when the first endpoints of one address family
//     arrive.
//   - A serving endpoint gone (removed, or not serving any more): every service IP with the
//     port, and the NodePort, each restricted to flows NATed to that endpoint. Also when it was
//     the last one.
//   - A service port deleted, or an address, port or NodePort it lost: every address and port
//     it no longer has.
//
// Filters are de-duplicated, and a flush applies them in the order of [Tracker.Pending].
//
// Nothing is collected for an address, port or NodePort that a service port with endpoints
// gains (a LoadBalancer IP assigned late, say): a datagram that reached it before its rule
// existed may have left an entry that is not NATed, and no event says which. Events cannot
// see such an entry, nor one left by an event the process missed; a [Syncer] made by
// [NewReconcileSyncer] reads the table and finds both.
//
// # Pending filters
//
// A pending filter leaves the Tracker only when a flush that contained it succeeded after
// programming. A later update never withdraws it: not when the service is deleted, not when
// the endpoint comes back, not when the endpoints go back to none. The Tracker cannot know
// whether the rules already installed reflect the state the filter was collected for, so the
// flow it targets may exist; flushing an unneeded filter after programming only deletes flows
// that their next packet re-creates through the current rules.
//
// A new Tracker knows no history, so the first Sync of a [Syncer] made by [NewSyncer] clears
// every UDP and SCTP service that has endpoints, like a kube-proxy restart (kubernetes#122740).
// That costs UDP clients one re-created flow and never leaves a stale one. In reconcile mode
// (below) the UDP services keep their healthy flows.
//
// # Reconciling against the table
//
// The filters come from events, and an event the Tracker never saw clears nothing: a datagram
// that arrived while the rules were rebuilt by someone else, a change made while the process
// was down. And a new process, seeing every service go from none to some, clears every UDP
// flow. A [Syncer] made by [NewReconcileSyncer] avoids both. After programming, it hands a
// [Reconciler] the desired state ([Tracker.Desired]: every UDP service port's service IPs
// and port, NodePort and serving endpoints) and the filters the desired state cannot see, and
// the Reconciler reads the table once per address family and deletes, in that one pass:
//
//   - every UDP flow to a service IP and port, or to a NodePort, whose reply source (address
//     and port) is not a current serving endpoint of that service port: flows NATed to an
//     endpoint that has gone or changed its port, the [UNREPLIED] flows that were not NATed
//     because they arrived before the rules (kubernetes#98305), any flow to a service port
//     without serving endpoints (see [Desired.Contradicts]);
//   - every flow the remaining filters select: addresses, ports and NodePorts that no current
//     service port has (a deleted service, a lost address, kubernetes#141371), and SCTP
//     service ports, which the desired state leaves to the filters.
//
// It never touches TCP flows, UDP flows NATed to a current serving endpoint of their service
// port, or UDP flows to destinations no service port has now or had since the last
// successful Sync. A NodePort is recognized by its port on any destination address, since
// the desired state does not know the node's addresses: a UDP flow the node forwards to
// another host's port of the same number is deleted too, as the filter for the NodePort would
// delete it, and in reconcile mode again on every Sync.
//
// What it cannot see: a service deleted, or an address or NodePort dropped, while no process
// ran. A new process has no filter for it and the desired state does not name it, so its flows
// stay until they expire or a service takes the destination again (kubernetes#141371 across a
// restart).
//
// One entry that cannot be read or deleted makes every Reconcile, and so every Sync, return an
// error, although everything else is still deleted each time: the plan stays pending, and the
// error says which entry. A cancelled Reconcile stops judging entries at once but still reads
// the rest of the table, since an abandoned netlink dump would refuse the next one.
//
// A restart now costs no healthy UDP flow: the new process's filters for its UDP services are
// covered by the desired state and never flushed, so flows NATed to serving endpoints
// survive, while the stale flows the old process left, or that arrived while no process ran,
// are deleted because they contradict the state, whatever the events. SCTP services are
// cleared by their filters, as in flush mode, so a restart still deletes every flow of an SCTP
// service that has endpoints; [Desired] says why.
//
// Use reconcile mode with a backend that reads the table,
// [github.com/safereconcile/safereconcile/conntrackorder/ctnetlink], and let it run on every
// Sync: each costs one read of the table, linear in its size plus the state's, in constant
// memory. Use [NewSyncer] with a backend that can only run filters, such as conntrack(8), or
// where reading the table on every Sync is too much; it reads nothing unless there is
// something to flush. In reconcile mode, report the whole state (every service port and its
// serving endpoints, once the informers have synced) before the first Sync: a UDP service
// port whose endpoints have not been reported has none as far as the reconcile knows, and its
// flows would be deleted.
//
//	f, err := ctnetlink.New()
//	if err != nil {
//		return err
//	}
//	defer f.Close()
//	syncer := conntrackorder.NewReconcileSyncer(tracker, restoreRules, f)
//
// # Backends
//
// [github.com/safereconcile/safereconcile/conntrackorder/ctexec] runs conntrack(8), one command
// per filter; it is a [Flusher]. [github.com/safereconcile/safereconcile/conntrackorder/ctnetlink]
// talks netlink and matches the whole plan, and the desired state, in one table read per
// address family; it is a [Flusher] and a [Reconciler]. Both match SCTP filters by port as
// they match UDP ones. Tests use
// [github.com/safereconcile/safereconcile/conntrackorder/conntrackordertest], which records
// plans and desired states.
package conntrackorder
