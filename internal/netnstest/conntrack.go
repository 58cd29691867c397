//go:build linux

package netnstest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"testing"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netlink/nl"
	"golang.org/x/sys/unix"
)

// Conntrack returns the namespace's conntrack table as `conntrack -L` prints it, one entry
// per line, IPv4 and IPv6: for a test to search and to print when it fails.
func (ns *Namespace) Conntrack(ctx context.Context) ([]string, error) {
	out, err := ns.Run(ctx, "conntrack", "-L")
	if err != nil {
		return nil, err
	}
	var entries []string
	for _, line := range strings.Split(out, "\n") {
		// The summary ("N flow entries have been shown.") goes to stderr, which Run merges.
		if line == "" || strings.HasPrefix(line, "conntrack v") {
			continue
		}
		entries = append(entries, line)
	}
	return entries, nil
}

// A Flow is a conntrack entry to create, as a packet from Src to Dst would have made it.
type Flow struct {
	Protocol string         // "udp", "tcp" or "sctp"
	Src, Dst netip.AddrPort // original direction
	// ReplySrc is the reply direction's source: the backend the flow was NATed to. The zero
	// value means Dst, an entry without NAT such as the stale one a datagram leaves before
	// the DNAT rule exists.
	ReplySrc netip.AddrPort
}

// A Table is a netlink handle on the conntrack table of one namespace, to fill and empty it
// fast in tests and benchmarks (about 15 µs per created entry, where conntrack -I costs a
// process each). A Table is not safe for concurrent use.
type Table struct {
	h  *netlink.Handle
	ns *Namespace // for List, which dumps the table on a socket of its own
}

// OpenTable opens a [Table] on the namespace. The caller must Close it.
func (ns *Namespace) OpenTable() (*Table, error) {
	var h *netlink.Handle
	err := ns.Do(func() error {
		var err error
		h, err = netlink.NewHandle(unix.NETLINK_NETFILTER)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("netnstest: netlink handle in %s: %w", ns.name, err)
	}
	return &Table{h: h, ns: ns}, nil
}

// Table is [Namespace.OpenTable] for a test: it registers Close with tb.Cleanup and fails tb
// on error.
func (ns *Namespace) Table(tb testing.TB) *Table {
	tb.Helper()
	t, err := ns.OpenTable()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = t.Close() })
	return t
}

// Insert creates one entry per flow, each with a 600 s timeout, so that entries outlive any
// benchmark. It stops at the first error.
func (t *Table) Insert(flows ...Flow) error {
	for _, f := range flows {
		cf, err := f.conntrackFlow()
		if err != nil {
			return err
		}
		if err := t.h.ConntrackCreate(netlink.ConntrackTable, netlink.InetFamily(cf.FamilyType), cf); err != nil {
			return fmt.Errorf("netnstest: create conntrack entry %+v: %w", f, err)
		}
	}
	return nil
}

// conntrackFlow turns f into netlink's form: IPv4 addresses as 4 bytes (v1.3.1 sends a
// 16-byte IPv4 address as 0.0.0.0), both tuples, a timeout.
func (f Flow) conntrackFlow() (*netlink.ConntrackFlow, error) {
	var proto uint8
	switch f.Protocol {
	case "tcp":
		proto = unix.IPPROTO_TCP
	case "udp":
		proto = unix.IPPROTO_UDP
	case "sctp":
		proto = unix.IPPROTO_SCTP
	default:
		return nil, fmt.Errorf("netnstest: flow protocol %q is not tcp, udp or sctp", f.Protocol)
	}
	reply := f.ReplySrc
	if !reply.IsValid() {
		reply = f.Dst
	}
	fam := uint8(unix.AF_INET6)
	if f.Src.Addr().Is4() {
		fam = unix.AF_INET
	}
	if !f.Src.IsValid() || !f.Dst.IsValid() || f.Dst.Addr().Is4() != f.Src.Addr().Is4() || reply.Addr().Is4() != f.Src.Addr().Is4() {
		return nil, fmt.Errorf("netnstest: flow %+v needs valid addresses of one family", f)
	}
	ip := func(a netip.Addr) net.IP { return net.IP(a.AsSlice()) } // 4 bytes for IPv4
	return &netlink.ConntrackFlow{
		FamilyType: fam,
		TimeOut:    600,
		Forward: netlink.IPTuple{Protocol: proto,
			SrcIP: ip(f.Src.Addr()), SrcPort: f.Src.Port(),
			DstIP: ip(f.Dst.Addr()), DstPort: f.Dst.Port()},
		Reverse: netlink.IPTuple{Protocol: proto,
			SrcIP: ip(reply.Addr()), SrcPort: reply.Port(),
			DstIP: ip(f.Src.Addr()), DstPort: f.Src.Port()},
	}, nil
}

// List returns the table's entries, IPv4 first, as [Flow] values: ReplySrc is zero for an
// entry that is not NATed. It reads the ports of every protocol that has them, SCTP included:
// it parses the dump itself, because netlink v1.3.1's ConntrackTableList reads ports for TCP
// and UDP only and returns an SCTP entry with its ports 0.
func (t *Table) List() ([]Flow, error) {
	var flows []Flow
	for _, fam := range []uint8{unix.AF_INET, unix.AF_INET6} {
		var parseErr error
		err := t.ns.Do(func() error {
			req := nl.NewNetlinkRequest(int(netlink.ConntrackTable)<<8|nl.IPCTNL_MSG_CT_GET, unix.NLM_F_DUMP)
			req.AddData(&nl.Nfgenmsg{NfgenFamily: fam, Version: nl.NFNETLINK_V0})
			return req.ExecuteIter(unix.NETLINK_NETFILTER, 0, func(msg []byte) bool {
				f, err := parseFlow(msg)
				if err != nil {
					parseErr = err
					return false
				}
				flows = append(flows, f)
				return true
			})
		})
		if err = errors.Join(err, parseErr); err != nil {
			return nil, fmt.Errorf("netnstest: list conntrack table: %w", err)
		}
	}
	return flows, nil
}

// parseFlow reads one message of a table dump: a struct nfgenmsg, then the entry's
// attributes, of which it reads the two tuples.
func parseFlow(msg []byte) (Flow, error) {
	if len(msg) < nl.SizeofNfgenmsg {
		return Flow{}, fmt.Errorf("message of %d bytes", len(msg))
	}
	attrs, err := nl.ParseRouteAttr(msg[nl.SizeofNfgenmsg:])
	if err != nil {
		return Flow{}, err
	}
	var orig, reply *tuple
	for _, a := range attrs {
		switch a.Attr.Type & nl.NLA_TYPE_MASK {
		case nl.CTA_TUPLE_ORIG:
			orig, err = parseTuple(a.Value)
		case nl.CTA_TUPLE_REPLY:
			reply, err = parseTuple(a.Value)
		}
		if err != nil {
			return Flow{}, err
		}
	}
	if orig == nil || reply == nil {
		return Flow{}, fmt.Errorf("entry without both tuples: % x", msg)
	}
	f := Flow{Protocol: protoName(orig.proto), Src: orig.src, Dst: orig.dst, ReplySrc: reply.src}
	if f.ReplySrc == f.Dst {
		f.ReplySrc = netip.AddrPort{}
	}
	return f, nil
}

// tuple is a CTA_TUPLE_ORIG or CTA_TUPLE_REPLY attribute, read.
type tuple struct {
	proto    uint8
	src, dst netip.AddrPort
}

// parseTuple reads a tuple attribute's value: the addresses (4 bytes for IPv4, 16 for IPv6),
// the protocol number and, for protocols that have them, the ports in network byte order.
func parseTuple(b []byte) (*tuple, error) {
	attrs, err := nl.ParseRouteAttr(b)
	if err != nil {
		return nil, err
	}
	var (
		t        tuple
		src, dst netip.Addr
		sp, dp   uint16
		gotProto bool
	)
	for _, a := range attrs {
		typ := a.Attr.Type & nl.NLA_TYPE_MASK
		if typ != nl.CTA_TUPLE_IP && typ != nl.CTA_TUPLE_PROTO {
			continue
		}
		inner, err := nl.ParseRouteAttr(a.Value)
		if err != nil {
			return nil, err
		}
		for _, v := range inner {
			switch {
			case typ == nl.CTA_TUPLE_IP && (v.Attr.Type == nl.CTA_IP_V4_SRC || v.Attr.Type == nl.CTA_IP_V6_SRC):
				src, _ = netip.AddrFromSlice(v.Value)
			case typ == nl.CTA_TUPLE_IP && (v.Attr.Type == nl.CTA_IP_V4_DST || v.Attr.Type == nl.CTA_IP_V6_DST):
				dst, _ = netip.AddrFromSlice(v.Value)
			case typ == nl.CTA_TUPLE_PROTO && v.Attr.Type == nl.CTA_PROTO_NUM && len(v.Value) == 1:
				t.proto, gotProto = v.Value[0], true
			case typ == nl.CTA_TUPLE_PROTO && v.Attr.Type == nl.CTA_PROTO_SRC_PORT && len(v.Value) == 2:
				sp = binary.BigEndian.Uint16(v.Value)
			case typ == nl.CTA_TUPLE_PROTO && v.Attr.Type == nl.CTA_PROTO_DST_PORT && len(v.Value) == 2:
				dp = binary.BigEndian.Uint16(v.Value)
			}
		}
	}
	// AddrFromSlice leaves an address of any other length invalid.
	if !gotProto || !src.IsValid() || !dst.IsValid() {
		return nil, fmt.Errorf("tuple without protocol or addresses: % x", b)
	}
	t.src, t.dst = netip.AddrPortFrom(src, sp), netip.AddrPortFrom(dst, dp)
	return &t, nil
}

// protoName names an IP protocol number the way [Flow] does.
func protoName(p uint8) string {
	switch p {
	case unix.IPPROTO_TCP:
		return "tcp"
	case unix.IPPROTO_UDP:
		return "udp"
	case unix.IPPROTO_SCTP:
		return "sctp"
	}
	return fmt.Sprintf("proto(%d)", p)
}

// Len returns the number of entries, IPv4 and IPv6.
func (t *Table) Len() (int, error) {
	n := 0
	for _, fam := range []netlink.InetFamily{unix.AF_INET, unix.AF_INET6} {
		flows, err := t.h.ConntrackTableList(netlink.ConntrackTable, fam)
		if err != nil {
			return 0, fmt.Errorf("netnstest: list conntrack table: %w", err)
		}
		n += len(flows)
	}
	return n, nil
}

// Flush deletes every entry of the namespace's table, IPv4 and IPv6, and checks that none is
// left.
func (t *Table) Flush() error {
	if err := t.h.ConntrackTableFlush(netlink.ConntrackTable); err != nil {
		return fmt.Errorf("netnstest: flush conntrack table: %w", err)
	}
	// The flush message carries AF_INET; the kernels measured flush every family for it,
	// but a kernel that did not would leave IPv6 entries to skew the next fill.
	n, err := t.Len()
	if err != nil {
		return err
	}
	if n != 0 {
		return fmt.Errorf("netnstest: flush left %d conntrack entries", n)
	}
	return nil
}

// Close closes the netlink handle; the Table must not be used afterwards. Calling it again
// does nothing. It always returns nil.
func (t *Table) Close() error {
	if t.h != nil {
		t.h.Close()
		t.h = nil
	}
	return nil
}
