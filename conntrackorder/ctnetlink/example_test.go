//go:build linux

package ctnetlink_test

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/conntrackorder/ctnetlink"
)

// A Syncer with the netlink backend, for an SCTP service and a UDP service. While neither has
// serving endpoints, Sync programs the rules and flushes nothing. Once both have, the next
// Sync programs the rules and then deletes the entries these filters select, SCTP and UDP
// alike, ports included, in one read of each address family's table. That Sync needs
// CAP_NET_ADMIN and would act on this machine's table, so the example stops before it.
func Example() {
	f, err := ctnetlink.New()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()

	tracker := conntrackorder.NewTracker()
	program := func(ctx context.Context) error { return nil } // install the NAT rules here
	syncer := conntrackorder.NewSyncer(tracker, program, f)

	_ = tracker.SetService(conntrackorder.ServicePort{
		Name:       "default/diameter:3868",
		Protocol:   conntrackorder.SCTP,
		Port:       3868,
		ClusterIPs: []netip.Addr{netip.MustParseAddr("172.30.0.42")},
		NodePort:   31868,
	})
	_ = tracker.SetService(conntrackorder.ServicePort{
		Name:       "kube-system/dns:53",
		Protocol:   conntrackorder.UDP,
		Port:       53,
		ClusterIPs: []netip.Addr{netip.MustParseAddr("172.30.0.10")},
	})
	fmt.Println(syncer.Sync(context.Background()))

	_ = tracker.SetEndpoints("default/diameter:3868", []netip.AddrPort{netip.MustParseAddrPort("10.180.0.7:3868")})
	_ = tracker.SetEndpoints("kube-system/dns:53", []netip.AddrPort{netip.MustParseAddrPort("10.180.0.8:53")})
	for _, filter := range tracker.Pending() {
		fmt.Println(filter)
	}
	// Output:
	// <nil>
	// sctp orig-dst 172.30.0.42 dport 3868
	// udp orig-dst 172.30.0.10 dport 53
	// sctp dport 31868
}
