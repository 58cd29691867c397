package packetpath_test

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/examples/nodeport/packetpath"
)

// A datagram that arrives before the DNAT rule leaves an entry that is not NATed; the client's
// later datagrams follow it, not the rule, until the entry is deleted.
func Example() {
	client := netip.MustParseAddrPort("198.18.1.2:40000")
	nodePort := netip.MustParseAddrPort("198.18.1.1:30080")
	pod := netip.MustParseAddrPort("198.18.2.2:8080")

	node := packetpath.NewNode()
	node.AddPod(pod)
	node.Send(conntrackorder.UDP, client, nodePort)

	node.Advance(time.Second)
	node.SetRules(packetpath.Rule{Protocol: conntrackorder.UDP, Dst: nodePort, To: pod})
	fmt.Println("after the rule:", node.Send(conntrackorder.UDP, client, nodePort).Answered)
	fmt.Println(node.Conntrack()[0])

	plan := conntrackorder.Plan{{Protocol: conntrackorder.UDP, DstPort: nodePort.Port()}}
	if err := packetpath.NewFlusher(node).Flush(context.Background(), plan); err != nil {
		fmt.Println(err)
	}
	fmt.Println("after the flush:", node.Send(conntrackorder.UDP, client, nodePort).Answered)
	fmt.Println(node.Conntrack()[0])
	// Output:
	// after the rule: false
	// udp      17 30 src=198.18.1.2 dst=198.18.1.1 sport=40000 dport=30080 [UNREPLIED] src=198.18.1.1 dst=198.18.1.2 sport=30080 dport=40000
	// after the flush: true
	// udp      17 30 src=198.18.1.2 dst=198.18.1.1 sport=40000 dport=30080 src=198.18.2.2 dst=198.18.1.2 sport=8080 dport=40000
}
