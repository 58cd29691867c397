package conntrackorder

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
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
//
// A zero OrigDst and ReplySrc match entries of either address family: the NodePort filter
// {Protocol: UDP, DstPort: 31201} selects IPv4 and IPv6 flows alike, and a backend must delete
// both. A filter whose addresses are set selects only their family. [Filter.Validate] refuses a
// filter that would delete too much or cannot be expressed; the [Tracker] never produces one.
//
// ReplySrc selects only flows that were DNATed, to that backend: a flow a client sent to the
// backend's address directly is not selected, although its reply comes from that address.
// ctnetlink matches it so for every entry; ctexec, through conntrack(8) --dst-nat, has two
// limits of conntrack-tools 1.4.7 that its package doc describes (IPv6 backends, and a
// backend on the node's own address).
type Filter struct {
	Protocol Protocol
	OrigDst  netip.Addr // original destination address
	DstPort  uint16     // original destination port
	ReplySrc netip.Addr // reply source address: the backend the flow was NATed to
}

// String returns the filter in conntrack(8)'s words, for messages: for example
// "udp orig-dst 172.30.0.41 dport 80" or "udp dport 31201 dst-nat 10.180.0.1".
func (f Filter) String() string {
	var b strings.Builder
	b.WriteString(f.Protocol.String())
	if f.OrigDst.IsValid() {
		b.WriteString(" orig-dst ")
		b.WriteString(f.OrigDst.String())
	}
	if f.DstPort != 0 {
		b.WriteString(" dport ")
		b.WriteString(strconv.Itoa(int(f.DstPort)))
	}
	if f.ReplySrc.IsValid() {
		b.WriteString(" dst-nat ")
		b.WriteString(f.ReplySrc.String())
	}
	return b.String()
}

// Equal reports whether f and g are the same filter, f == g. It lets
// [github.com/google/go-cmp/cmp] compare filters and plans without options, although
// [netip.Addr] has unexported fields.
func (f Filter) Equal(g Filter) bool {
	return f == g
}

// Is6 reports whether the filter's addresses are IPv6. A filter without addresses is not
// IPv6: it matches both families (see [Filter]).
func (f Filter) Is6() bool {
	return f.OrigDst.Is6() || f.ReplySrc.Is6()
}

// Validate returns an error when a backend must not apply f, and nil otherwise. It refuses a
// filter
//   - whose protocol is not [TCP], [UDP] or [SCTP];
//   - that sets none of OrigDst, DstPort and ReplySrc: it would delete every flow of its
//     protocol, live ones included;
//   - with an address that is unspecified (0.0.0.0, ::), has a zone, or is an IPv4-mapped IPv6
//     address: conntrack stores IPv4 flows as IPv4, so such a filter could never match;
//   - whose OrigDst and ReplySrc are of different address families.
func (f Filter) Validate() error {
	switch f.Protocol {
	case TCP, UDP, SCTP:
	default:
		return fmt.Errorf("conntrackorder: filter %v: unknown protocol", f)
	}
	if !f.OrigDst.IsValid() && f.DstPort == 0 && !f.ReplySrc.IsValid() {
		return fmt.Errorf("conntrackorder: filter %v: %w", f, errMatchesAll)
	}
	for _, a := range [...]netip.Addr{f.OrigDst, f.ReplySrc} {
		if a.IsValid() {
			if err := checkAddr(a); err != nil {
				return fmt.Errorf("conntrackorder: filter %v: %w", f, err)
			}
		}
	}
	if f.OrigDst.IsValid() && f.ReplySrc.IsValid() && f.OrigDst.Is4() != f.ReplySrc.Is4() {
		return fmt.Errorf("conntrackorder: filter %v: addresses of different families", f)
	}
	return nil
}

var errMatchesAll = errors.New("sets no address and no port, so it would delete every flow of its protocol")

// checkAddr returns an error for an address no conntrack entry can carry. It expects a valid
// address.
func checkAddr(a netip.Addr) error {
	switch {
	case a.IsUnspecified():
		return fmt.Errorf("address %v is unspecified", a)
	case a.Zone() != "":
		return fmt.Errorf("address %v has a zone", a)
	case a.Is4In6():
		return fmt.Errorf("address %v is IPv4-mapped; pass it as IPv4", a)
	}
	return nil
}

// Plan is the ordered list of filters one flush deletes.
type Plan []Filter
