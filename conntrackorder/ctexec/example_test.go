package ctexec_test

import (
	"context"
	"fmt"
	"net/netip"
	"strings"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/conntrackorder/ctexec"
)

// The commands a plan from a Tracker turns into, for a UDP service whose first endpoint
// arrived.
func ExampleArgs() {
	plan := conntrackorder.Plan{
		{Protocol: conntrackorder.UDP, OrigDst: netip.MustParseAddr("172.30.0.41"), DstPort: 80},
		{Protocol: conntrackorder.UDP, OrigDst: netip.MustParseAddr("fd00:30::41"), DstPort: 80},
		{Protocol: conntrackorder.UDP, DstPort: 31201},
		{Protocol: conntrackorder.UDP, DstPort: 31201, ReplySrc: netip.MustParseAddr("10.180.0.1")},
	}
	for _, f := range plan {
		fmt.Println("conntrack", strings.Join(ctexec.Args(f), " "))
	}
	// Output:
	// conntrack -D -p udp --orig-dst 172.30.0.41 --dport 80
	// conntrack -D -p udp --orig-dst fd00:30::41 --dport 80 -f ipv6
	// conntrack -D -p udp --dport 31201
	// conntrack -D -p udp --dport 31201 --dst-nat 10.180.0.1
}

// A Flusher refuses a filter that would delete every flow of its protocol, and runs nothing
// for it.
func ExampleFlusher_Flush() {
	f := ctexec.New()
	err := f.Flush(context.Background(), conntrackorder.Plan{{Protocol: conntrackorder.UDP}})
	fmt.Println(err)
	// Output:
	// ctexec: not run: conntrackorder: filter udp: sets no address and no port, so it would delete every flow of its protocol
}
