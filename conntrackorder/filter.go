package conntrackorder

import (
	"context"
	"fmt"
	"net/netip"
)

// Protocol is the transport protocol of a service port. The zero value is not a valid
// protocol.
type Protocol uint8

// The protocols a [ServicePort] may have. Only [UDP] and [SCTP] leave conntrack entries that
// must be cleared; [TCP] service ports never produce filters.
const (
	TCP Protocol = iota + 1
	UDP
	SCTP
)

// String returns the protocol's lowercase name as conntrack(8) spells it: "tcp", "udp" or
// "sctp". An unknown value gives "protocol(N)".
func (p Protocol) String() string {
	switch p {
	case TCP:
		return "tcp"
	case UDP:
		return "udp"
	case SCTP:
		return "sctp"
	}
	return fmt.Sprintf("protocol(%d)", uint8(p))
}

// A ServicePort is one port of one Service as the proxy programs it: the addresses traffic
// arrives on and the port it arrives at.
type ServicePort struct {
	Name            string // unique key, e.g. "ns/name:port"
	Protocol        Protocol
	Port            uint16 // the service port
	ClusterIPs      []netip.Addr
	ExternalIPs     []netip.Addr
	LoadBalancerIPs []netip.Addr
	NodePort        uint16 // 0 when the service has none
}

// Filter selects conntrack entries. A zero field matches anything.
type Filter struct {
	Protocol Protocol
	OrigDst  netip.Addr // original destination address
	DstPort  uint16     // original destination port
	ReplySrc netip.Addr // reply source address: the backend the flow was NATed to
}

// Plan is the ordered list of filters one flush deletes.
type Plan []Filter

// A Flusher deletes the conntrack entries that match any filter of a plan.
//
// Flush must either apply the whole plan or return an error; a plan that was only partly
// applied is retried whole by [Syncer.Sync], so deleting an entry twice must be harmless
// (it is: a second delete matches nothing).
type Flusher interface {
	Flush(ctx context.Context, plan Plan) error
}
