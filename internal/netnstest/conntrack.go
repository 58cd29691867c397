//go:build linux

package netnstest

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"testing"

	"github.com/vishvananda/netlink"
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
	h *netlink.Handle
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
	return &Table{h: h}, nil
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
// entry that is not NATed. netlink v1.3.1 parses ports for TCP and UDP only, so an SCTP
// entry comes back with its ports 0.
func (t *Table) List() ([]Flow, error) {
	var flows []Flow
	for _, fam := range []netlink.InetFamily{unix.AF_INET, unix.AF_INET6} {
		cfs, err := t.h.ConntrackTableList(netlink.ConntrackTable, fam)
		if err != nil {
			return nil, fmt.Errorf("netnstest: list conntrack table: %w", err)
		}
		for _, cf := range cfs {
			f := Flow{
				Protocol: protoName(cf.Forward.Protocol),
				Src:      addrPort(cf.Forward.SrcIP, cf.Forward.SrcPort),
				Dst:      addrPort(cf.Forward.DstIP, cf.Forward.DstPort),
				ReplySrc: addrPort(cf.Reverse.SrcIP, cf.Reverse.SrcPort),
			}
			if f.ReplySrc == f.Dst {
				f.ReplySrc = netip.AddrPort{}
			}
			flows = append(flows, f)
		}
	}
	return flows, nil
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

// addrPort converts an address as netlink parsed it (4 or 16 bytes) and a port.
func addrPort(ip net.IP, port uint16) netip.AddrPort {
	a, _ := netip.AddrFromSlice(ip)
	return netip.AddrPortFrom(a.Unmap(), port)
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
