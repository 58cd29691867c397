//go:build linux

package ctnetlink

import (
	"fmt"
	"net/netip"

	"golang.org/x/sys/unix"

	"github.com/safereconcile/safereconcile/conntrackorder"
)

// shape says which optional fields of a filter are set. A plan has at most seven shapes, and
// an entry is matched by one lookup per shape present.
type shape uint8

const (
	byOrigDst shape = 1 << iota
	byDstPort
	byReplySrc
)

// key is a filter with its unset fields zero, or an entry's fields projected onto a shape.
//
// One map holds the keys of every shape. A lookup under shape s cannot find a filter of
// another shape that does not match: a filter's set fields are never zero (addresses are
// valid, ports non-zero), so its key equals the projection only if every field it sets is
// also in s and equal to the entry's.
type key struct {
	origDst  netip.Addr
	replySrc netip.Addr
	dstPort  uint16
	proto    uint8
}

// index is a plan turned into sets: which protocols it names, which shapes it has, and the
// key of every filter.
type index struct {
	keys   map[key]struct{}
	shapes []shape // each shape of the plan once
	protos [256]bool
	// ports has a bit for each DstPort of the plan. Most entries of a busy table go to a
	// port no filter names; for them the shapes with a port cost one bit test, not a lookup.
	ports  [65536 / 64]uint64
	v4, v6 bool // address families the plan's filters with addresses need dumped
	// noAddr says that a filter names no address: it needs the node's families dumped.
	noAddr bool
}

// family is an address family to dump, with its name for errors.
type family struct {
	nl   uint8 // AF_INET or AF_INET6
	name string
	// node says that the node has addresses of the family, so that a filter without
	// addresses, a NodePort's, applies to its entries.
	node bool
}

// newIndex checks every filter of plan and indexes them. It returns the first bad filter's
// error; a nil error means the whole plan can be applied.
func newIndex(plan conntrackorder.Plan) (*index, error) {
	x := &index{keys: make(map[key]struct{}, len(plan))}
	var seen [(byOrigDst | byDstPort | byReplySrc) + 1]bool
	for i, f := range plan {
		k, err := keyOf(f)
		if err != nil {
			return nil, fmt.Errorf("ctnetlink: plan filter %d: %w", i, err)
		}
		x.keys[k] = struct{}{}
		x.protos[k.proto] = true
		if k.dstPort != 0 {
			x.ports[k.dstPort/64] |= 1 << (k.dstPort % 64)
		}
		s := shapeOf(k)
		if !seen[s] {
			seen[s] = true
			x.shapes = append(x.shapes, s)
		}
		addr := k.origDst
		if !addr.IsValid() {
			addr = k.replySrc
		}
		switch {
		case !addr.IsValid():
			x.noAddr = true
		case addr.Is4():
			x.v4 = true
		default:
			x.v6 = true
		}
	}
	return x, nil
}

// keyOf validates one filter and returns its key.
func keyOf(f conntrackorder.Filter) (key, error) {
	// The same refusals as every backend: unknown protocol, a filter that sets only the
	// protocol (it would delete every flow of it), addresses no entry can carry, mixed
	// families.
	if err := f.Validate(); err != nil {
		return key{}, err
	}
	// An SCTP filter with a port is matched like a UDP one: parseEntry reads the ports of
	// SCTP entries (TestFlushOnARealKernel deletes SCTP entries by port). Through netlink
	// v1.3.1, whose parser reads ports for TCP and UDP only, it matched nothing, in silence,
	// as kube-proxy's SCTP clearing did for years (kubernetes#115299).
	k := key{origDst: f.OrigDst, replySrc: f.ReplySrc, dstPort: f.DstPort}
	switch f.Protocol {
	case conntrackorder.TCP:
		k.proto = unix.IPPROTO_TCP
	case conntrackorder.UDP:
		k.proto = unix.IPPROTO_UDP
	case conntrackorder.SCTP:
		k.proto = unix.IPPROTO_SCTP
	}
	return k, nil
}

// shapeOf says which optional fields k sets.
func shapeOf(k key) shape {
	var s shape
	if k.origDst.IsValid() {
		s |= byOrigDst
	}
	if k.dstPort != 0 {
		s |= byDstPort
	}
	if k.replySrc.IsValid() {
		s |= byReplySrc
	}
	return s
}

// families lists the address families the plan or the desired state (nil for none) needs
// dumped, IPv4 first.
func (x *index) families(desired *conntrackorder.Desired) []family {
	v4, v6 := desired.Families()
	// A filter without addresses, a NodePort's, matches flows of both families, as
	// conntrack(8) without -f deletes in both tables, but a NodePort is open only on the
	// node's addresses, whose families the desired state knows (both when desired is nil).
	n4, n6 := desired.NodeFamilies()
	var fs []family
	if x.v4 || v4 || (x.noAddr && n4) {
		fs = append(fs, family{nl: unix.AF_INET, name: "ipv4", node: n4})
	}
	if x.v6 || v6 || (x.noAddr && n6) {
		fs = append(fs, family{nl: unix.AF_INET6, name: "ipv6", node: n6})
	}
	return fs
}

// match reports whether e matches any filter of the index, in at most one map lookup per
// shape. A filter that names no address matches only when onNode: when e is of one of the
// node's families.
func (x *index) match(e ctEntry, onNode bool) bool {
	if !x.protos[e.proto] {
		return false
	}
	dport := e.origDst.Port()
	portKnown := x.ports[dport/64]&(1<<(dport%64)) != 0
	for _, s := range x.shapes {
		if s == byDstPort && !onNode {
			continue // a NodePort filter, and e is not of the node's families
		}
		k := key{proto: e.proto}
		if s&byDstPort != 0 {
			if !portKnown {
				continue
			}
			k.dstPort = dport
		}
		if s&byOrigDst != 0 {
			k.origDst = e.origDst.Addr()
		}
		if s&byReplySrc != 0 {
			// ReplySrc is the backend the flow was DNATed to: a flow that was not DNATed
			// has none, even where its reply source is the filter's address (a client
			// that sent to the endpoint directly, on the NodePort's number). conntrack(8)
			// --dst-nat also matches only entries whose status says DNAT (parseEntry).
			if !e.dstNAT {
				continue
			}
			k.replySrc = e.replySrc.Addr()
		}
		if _, ok := x.keys[k]; ok {
			return true
		}
	}
	return false
}
