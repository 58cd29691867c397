//go:build linux

package netnstest

import (
	"context"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// Conntrack returns the namespace's conntrack table as `conntrack -L` prints it, one entry
// per line, IPv4 and IPv6: for a test to search and to print when it fails.
func (ns *Namespace) Conntrack(ctx context.Context) ([]string, error) {
	// Standard output alone: conntrack(8) writes its summary ("N flow entries have been
	// shown.") to standard error, which a merged stream splices into the middle of an entry
	// once the table is larger than stdout's buffer.
	out, err := ns.output(ctx, "conntrack", "-L")
	if err != nil {
		return nil, err
	}
	var entries []string
	for _, line := range strings.Split(out, "\n") {
		if line == "" {
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
// fast in tests and benchmarks (one netlink round trip per created entry, where conntrack -I
// costs a process each). [Table.List] reads the table back through conntrack(8), which
// shares no code with this module's netlink parsers. A Table is not safe for concurrent use.
type Table struct {
	h   *netlink.Handle
	raw *rawConn   // creates entries in batches, with their DNAT, which netlink v1.3.1 cannot send
	ns  *Namespace // for List, which runs conntrack(8) in it
}

// OpenTable opens a [Table] on the namespace. The caller must Close it.
func (ns *Namespace) OpenTable() (*Table, error) {
	var (
		h   *netlink.Handle
		raw *rawConn
	)
	err := ns.Do(func() error {
		var err error
		if h, err = netlink.NewHandle(unix.NETLINK_NETFILTER); err != nil {
			return err
		}
		if raw, err = openRawConn(); err != nil {
			h.Close()
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("netnstest: netlink handle in %s: %w", ns.name, err)
	}
	return &Table{h: h, raw: raw, ns: ns}, nil
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

// Netlink attribute types of include/uapi/linux/netfilter/nfnetlink_conntrack.h for NAT.
const (
	ctaNATDst         = 13 // CTA_NAT_DST
	ctaNATv4MinIP     = 1  // CTA_NAT_V4_MINIP
	ctaNATv4MaxIP     = 2  // CTA_NAT_V4_MAXIP
	ctaNATProto       = 3  // CTA_NAT_PROTO
	ctaNATv6MinIP     = 4  // CTA_NAT_V6_MINIP
	ctaNATv6MaxIP     = 5  // CTA_NAT_V6_MAXIP
	ctaProtoNATPortLo = 1  // CTA_PROTONAT_PORT_MIN
	ctaProtoNATPortHi = 2  // CTA_PROTONAT_PORT_MAX
)

// Insert creates one entry per flow, in batches of many entries per netlink write (a
// 220,000-entry table takes about a second). Each entry times out after an hour, longer than
// any benchmark. A flow with a ReplySrc other than Dst is DNATed to it by the kernel, as the
// rules would have DNATed it: its status says DNAT, which conntrack(8) --dst-nat and the
// backends' ReplySrc filters require. A TCP entry is ESTABLISHED. Insert stops at the first
// batch in which an entry could not be created, and its error names that entry's flow; the
// other entries of that batch may exist. A flow whose entry exists already is an error
// (EEXIST): a fill that makes one twice is wrong.
func (t *Table) Insert(flows ...Flow) error {
	return t.raw.create(flows)
}

// protocolNumber returns the IP protocol number of f.Protocol.
func (f Flow) protocolNumber() (uint8, error) {
	switch f.Protocol {
	case "tcp":
		return unix.IPPROTO_TCP, nil
	case "udp":
		return unix.IPPROTO_UDP, nil
	case "sctp":
		return unix.IPPROTO_SCTP, nil
	}
	return 0, fmt.Errorf("netnstest: flow protocol %q is not tcp, udp or sctp", f.Protocol)
}

// family returns the address family of f, which must have valid addresses of one family.
func (f Flow) family() (uint8, error) {
	reply := f.ReplySrc
	if !reply.IsValid() {
		reply = f.Dst
	}
	if !f.Src.IsValid() || !f.Dst.IsValid() || f.Dst.Addr().Is4() != f.Src.Addr().Is4() || reply.Addr().Is4() != f.Src.Addr().Is4() ||
		f.Src.Addr().Is4In6() || f.Dst.Addr().Is4In6() || reply.Addr().Is4In6() {
		return 0, fmt.Errorf("netnstest: flow %+v needs valid addresses of one family", f)
	}
	if f.Src.Addr().Is4() {
		return unix.AF_INET, nil
	}
	return unix.AF_INET6, nil
}

// List returns the table's entries, IPv4 first, as [Flow] values: ReplySrc is zero for an
// entry whose reply comes from its original destination, one that was not NATed.
//
// It reads the table through conntrack(8) (`conntrack -L -o extended`), which parses the
// kernel's messages with libnetfilter_conntrack: what a test checks with List is what the
// kernel holds, seen by an implementation that shares no code, and no assumption, with the
// netlink parsers of this module. conntrack(8) reads the ports of SCTP entries too.
func (t *Table) List() ([]Flow, error) {
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	var flows []Flow
	for _, fam := range []string{"ipv4", "ipv6"} {
		out, err := t.ns.output(ctx, "conntrack", "-L", "-f", fam, "-o", "extended")
		if err != nil {
			return nil, fmt.Errorf("netnstest: list conntrack table: %w", err)
		}
		for _, line := range strings.Split(out, "\n") {
			if line == "" {
				continue
			}
			f, err := parseExtended(line)
			if err != nil {
				return nil, fmt.Errorf("netnstest: list conntrack table: %w", err)
			}
			flows = append(flows, f)
		}
	}
	return flows, nil
}

// parseExtended reads one line of `conntrack -L -o extended`, such as
//
//	ipv4 2 udp 17 599 src=198.18.1.2 dst=198.18.1.1 sport=40001 dport=30080 [UNREPLIED] src=198.18.2.2 dst=198.18.1.2 sport=8080 dport=40001 mark=0 use=1
//
// The first src, dst, sport and dport are the original tuple's, the second the reply's; an
// SCTP entry carries its state (CLOSED) before them.
func parseExtended(line string) (Flow, error) {
	fields := strings.Fields(line)
	if len(fields) < 3 {
		return Flow{}, fmt.Errorf("conntrack line %q: too short", line)
	}
	f := Flow{Protocol: fields[2]}
	var (
		tuples [2]struct {
			src, dst     netip.Addr
			sport, dport uint16
		}
		counts = map[string]int{}
	)
	for _, field := range fields[3:] {
		k, v, ok := strings.Cut(field, "=")
		if !ok || (k != "src" && k != "dst" && k != "sport" && k != "dport") {
			continue
		}
		i := counts[k]
		counts[k]++
		if i > 1 {
			return Flow{}, fmt.Errorf("conntrack line %q: %s three times", line, k)
		}
		var err error
		switch k {
		case "src", "dst":
			var a netip.Addr
			if a, err = netip.ParseAddr(v); err == nil {
				if k == "src" {
					tuples[i].src = a
				} else {
					tuples[i].dst = a
				}
			}
		default:
			var p uint64
			if p, err = strconv.ParseUint(v, 10, 16); err == nil {
				if k == "sport" {
					tuples[i].sport = uint16(p)
				} else {
					tuples[i].dport = uint16(p)
				}
			}
		}
		if err != nil {
			return Flow{}, fmt.Errorf("conntrack line %q: %w", line, err)
		}
	}
	if counts["src"] != 2 || counts["dst"] != 2 {
		return Flow{}, fmt.Errorf("conntrack line %q: not two tuples", line)
	}
	orig, reply := tuples[0], tuples[1]
	f.Src = netip.AddrPortFrom(orig.src, orig.sport)
	f.Dst = netip.AddrPortFrom(orig.dst, orig.dport)
	f.ReplySrc = netip.AddrPortFrom(reply.src, reply.sport)
	if f.ReplySrc == f.Dst {
		f.ReplySrc = netip.AddrPort{}
	}
	return f, nil
}

// Len returns the number of entries, IPv4 and IPv6.
func (t *Table) Len() (int, error) {
	n := 0
	for _, fam := range []bool{false, true} {
		m, err := t.Count(fam, "")
		if err != nil {
			return 0, err
		}
		n += m
	}
	return n, nil
}

// Count reads the table of one address family (IPv6 when ipv6 is true), only the entries of
// protocol ("udp", say) when it is not empty, and returns how many entries it read. It reads
// each message and judges nothing, over a socket of its own with one reused buffer: the least
// any reader of the table can do, and so the baseline the backends' benchmarks compare with.
// With a protocol, the kernel sends only that protocol's entries (CTA_FILTER, Linux 5.8); an
// older kernel sends every entry, and Count then counts them all.
func (t *Table) Count(ipv6 bool, protocol string) (int, error) {
	fam := uint8(unix.AF_INET)
	if ipv6 {
		fam = unix.AF_INET6
	}
	var proto uint8
	if protocol != "" {
		var err error
		if proto, err = (Flow{Protocol: protocol}).protocolNumber(); err != nil {
			return 0, err
		}
	}
	n, err := t.raw.dump(fam, proto)
	if err != nil {
		return n, fmt.Errorf("netnstest: read conntrack table: %w", err)
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
		t.raw.close()
		t.h, t.raw = nil, nil
	}
	return nil
}
