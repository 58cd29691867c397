package conntrackorder_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/conntrackorder/conntrackordertest"
)

// printFlusher prints the plans it is given instead of deleting entries.
type printFlusher struct{}

func (printFlusher) Flush(_ context.Context, plan conntrackorder.Plan) error {
	for _, f := range plan {
		fmt.Println("  flush", f)
	}
	return nil
}

// A UDP service with a NodePort gets its first endpoint, which later stops serving.
func ExampleTracker() {
	tracker := conntrackorder.NewTracker()
	// Endpoints may arrive before their service; they are kept.
	_ = tracker.SetEndpoints("ns/dns:dns", []netip.AddrPort{netip.MustParseAddrPort("10.180.0.7:53")})
	_ = tracker.SetService(conntrackorder.ServicePort{
		Name:            "ns/dns:dns",
		Protocol:        conntrackorder.UDP,
		Port:            53,
		ClusterIPs:      []netip.Addr{netip.MustParseAddr("172.30.0.10")},
		LoadBalancerIPs: []netip.Addr{netip.MustParseAddr("203.0.113.10")},
		NodePort:        30053,
	})
	fmt.Println("service arrived:")
	for _, f := range tracker.Pending() {
		fmt.Println(" ", f)
	}

	// 10.180.0.7 is not serving any more. Nothing was flushed yet, and a pending filter is
	// never withdrawn: the first three stay.
	_ = tracker.SetEndpoints("ns/dns:dns", nil)
	fmt.Println("endpoint gone:")
	for _, f := range tracker.Pending() {
		fmt.Println(" ", f)
	}
	// Output:
	// service arrived:
	//   udp orig-dst 172.30.0.10 dport 53
	//   udp orig-dst 203.0.113.10 dport 53
	//   udp dport 30053
	// endpoint gone:
	//   udp orig-dst 172.30.0.10 dport 53
	//   udp orig-dst 203.0.113.10 dport 53
	//   udp dport 30053
	//   udp orig-dst 172.30.0.10 dport 53 dst-nat 10.180.0.7
	//   udp orig-dst 203.0.113.10 dport 53 dst-nat 10.180.0.7
	//   udp dport 30053 dst-nat 10.180.0.7
}

// Sync programs the rules, then flushes what was collected. When programming fails, nothing
// is flushed and nothing is lost: the next Sync flushes it.
func ExampleSyncer() {
	tracker := conntrackorder.NewTracker()
	calls := 0
	program := func(ctx context.Context) error {
		calls++
		if calls == 2 {
			fmt.Println("  program: fails")
			return errors.New("iptables-restore: exit status 1")
		}
		fmt.Println("  program")
		return nil
	}
	syncer := conntrackorder.NewSyncer(tracker, program, printFlusher{})
	ctx := context.Background()

	_ = tracker.SetService(conntrackorder.ServicePort{
		Name:       "ns/dns:dns",
		Protocol:   conntrackorder.UDP,
		Port:       53,
		ClusterIPs: []netip.Addr{netip.MustParseAddr("172.30.0.10")},
		NodePort:   30053,
	})
	fmt.Println("no endpoints:")
	fmt.Println(" ", syncer.Sync(ctx))

	_ = tracker.SetEndpoints("ns/dns:dns", []netip.AddrPort{netip.MustParseAddrPort("10.180.0.7:53")})
	fmt.Println("first endpoint:")
	fmt.Println(" ", syncer.Sync(ctx))
	fmt.Println("retry:")
	fmt.Println(" ", syncer.Sync(ctx))
	// Output:
	// no endpoints:
	//   program
	//   <nil>
	// first endpoint:
	//   program: fails
	//   conntrackorder: program: iptables-restore: exit status 1
	// retry:
	//   program
	//   flush udp orig-dst 172.30.0.10 dport 53
	//   flush udp dport 30053
	//   <nil>
}

// A dual-stack service gets its IPv4 endpoint first and its IPv6 endpoint later: each family
// gets its own clear, since until then its rules had no backend.
func ExampleTracker_dualStack() {
	tracker := conntrackorder.NewTracker()
	syncer := conntrackorder.NewSyncer(tracker, func(context.Context) error { return nil }, printFlusher{})
	_ = tracker.SetService(conntrackorder.ServicePort{
		Name:       "ns/dns:dns",
		Protocol:   conntrackorder.UDP,
		Port:       53,
		ClusterIPs: []netip.Addr{netip.MustParseAddr("172.30.0.10"), netip.MustParseAddr("fd00:30::10")},
		NodePort:   30053,
	})
	v4 := netip.MustParseAddrPort("10.180.0.7:53")
	v6 := netip.MustParseAddrPort("[fd00:180::7]:53")

	_ = tracker.SetEndpoints("ns/dns:dns", []netip.AddrPort{v4})
	fmt.Println("IPv4 endpoint:")
	_ = syncer.Sync(context.Background())
	_ = tracker.SetEndpoints("ns/dns:dns", []netip.AddrPort{v4, v6})
	fmt.Println("IPv6 endpoint:")
	_ = syncer.Sync(context.Background())
	// Output:
	// IPv4 endpoint:
	//   flush udp orig-dst 172.30.0.10 dport 53
	//   flush udp orig-dst fd00:30::10 dport 53
	//   flush udp dport 30053
	// IPv6 endpoint:
	//   flush udp orig-dst fd00:30::10 dport 53
	//   flush udp dport 30053
}

// A fresh process reports the whole state, then syncs in reconcile mode: the service's
// filters from no endpoints to some are covered by the desired state and flush nothing, and
// only the flows that contradict the state are deleted. Later the service is deleted: the
// desired state no longer sees its address and NodePort, so their filters are handed over.
func ExampleNewReconcileSyncer() {
	tracker := conntrackorder.NewTracker()
	rec := conntrackordertest.New() // a ctnetlink.Flusher in a proxy
	syncer := conntrackorder.NewReconcileSyncer(tracker, func(context.Context) error { return nil }, rec)
	ctx := context.Background()

	_ = tracker.SetService(conntrackorder.ServicePort{
		Name:       "ns/dns:dns",
		Protocol:   conntrackorder.UDP,
		Port:       53,
		ClusterIPs: []netip.Addr{netip.MustParseAddr("172.30.0.10")},
		NodePort:   30053,
	})
	_ = tracker.SetEndpoints("ns/dns:dns", []netip.AddrPort{netip.MustParseAddrPort("10.180.0.7:53")})
	fmt.Println("pending:", tracker.Pending())
	fmt.Println(syncer.Sync(ctx))
	first := rec.Calls()[0]
	fmt.Println("flushed by filter:", first.Plan)
	for _, f := range []struct {
		what string
		flow conntrackorder.Flow
	}{
		{"to the ClusterIP, NATed to the endpoint", udp("172.30.0.10:53", "10.180.0.7:53")},
		{"to the NodePort, NATed to the endpoint", udp("198.18.0.1:30053", "10.180.0.7:53")},
		{"to the NodePort, [UNREPLIED] and not NATed", udp("198.18.0.1:30053", "198.18.0.1:30053")},
		{"to the ClusterIP, NATed to a gone endpoint", udp("172.30.0.10:53", "10.180.0.9:53")},
		{"to a DNS server outside", udp("8.8.8.8:53", "8.8.8.8:53")},
	} {
		fmt.Printf("  %s: deleted %v\n", f.what, first.Desired.Contradicts(f.flow))
	}

	tracker.DeleteService("ns/dns:dns")
	fmt.Println(syncer.Sync(ctx))
	fmt.Println("flushed by filter:", rec.Calls()[1].Plan)
	// Output:
	// pending: [udp orig-dst 172.30.0.10 dport 53 udp dport 30053]
	// <nil>
	// flushed by filter: []
	//   to the ClusterIP, NATed to the endpoint: deleted false
	//   to the NodePort, NATed to the endpoint: deleted false
	//   to the NodePort, [UNREPLIED] and not NATed: deleted true
	//   to the ClusterIP, NATed to a gone endpoint: deleted true
	//   to a DNS server outside: deleted false
	// <nil>
	// flushed by filter: [udp orig-dst 172.30.0.10 dport 53 udp dport 30053]
}

// An IPv4-only node, as a single-stack kube-proxy runs on, tells its Tracker so: a NodePort is
// then open on IPv4 addresses only, and a reconcile reads only the IPv4 table.
func ExampleTracker_SetNodeFamilies() {
	tracker := conntrackorder.NewTracker()
	_ = tracker.SetService(conntrackorder.ServicePort{
		Name:       "ns/dns:dns",
		Protocol:   conntrackorder.UDP,
		Port:       53,
		ClusterIPs: []netip.Addr{netip.MustParseAddr("172.30.0.10")},
		NodePort:   30053,
	})
	_ = tracker.SetEndpoints("ns/dns:dns", []netip.AddrPort{netip.MustParseAddrPort("10.180.0.7:53")})
	v4, v6 := tracker.Desired().Families()
	fmt.Println("told nothing, tables to read: ipv4", v4, "ipv6", v6)

	if err := tracker.SetNodeFamilies(true, false); err != nil {
		fmt.Println(err)
	}
	desired := tracker.Desired()
	v4, v6 = desired.Families()
	fmt.Println("ipv4-only node, tables to read: ipv4", v4, "ipv6", v6)
	fmt.Println("stale IPv6 flow to the NodePort deleted:",
		desired.Contradicts(udp("[2001:db8::1]:30053", "[fd00:180::9]:53")))
	fmt.Println(tracker.SetNodeFamilies(false, false))
	// Output:
	// told nothing, tables to read: ipv4 true ipv6 true
	// ipv4-only node, tables to read: ipv4 true ipv6 false
	// stale IPv6 flow to the NodePort deleted: false
	// conntrackorder: node families: a node has IPv4, IPv6 or both
}

// udp describes a UDP flow to dst whose replies come from replySrc.
func udp(dst, replySrc string) conntrackorder.Flow {
	return conntrackorder.Flow{
		Protocol: conntrackorder.UDP,
		OrigDst:  netip.MustParseAddrPort(dst),
		ReplySrc: netip.MustParseAddrPort(replySrc),
	}
}
