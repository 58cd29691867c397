//go:build linux

package netnstest

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strconv"
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
// fast in tests and benchmarks (one netlink round trip per created entry, where conntrack -I
// costs a process each). [Table.List] reads the table back through conntrack(8), which
// shares no code with this module's netlink parsers. A Table is not safe for concurrent use.
type Table struct {
	h    *netlink.Handle
	sock *nl.SocketHandle // creates entries with their DNAT, which netlink v1.3.1 cannot send
	ns   *Namespace       // for List, which runs conntrack(8) in it
}

// OpenTable opens a [Table] on the namespace. The caller must Close it.
func (ns *Namespace) OpenTable() (*Table, error) {
	var (
		h    *netlink.Handle
		sock *nl.NetlinkSocket
	)
	err := ns.Do(func() error {
		var err error
		if h, err = netlink.NewHandle(unix.NETLINK_NETFILTER); err != nil {
			return err
		}
		if sock, err = nl.Subscribe(unix.NETLINK_NETFILTER); err != nil {
			h.Close()
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("netnstest: netlink handle in %s: %w", ns.name, err)
	}
	return &Table{h: h, sock: &nl.SocketHandle{Socket: sock}, ns: ns}, nil
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

// Netlink attribute types of include/uapi/linux/netfilter/nfnetlink_conntrack.h that
// netlink v1.3.1 does not name.
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

// Insert creates one entry per flow, each with a 600 s timeout, so that entries outlive any
// benchmark. A flow with a ReplySrc other than Dst is DNATed to it by the kernel, as the
// rules would have DNATed it: its status says DNAT, which conntrack(8) --dst-nat and the
// backends' ReplySrc filters require. It stops at the first error.
func (t *Table) Insert(flows ...Flow) error {
	for _, f := range flows {
		if err := t.insert(f); err != nil {
			return fmt.Errorf("netnstest: create conntrack entry %+v: %w", f, err)
		}
	}
	return nil
}

func (t *Table) insert(f Flow) error {
	cf, err := f.conntrackFlow()
	if err != nil {
		return err
	}
	if !f.ReplySrc.IsValid() || f.ReplySrc == f.Dst {
		return t.h.ConntrackCreate(netlink.ConntrackTable, netlink.InetFamily(cf.FamilyType), cf)
	}
	// The entry a DNAT rule makes: the reply tuple of a flow that was not NATed, and
	// CTA_NAT_DST, so that the kernel DNATs it as the rule would (nf_nat_setup_info): it
	// rewrites the reply tuple to come from ReplySrc and sets IPS_DST_NAT. Given the NATed
	// reply tuple instead, as conntrack -I -r is, the kernel finds nothing to rewrite and
	// leaves IPS_DST_NAT unset.
	req := nl.NewNetlinkRequest(int(netlink.ConntrackTable)<<8|nl.IPCTNL_MSG_CT_NEW, unix.NLM_F_ACK|unix.NLM_F_CREATE)
	req.Sockets = map[int]*nl.SocketHandle{unix.NETLINK_NETFILTER: t.sock}
	req.AddData(&nl.Nfgenmsg{NfgenFamily: cf.FamilyType, Version: nl.NFNETLINK_V0})
	req.AddData(tupleAttr(nl.CTA_TUPLE_ORIG, cf.Forward))
	direct := cf.Reverse
	direct.SrcIP, direct.SrcPort = cf.Forward.DstIP, cf.Forward.DstPort
	req.AddData(tupleAttr(nl.CTA_TUPLE_REPLY, direct))
	req.AddData(nl.NewRtAttr(nl.CTA_TIMEOUT, nl.BEUint32Attr(cf.TimeOut)))
	nat := nl.NewRtAttr(unix.NLA_F_NESTED|ctaNATDst, nil)
	ip := f.ReplySrc.Addr().AsSlice()
	if f.ReplySrc.Addr().Is4() {
		nat.AddRtAttr(ctaNATv4MinIP, ip)
		nat.AddRtAttr(ctaNATv4MaxIP, ip)
	} else {
		nat.AddRtAttr(ctaNATv6MinIP, ip)
		nat.AddRtAttr(ctaNATv6MaxIP, ip)
	}
	port := nl.NewRtAttr(unix.NLA_F_NESTED|ctaNATProto, nil)
	port.AddRtAttr(ctaProtoNATPortLo, nl.BEUint16Attr(f.ReplySrc.Port()))
	port.AddRtAttr(ctaProtoNATPortHi, nl.BEUint16Attr(f.ReplySrc.Port()))
	nat.AddChild(port)
	req.AddData(nat)
	_, err = req.Execute(unix.NETLINK_NETFILTER, 0)
	return err
}

// tupleAttr encodes a CTA_TUPLE_ORIG or CTA_TUPLE_REPLY attribute.
func tupleAttr(typ int, t netlink.IPTuple) *nl.RtAttr {
	src, dst := nl.CTA_IP_V4_SRC, nl.CTA_IP_V4_DST
	if len(t.SrcIP) == net.IPv6len {
		src, dst = nl.CTA_IP_V6_SRC, nl.CTA_IP_V6_DST
	}
	a := nl.NewRtAttr(unix.NLA_F_NESTED|typ, nil)
	ip := nl.NewRtAttr(unix.NLA_F_NESTED|nl.CTA_TUPLE_IP, nil)
	ip.AddRtAttr(src, t.SrcIP)
	ip.AddRtAttr(dst, t.DstIP)
	a.AddChild(ip)
	proto := nl.NewRtAttr(unix.NLA_F_NESTED|nl.CTA_TUPLE_PROTO, nil)
	proto.AddRtAttr(nl.CTA_PROTO_NUM, []byte{t.Protocol})
	proto.AddRtAttr(nl.CTA_PROTO_SRC_PORT, nl.BEUint16Attr(t.SrcPort))
	proto.AddRtAttr(nl.CTA_PROTO_DST_PORT, nl.BEUint16Attr(t.DstPort))
	a.AddChild(proto)
	return a
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
		t.sock.Socket.Close()
		t.h, t.sock = nil, nil
	}
	return nil
}
