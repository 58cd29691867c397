package conntrackordertest_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/conntrackorder/conntrackordertest"
)

// A flush that fails leaves the plan pending; the next Sync flushes it.
func ExampleFlusher() {
	tracker := conntrackorder.NewTracker()
	rec := conntrackordertest.New()
	syncer := conntrackorder.NewSyncer(tracker, func(context.Context) error { return nil }, rec)

	_ = tracker.SetService(conntrackorder.ServicePort{
		Name:       "ns/dns:dns",
		Protocol:   conntrackorder.UDP,
		Port:       53,
		ClusterIPs: []netip.Addr{netip.MustParseAddr("172.30.0.10")},
	})
	_ = tracker.SetEndpoints("ns/dns:dns", []netip.AddrPort{netip.MustParseAddrPort("10.180.0.7:53")})

	rec.FailNext(1, errors.New("conntrack: operation not permitted"))
	fmt.Println(syncer.Sync(context.Background()))
	fmt.Println(syncer.Sync(context.Background()))
	for _, c := range rec.Calls() {
		fmt.Println(c.Plan, c.Err)
	}
	// Output:
	// conntrackorder: flush: conntrack: operation not permitted
	// <nil>
	// [udp orig-dst 172.30.0.10 dport 53] conntrack: operation not permitted
	// [udp orig-dst 172.30.0.10 dport 53] <nil>
}
