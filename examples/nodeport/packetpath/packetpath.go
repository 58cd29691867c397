package packetpath

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/safereconcile/safereconcile/conntrackorder"
)

// The conntrack timeouts of a UDP flow, Linux's defaults.
const (
	// UnrepliedTimeout is how long an entry lives after the last datagram of its flow while
	// the flow has seen no reply, or has seen replies for less than StreamAfter
	// (nf_conntrack_udp_timeout). A client that sends more often than this keeps the entry
	// alive for ever.
	UnrepliedTimeout = 30 * time.Second

	// StreamTimeout is how long an entry lives after the last datagram of a flow that has seen
	// replies and is still sending StreamAfter after it began; such an entry is assured
	// (nf_conntrack_udp_timeout_stream; kernels before 5.x used 180 s).
	StreamTimeout = 120 * time.Second

	// StreamAfter is how long a flow that has seen replies must have lived before its next
	// datagram makes it a stream.
	StreamAfter = 2 * time.Second
)

// A Tuple is one direction of a flow: its protocol, source and destination.
type Tuple struct {
	Protocol conntrackorder.Protocol
	Src, Dst netip.AddrPort
}

// String returns the tuple in conntrack(8)'s words: "src=198.18.1.2 dst=198.18.1.1 sport=40000
// dport=30080".
func (t Tuple) String() string {
	return fmt.Sprintf("src=%s dst=%s sport=%d dport=%d", t.Src.Addr(), t.Dst.Addr(), t.Src.Port(), t.Dst.Port())
}

// An Entry is one conntrack entry: the flow's original direction, as its first datagram
// arrived, and the reply direction the node expects, which carries the NAT decision.
type Entry struct {
	// Orig is the original direction: client to the address it sent to.
	Orig Tuple
	// Reply is the direction answers come from. Reply.Src is where the node forwards the
	// flow's datagrams: the DNAT target, or Orig.Dst when no rule matched.
	Reply Tuple
	// SeenReply reports whether an answer has passed through the entry; conntrack(8) prints
	// an entry without one as [UNREPLIED].
	SeenReply bool
	// Assured reports whether the flow became a stream and lives for StreamTimeout.
	Assured bool
	// Start is when the flow's first datagram created the entry, on the node's clock.
	Start time.Duration
	// Expires is when the entry disappears unless a datagram refreshes it first.
	Expires time.Duration
}

// NATed reports whether the entry sends its flow somewhere other than where the client
// addressed it.
func (e Entry) NATed() bool { return e.Reply.Src != e.Orig.Dst }

// Format returns the entry as `conntrack -L` prints it at time now, without the fields the
// model has no use for (mark, use, zone):
//
//	udp      17 29 src=198.18.1.2 dst=198.18.1.1 sport=40000 dport=30080 [UNREPLIED] src=198.18.1.1 dst=198.18.1.2 sport=30080 dport=40000
func (e Entry) Format(now time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-8s %d %d %s", e.Orig.Protocol, protoNumber(e.Orig.Protocol), (e.Expires-now)/time.Second, e.Orig)
	if !e.SeenReply {
		b.WriteString(" [UNREPLIED]")
	}
	b.WriteString(" " + e.Reply.String())
	if e.Assured {
		b.WriteString(" [ASSURED]")
	}
	return b.String()
}

// protoNumber returns the IP protocol number conntrack(8) prints after the protocol's name.
func protoNumber(p conntrackorder.Protocol) int {
	switch p {
	case conntrackorder.TCP:
		return 6
	case conntrackorder.UDP:
		return 17
	case conntrackorder.SCTP:
		return 132
	}
	return 0
}

// A Rule is one DNAT rule of the node's nat table: a datagram of Protocol to Dst that starts a
// flow is sent to To. Dst is a Service's ClusterIP and port, or one of the node's addresses and
// a NodePort.
type Rule struct {
	Protocol conntrackorder.Protocol
	Dst      netip.AddrPort
	To       netip.AddrPort
}

// String returns the rule in iptables' words, e.g. "-d 198.18.1.1/32 -p udp --dport 30080 -j
// DNAT --to-destination 198.18.2.2:8080".
func (r Rule) String() string {
	return fmt.Sprintf("-d %s -p %s --dport %d -j DNAT --to-destination %s",
		netip.PrefixFrom(r.Dst.Addr(), r.Dst.Addr().BitLen()), r.Protocol, r.Dst.Port(), r.To)
}

// A Delivery is what happened to one datagram a client sent through the node.
type Delivery struct {
	// Entry is the flow's entry after the datagram and its answer, if any.
	Entry Entry
	// New reports whether the datagram created the entry, so that the rules installed at
	// that moment decided where its flow goes.
	New bool
	// Answered reports whether a pod received the datagram and its answer reached the client.
	Answered bool
}

// A Node is the model of one node's packet path: its conntrack table, its DNAT rules, the pods
// behind them and a fake clock that starts at zero.
//
// The zero value is a node at time zero with no rules, no pods and an empty table, ready to
// use; [NewNode] returns the same. A Node is not safe for concurrent use.
type Node struct {
	now   time.Duration
	rules []Rule
	flows map[Tuple]*Entry // by original tuple
	pods  map[netip.AddrPort]bool
}

// NewNode returns an empty node at time zero.
func NewNode() *Node { return &Node{} }

func (n *Node) init() {
	if n.flows == nil {
		n.flows = make(map[Tuple]*Entry)
		n.pods = make(map[netip.AddrPort]bool)
	}
}

// Now returns the node's clock: the time since the node was made, as moved by [Node.Advance].
func (n *Node) Now() time.Duration { return n.now }

// Advance moves the node's clock forward by d and removes every entry whose deadline has come:
// an entry refreshed at t is gone at t + its timeout. Advance panics if d is negative.
func (n *Node) Advance(d time.Duration) {
	if d < 0 {
		panic("packetpath: Advance with a negative duration")
	}
	n.now += d
	for orig, e := range n.flows {
		if e.Expires <= n.now {
			delete(n.flows, orig)
		}
	}
}

// SetRules replaces the node's rules with rules, all at once, as iptables-restore does. Entries
// already in the table are not touched: their flows keep the NAT decision they were created
// with. For a datagram that starts a flow, the first rule that matches wins.
func (n *Node) SetRules(rules ...Rule) {
	n.rules = slices.Clone(rules)
}

// Rules returns a copy of the rules installed now.
func (n *Node) Rules() []Rule { return slices.Clone(n.rules) }

// AddPod starts a pod that listens on addr and answers every datagram it receives.
func (n *Node) AddPod(addr netip.AddrPort) {
	n.init()
	n.pods[addr] = true
}

// Send passes one datagram of protocol p from src to dst through the node and returns what
// happened to it.
//
// The datagram follows the entry of its flow if there is one, and refreshes it. Otherwise it
// creates the entry, and the first rule that matches it now decides where the flow goes; with
// no rule, the flow goes to dst itself, unNATed. If a pod listens where the flow goes, the pod
// answers; the answer passes the same entry on its way back, which refreshes it and marks it
// as replied.
func (n *Node) Send(p conntrackorder.Protocol, src, dst netip.AddrPort) Delivery {
	n.init()
	orig := Tuple{Protocol: p, Src: src, Dst: dst}
	e, ok := n.flows[orig]
	if !ok {
		// The only moment the rules are consulted: the NAT decision is bound into the entry
		// and every later datagram of the flow follows the entry, whatever the rules say by
		// then (kubernetes#98305).
		to := dst
		if r, ok := n.match(orig); ok {
			to = r.To
		}
		e = &Entry{Orig: orig, Reply: Tuple{Protocol: p, Src: to, Dst: src}, Start: n.now}
		n.flows[orig] = e
	}
	n.refresh(e)
	answered := n.pods[e.Reply.Src]
	if answered {
		// The answer is the reply direction: refreshed like any datagram of the flow, and
		// the kernel marks the entry as replied only after refreshing it.
		n.refresh(e)
		e.SeenReply = true
	}
	return Delivery{Entry: *e, New: !ok, Answered: answered}
}

// match returns the first rule that catches a datagram starting the flow orig.
func (n *Node) match(orig Tuple) (Rule, bool) {
	for _, r := range n.rules {
		if r.Protocol == orig.Protocol && r.Dst == orig.Dst {
			return r, true
		}
	}
	return Rule{}, false
}

// refresh restarts the entry's timeout for a datagram of its flow, as the kernel's UDP
// tracker does: a flow that has seen replies and lived longer than StreamAfter becomes an
// assured stream with the long timeout; any other keeps the short one.
func (n *Node) refresh(e *Entry) {
	if e.SeenReply && n.now-e.Start > StreamAfter {
		e.Assured = true
	}
	if e.Assured {
		e.Expires = n.now + StreamTimeout
		return
	}
	e.Expires = n.now + UnrepliedTimeout
}

// Entries returns a copy of the table, ordered by original source, then destination.
func (n *Node) Entries() []Entry {
	out := make([]Entry, 0, len(n.flows))
	for _, e := range n.flows {
		out = append(out, *e)
	}
	slices.SortFunc(out, func(a, b Entry) int {
		return cmp.Or(a.Orig.Src.Compare(b.Orig.Src), a.Orig.Dst.Compare(b.Orig.Dst),
			cmp.Compare(a.Orig.Protocol, b.Orig.Protocol))
	})
	return out
}

// Conntrack returns the table as `conntrack -L` lists it now, one line per entry, in the order
// of [Node.Entries] (see [Entry.Format]).
func (n *Node) Conntrack() []string {
	entries := n.Entries()
	lines := make([]string, len(entries))
	for i, e := range entries {
		lines[i] = e.Format(n.now)
	}
	return lines
}

// Delete removes every entry that f selects, with the semantics of [conntrackorder.Filter]: a
// zero field matches anything, OrigDst is compared with the original destination address,
// DstPort with the original destination port and ReplySrc with the reply source address (the
// backend of a NATed flow). It returns the removed entries in the order of [Node.Entries].
// Delete does not validate f: a zero filter removes everything, as [Flusher] never lets it.
func (n *Node) Delete(f conntrackorder.Filter) []Entry {
	var gone []Entry
	for _, e := range n.Entries() {
		if matches(f, e) {
			delete(n.flows, e.Orig)
			gone = append(gone, e)
		}
	}
	return gone
}

func matches(f conntrackorder.Filter, e Entry) bool {
	return (f.Protocol == 0 || f.Protocol == e.Orig.Protocol) &&
		(!f.OrigDst.IsValid() || f.OrigDst == e.Orig.Dst.Addr()) &&
		(f.DstPort == 0 || f.DstPort == e.Orig.Dst.Port()) &&
		(!f.ReplySrc.IsValid() || f.ReplySrc == e.Reply.Src.Addr())
}
