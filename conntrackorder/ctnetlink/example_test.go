//go:build linux

package ctnetlink_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/conntrackorder/ctnetlink"
)

// A Syncer with the netlink backend. The UDP service's plan would be flushed over netlink
// (that needs CAP_NET_ADMIN); an SCTP service's plan is refused before the table is touched,
// because netlink cannot see SCTP ports, and it stays pending for a backend that can.
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
	_ = tracker.SetEndpoints("default/diameter:3868", []netip.AddrPort{netip.MustParseAddrPort("10.180.0.7:3868")})

	err = syncer.Sync(context.Background())
	fmt.Println(errors.Is(err, ctnetlink.ErrSCTPPort))
	fmt.Println(len(tracker.Pending()), "filters still pending")
	// Output:
	// true
	// 2 filters still pending
}
