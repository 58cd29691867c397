// Package conntrackorder clears stale conntrack entries of UDP and SCTP services in the one
// order that works: program the forwarding rules first, then flush.
//
// The kernel NATs only the first packet of a flow; later packets follow its conntrack entry.
// A datagram that reaches a service before its DNAT rule exists leaves an entry that is not
// NATed, and a client that keeps sending from the same port stays dark after the rule is in
// place (kubernetes#98305); flows NATed to an endpoint that has gone keep going there. Delete
// such entries after the rules exist: one datagram in between re-creates them.
//
// # Flush mode
//
// A [Tracker] turns service and endpoint events into filters; a [Syncer] programs the rules,
// then hands the filters to a [Flusher]:
//
//	tracker := conntrackorder.NewTracker()
//	syncer := conntrackorder.NewSyncer(tracker, restoreRules, ctexec.New())
//
//	// in the informer handlers, after updating the state restoreRules reads:
//	err := tracker.SetService(conntrackorder.ServicePort{Name: "ns/dns:dns", Protocol: conntrackorder.UDP, ...})
//	err = tracker.SetEndpoints("ns/dns:dns", servingEndpoints)
//
//	// in the sync loop:
//	if err := syncer.Sync(ctx); err != nil {
//		// retry later; the filters stay pending
//	}
//
// # Reconcile mode
//
// A Syncer made by [NewReconcileSyncer] also reads the table and deletes every UDP flow that
// contradicts the Tracker's state:
//
//	f, err := ctnetlink.New()
//	if err != nil {
//		return err
//	}
//	defer f.Close()
//	syncer := conntrackorder.NewReconcileSyncer(tracker, restoreRules, f)
//
// # Rules for callers
//
//   - Report every service port and its serving endpoints (not the not-ready ones) to one
//     Tracker, in any order.
//   - Record each change in the state the program function reads before reporting it, so
//     that a flush never runs ahead of the rules for the change it clears.
//   - Install rules only through the program function; retry a failed Sync. Nothing
//     collected is lost until a flush succeeds.
//   - In reconcile mode, report the whole state before the first Sync: a UDP service port
//     whose endpoints were not reported has none, and its flows would be deleted.
//
// # Flush mode's filters
//
// [UDP] and [SCTP] service ports collect filters when their endpoints go from none to some,
// when an endpoint goes, and when they are deleted or lose an address, port or NodePort
// ([Tracker.Pending]); TCP clients open new flows themselves. A filter stays pending until a
// flush that contained it succeeded. An unneeded filter only deletes flows that their next
// datagram re-creates through the current rules; so does a lost NodePort's filter for another
// service's port of that number. Events miss what the process did not see, and a new Tracker
// knows no history: its first Sync clears every service with endpoints (kubernetes#122740).
//
// # What reconcile mode deletes
//
// After programming, a [Reconciler] gets the desired state ([Tracker.Desired]) and the
// filters it does not cover, and in one pass deletes every UDP flow to a service IP and port,
// or a NodePort, whose reply source is not a serving endpoint of it ([Desired.Contradicts]),
// and every flow the remaining filters select (deleted services, lost addresses, SCTP). It
// never deletes TCP flows, or a UDP flow to a service IP and port NATed to one of its serving
// endpoints, even when a filter selects it ([Desired.Keeps]): a restart keeps healthy UDP
// flows.
//
// A NodePort is recognized by port on any address of the node's families, so a UDP flow the
// node forwards to another host's port of that number is deleted too. A Tracker takes the node
// to be dual-stack until [Tracker.SetNodeFamilies] says otherwise: on a single-stack node,
// tell it, and a reconcile reads only that family's table (the kernel walks the whole table for
// each family it is asked to dump). A service deleted while no process ran is named by
// nothing; its flows expire. Each Sync reads the table once, and after any change builds the
// desired state again: with 10,000 services an endpoint change and a Sync take 231 times the
// instructions they take with 100, against 1.14 times in flush mode. Where that costs too
// much, or the backend only runs filters, use flush mode.
//
// # Backends
//
// [github.com/safereconcile/safereconcile/conntrackorder/ctexec] runs conntrack(8) once per
// filter. [github.com/safereconcile/safereconcile/conntrackorder/ctnetlink] matches the plan
// and the desired state in one read per address family, and is also a Reconciler.
// [github.com/safereconcile/safereconcile/conntrackorder/conntrackordertest] is for tests.
package conntrackorder
