//go:build linux

package ctnetlink

import (
	"encoding/binary"
	"errors"

	"github.com/vishvananda/netlink/nl"
	"golang.org/x/sys/unix"

	"github.com/safereconcile/safereconcile/conntrackorder"
)

// Attributes of a dump request that asks the kernel to send only the entries of one protocol
// (include/uapi/linux/netfilter/nfnetlink_conntrack.h, Linux 5.8 and later).
const (
	ctaFilter          = 25     // CTA_FILTER, nested
	ctaFilterOrigFlags = 1      // CTA_FILTER_ORIG_FLAGS: which fields of CTA_TUPLE_ORIG to compare
	ctaFilterProtoNum  = 1 << 3 // CTA_FILTER_FLAG_CTA_PROTO_NUM
)

// dumpProtocol returns the one IP protocol whose entries the plan of idx and desired can
// match, or 0 when they can match entries of several protocols (or none). desired judges only
// UDP flows ([conntrackorder.Desired.Contradicts]); a plan, whatever its filters name.
func dumpProtocol(idx *index, desired *conntrackorder.Desired) uint8 {
	var proto uint8
	if v4, v6 := desired.Families(); v4 || v6 {
		proto = unix.IPPROTO_UDP
	}
	for p, named := range idx.protos {
		switch {
		case !named || uint8(p) == proto:
		case proto != 0:
			return 0
		default:
			proto = uint8(p)
		}
	}
	return proto
}

// dumpFilter returns the attributes that ask the kernel to dump only the entries whose
// original tuple has protocol proto. On a node most entries are TCP and a reconcile judges
// only UDP: without them every TCP entry is sent, parsed and dropped here.
//
// The kernel applies them only with a family to dump (AF_UNSPEC is refused with EOPNOTSUPP).
// A kernel older than Linux 5.8 ignores attributes it does not know and sends the whole
// table, without an error: every entry is still judged here in full, protocol included, so
// the filter only saves work and never decides anything. It compares the original tuple
// only; filtering on the reply tuple was broken until late 2021.
func dumpFilter(proto uint8) []byte {
	var b []byte
	flags := appendAttr(nil, ctaFilterOrigFlags, binary.NativeEndian.AppendUint32(nil, ctaFilterProtoNum))
	b = appendAttr(b, unix.NLA_F_NESTED|ctaFilter, flags)
	protoNum := appendAttr(nil, nl.CTA_PROTO_NUM, []byte{proto})
	tupleProto := appendAttr(nil, unix.NLA_F_NESTED|nl.CTA_TUPLE_PROTO, protoNum)
	return appendAttr(b, unix.NLA_F_NESTED|nl.CTA_TUPLE_ORIG, tupleProto)
}

// appendAttr appends a netlink attribute of type typ holding val, padded to 4 bytes, the way
// the kernel lays them out.
func appendAttr(b []byte, typ uint16, val []byte) []byte {
	b = binary.NativeEndian.AppendUint16(b, uint16(unix.SizeofNlAttr+len(val)))
	b = binary.NativeEndian.AppendUint16(b, typ)
	b = append(b, val...)
	for len(b)%unix.NLA_ALIGNTO != 0 {
		b = append(b, 0)
	}
	return b
}

// protocolFilter is dumpFilter; tests replace it to play a kernel that refuses the filter.
var protocolFilter = dumpFilter

// refusedFilter reports whether err is a kernel's refusal of a dump's filter attributes
// rather than a failure of the dump itself: a kernel that knows CTA_FILTER but not a field
// it names answers EOPNOTSUPP or EINVAL before sending any entry.
func refusedFilter(err error) bool {
	return errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EINVAL)
}
