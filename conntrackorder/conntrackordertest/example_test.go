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

// In reconcile mode the recorded calls hold the desired state, which tells what a real
// backend would have deleted besides the plan.
func ExampleFlusher_Reconcile() {
	tracker := conntrackorder.NewTracker()
	rec := conntrackordertest.New()
	syncer := conntrackorder.NewReconcileSyncer(tracker, func(context.Context) error { return nil }, rec)
	_ = tracker.SetService(conntrackorder.ServicePort{
		Name:       "ns/dns:dns",
		Protocol:   conntrackorder.UDP,
		Port:       53,
		ClusterIPs: []netip.Addr{netip.MustParseAddr("172.30.0.10")},
	})
	_ = tracker.SetEndpoints("ns/dns:dns", []netip.AddrPort{netip.MustParseAddrPort("10.180.0.7:53")})

	fmt.Println(syncer.Sync(context.Background()))
	call := rec.Calls()[0]
	fmt.Println("plan:", call.Plan)
	toService := netip.MustParseAddrPort("172.30.0.10:53")
	for _, replySrc := range []string{"10.180.0.7:53", "10.180.0.8:53", "172.30.0.10:53"} {
		flow := conntrackorder.Flow{Protocol: conntrackorder.UDP, OrigDst: toService, ReplySrc: netip.MustParseAddrPort(replySrc)}
		fmt.Println("reply from", replySrc, "deleted:", call.Desired.Contradicts(flow))
	}
	// Output:
	// <nil>
	// plan: []
	// reply from 10.180.0.7:53 deleted: false
	// reply from 10.180.0.8:53 deleted: true
	// reply from 172.30.0.10:53 deleted: true
}
