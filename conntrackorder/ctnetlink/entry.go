//go:build linux

package ctnetlink

import (
	"encoding/binary"
	"net/netip"

	"github.com/vishvananda/netlink/nl"
	"golang.org/x/sys/unix"

	"github.com/safereconcile/safereconcile/conntrackorder"
)

// ctEntry is what the matchers read of one conntrack entry.
type ctEntry struct {
	proto    uint8          // IP protocol number of the original tuple
	dstNAT   bool           // the entry was DNATed, as its status says (see parseEntry)
	origDst  netip.AddrPort // original direction's destination
	replySrc netip.AddrPort // reply direction's source: the NAT target, or origDst
}

// Bits of enum ip_conntrack_status (include/uapi/linux/netfilter/nf_conntrack_common.h).
const (
	ipsDstNAT     = 1 << 5 // IPS_DST_NAT: a DNAT changed the entry's tuple
	ipsDstNATDone = 1 << 8 // IPS_DST_NAT_DONE: the entry went through DNAT, maybe unchanged
)

// flow describes e for [conntrackorder.Desired.Contradicts]. An entry of a protocol the
// package has no name for gets protocol 0, which contradicts nothing.
func (e ctEntry) flow() conntrackorder.Flow {
	var p conntrackorder.Protocol
	switch e.proto {
	case unix.IPPROTO_TCP:
		p = conntrackorder.TCP
	case unix.IPPROTO_UDP:
		p = conntrackorder.UDP
	case unix.IPPROTO_SCTP:
		p = conntrackorder.SCTP
	}
	return conntrackorder.Flow{Protocol: p, OrigDst: e.origDst, ReplySrc: e.replySrc}
}

// parseEntry reads one message of a conntrack table dump: msg is the netlink payload, a
// struct nfgenmsg and then the entry's attributes (include/uapi/linux/netfilter/
// nfnetlink_conntrack.h). It reads only the two tuples and the status, without allocating, and
// stops when it has them: the kernel sends them first (ctnetlink_fill_info), and nothing after
// them decides a verdict. It reports false when either tuple lacks its addresses or protocol,
// or an attribute it reads runs past the message.
//
// It reads ports for every protocol that has them, SCTP included, unlike netlink v1.3.1's
// parser; an entry without ports (ICMP, GRE) gets port 0.
func parseEntry(msg []byte) (ctEntry, bool) {
	if len(msg) < nl.SizeofNfgenmsg {
		return ctEntry{}, false
	}
	var (
		orig, reply           tuple
		gotO, gotR, gotStatus bool
		status                uint32
	)
	attrs := msg[nl.SizeofNfgenmsg:]
	for len(attrs) > 0 && !(gotO && gotR && gotStatus) {
		typ, val, rest, ok := nextAttr(attrs)
		if !ok {
			return ctEntry{}, false
		}
		attrs = rest
		switch typ {
		case nl.CTA_TUPLE_ORIG:
			orig, gotO = parseTuple(val)
		case nl.CTA_TUPLE_REPLY:
			reply, gotR = parseTuple(val)
		case nl.CTA_STATUS:
			// A 32-bit value in network byte order. An entry without it (the kernel always
			// sends it) counts as not DNATed, as conntrack(8) --dst-nat treats it.
			gotStatus = true
			if len(val) == 4 {
				status = binary.BigEndian.Uint32(val)
			}
		}
	}
	if !gotO || !gotR || orig.proto != reply.proto || len(orig.dst) != len(reply.src) {
		return ctEntry{}, false
	}
	// Only the original destination and the reply source are made addresses: the other two
	// are never judged.
	e := ctEntry{
		proto:    orig.proto,
		origDst:  netip.AddrPortFrom(addrOf(orig.dst), orig.dport),
		replySrc: netip.AddrPortFrom(addrOf(reply.src), reply.sport),
	}
	// A flow a DNAT rule rewrote has IPS_DST_NAT. An entry created over netlink with its
	// NATed reply tuple given (conntrack -I -r ... --dst-nat) has only IPS_DST_NAT_DONE, since
	// the kernel found nothing left to rewrite; conntrack(8) --dst-nat counts it as DNATed
	// when its reply comes from another address, and so does this. An entry that went
	// through DNAT unchanged (every flow once NAT is loaded) has DONE and the same address.
	e.dstNAT = status&ipsDstNAT != 0 ||
		(status&ipsDstNATDone != 0 && e.replySrc.Addr() != e.origDst.Addr())
	return e, true
}

// tuple is a CTA_TUPLE_ORIG or CTA_TUPLE_REPLY attribute as parseTuple reads it: the
// addresses are still in the message, 4 or 16 bytes long.
type tuple struct {
	proto        uint8
	src, dst     []byte
	sport, dport uint16
}

// parseTuple reads a CTA_TUPLE_ORIG or CTA_TUPLE_REPLY attribute's value. ok is false unless
// it holds a protocol number and a source and destination address of one family.
func parseTuple(b []byte) (t tuple, ok bool) {
	gotProto := false
	for len(b) > 0 {
		typ, val, rest, good := nextAttr(b)
		if !good {
			return tuple{}, false
		}
		b = rest
		switch typ {
		case nl.CTA_TUPLE_IP:
			for len(val) > 0 {
				a, v, r, good := nextAttr(val)
				if !good {
					return tuple{}, false
				}
				val = r
				switch {
				case a == nl.CTA_IP_V4_SRC && len(v) == 4, a == nl.CTA_IP_V6_SRC && len(v) == 16:
					t.src = v
				case a == nl.CTA_IP_V4_DST && len(v) == 4, a == nl.CTA_IP_V6_DST && len(v) == 16:
					t.dst = v
				}
			}
		case nl.CTA_TUPLE_PROTO:
			for len(val) > 0 {
				a, v, r, good := nextAttr(val)
				if !good {
					return tuple{}, false
				}
				val = r
				switch {
				case a == nl.CTA_PROTO_NUM && len(v) == 1:
					t.proto, gotProto = v[0], true
				case a == nl.CTA_PROTO_SRC_PORT && len(v) == 2:
					t.sport = binary.BigEndian.Uint16(v) // network byte order
				case a == nl.CTA_PROTO_DST_PORT && len(v) == 2:
					t.dport = binary.BigEndian.Uint16(v)
				}
			}
		}
	}
	if !gotProto || t.src == nil || t.dst == nil || len(t.src) != len(t.dst) {
		return tuple{}, false
	}
	return t, true
}

// addrOf makes an address of 4 or 16 bytes of a tuple.
func addrOf(b []byte) netip.Addr {
	if len(b) == 4 {
		return netip.AddrFrom4([4]byte(b))
	}
	return netip.AddrFrom16([16]byte(b))
}

// nextAttr splits the first netlink attribute off b: its type without the nested and
// byte-order flags, its value, and what follows it (attributes are aligned to 4 bytes). ok is
// false when b does not start with a whole attribute.
func nextAttr(b []byte) (typ uint16, val, rest []byte, ok bool) {
	if len(b) < unix.SizeofNlAttr {
		return 0, nil, nil, false
	}
	n := int(binary.NativeEndian.Uint16(b[0:2]))
	if n < unix.SizeofNlAttr || n > len(b) {
		return 0, nil, nil, false
	}
	typ = binary.NativeEndian.Uint16(b[2:4]) & nl.NLA_TYPE_MASK
	aligned := (n + unix.NLA_ALIGNTO - 1) &^ (unix.NLA_ALIGNTO - 1)
	if aligned > len(b) {
		aligned = len(b) // the last attribute may come without its padding
	}
	return typ, b[unix.SizeofNlAttr:n], b[aligned:], true
}
