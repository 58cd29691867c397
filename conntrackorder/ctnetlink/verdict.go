//go:build linux

package ctnetlink

import "github.com/safereconcile/safereconcile/conntrackorder"

// maxVerdicts bounds the verdicts a pass remembers, so that the memory of a pass does not grow
// with the table: a node's UDP entries share a few hundred destinations and reply sources,
// and a table with more distinct pairs than this only judges the others in full.
const maxVerdicts = 1 << 13

// verdictKey is everything of an entry that decides whether a pass deletes it: the protocol,
// whether it was DNATed, the original destination and the reply source. It holds no pointer
// and no padding, so that a map hashes it as one block of memory.
type verdictKey struct {
	origDst, replySrc [16]byte
	dport, rport      uint16
	proto             uint8
	flags             uint8 // verdictIPv4, verdictDNAT
}

const (
	verdictIPv4 = 1 << iota // the addresses are IPv4, not IPv4-mapped IPv6
	verdictDNAT
)

func verdictKeyOf(e ctEntry) verdictKey {
	k := verdictKey{
		origDst:  e.origDst.Addr().As16(),
		replySrc: e.replySrc.Addr().As16(),
		dport:    e.origDst.Port(),
		rport:    e.replySrc.Port(),
		proto:    e.proto,
	}
	if e.origDst.Addr().Is4() { // parseEntry refuses an entry whose tuples' families differ
		k.flags |= verdictIPv4
	}
	if e.dstNAT {
		k.flags |= verdictDNAT
	}
	return k
}

// A judge decides which entries of one pass are deleted.
type judge struct {
	idx     *index
	desired *conntrackorder.Desired
	onNode  bool // the pass's family is one of the node's (family.node)
	// verdicts remembers the verdict of each verdictKey judged in this pass. Within a pass
	// nothing else decides it (idx, desired and onNode are fixed), and most entries of a
	// node's table share their key with many others, clients of the same DNS endpoints, so
	// that one lookup replaces the desired state's and the index's several. It must not
	// outlive the pass: the next one may have another plan, desired state or family.
	verdicts map[verdictKey]bool
}

// stale reports whether the pass deletes e.
func (j *judge) stale(e ctEntry) bool {
	k := verdictKeyOf(e)
	if v, ok := j.verdicts[k]; ok {
		return v
	}
	v := j.decide(e)
	if len(j.verdicts) < maxVerdicts {
		j.verdicts[k] = v
	}
	return v
}

// decide is stale without the memory. The desired state decides the flows to its service IPs
// and ports: a filter for a NodePort a deleted service had selects every flow to that port
// number, also the healthy flows to another service's IP and port of the same number, NATed
// to its serving endpoints, and those must stay. Keeps is asked only of the few entries a
// filter matches.
func (j *judge) decide(e ctEntry) bool {
	fl := e.flow()
	return j.desired.Contradicts(fl) || (j.idx.match(e, j.onNode) && !j.desired.Keeps(fl))
}
