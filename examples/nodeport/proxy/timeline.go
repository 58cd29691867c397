package proxy

import (
	"context"
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/examples/nodeport/packetpath"
)

// mark points at a line where the old shape goes wrong; the timeline computes where, from the
// rules programmed so far, so that a shape that stops making the mistake loses its marks.
const mark = "<-"

// A timeline writes the lines of one [Play], each stamped with the Datapath's clock, in at
// most 100 columns for the scenario's addresses. It folds identical consecutive rounds into
// one line, and knows the rules programmed last, for its marks.
type timeline struct {
	w     io.Writer
	now   func() time.Duration
	err   error             // the first write error
	rules []packetpath.Rule // installed by the last successful program

	last    string        // the last round printed
	repeats int           // rounds like last not printed yet
	firstAt time.Duration // when the first of them was sent
	lastAt  time.Duration // when the last of them was sent
}

func (t *timeline) printf(format string, args ...any) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.w, format, args...)
	}
}

// line prints text after the time column, which holds stamp.
func (t *timeline) line(stamp, text string) {
	t.printf("%s\n", strings.TrimRight(fmt.Sprintf("%-9s %s", stamp, text), " "))
}

// round prints one round of datagrams sent at, or folds it into the last one.
func (t *timeline) round(at time.Duration, text string) {
	if text == t.last {
		if t.repeats == 0 {
			t.firstAt = at
		}
		t.repeats++
		t.lastAt = at
		return
	}
	t.fold()
	t.last = text
	t.line("t="+seconds(at), text)
}

// fold prints the rounds that were folded into the last one.
func (t *timeline) fold() {
	if t.repeats == 0 {
		return
	}
	span := seconds(t.firstAt)
	if t.repeats > 1 {
		span += "-" + seconds(t.lastAt)
	}
	plural := "s"
	if t.repeats == 1 {
		plural = ""
	}
	t.line("t="+span, fmt.Sprintf("the same, %d more time%s", t.repeats, plural))
	t.repeats = 0
}

// event prints something that happens now.
func (t *timeline) event(format string, args ...any) {
	t.fold()
	t.last = ""
	t.line("t="+seconds(t.now()), fmt.Sprintf(format, args...))
}

// detail prints a line that belongs to the last event.
func (t *timeline) detail(format string, args ...any) {
	t.fold()
	t.last = ""
	t.line("", "  "+fmt.Sprintf(format, args...))
}

// conntrack prints the node's table, an entry a line, and marks the stale entries.
func (t *timeline) conntrack(ctx context.Context, dp Datapath) error {
	lines, err := dp.Conntrack(ctx)
	if err != nil {
		return err
	}
	noun := "entries"
	if len(lines) == 1 {
		noun = "entry"
	}
	t.detail("conntrack: %d %s", len(lines), noun)
	for _, l := range lines {
		e, ok := parseEntry(l)
		if !ok {
			t.detail("  %s", strings.TrimSpace(l)) // as listed: the timeline cannot read it
			continue
		}
		text := e.String()
		if t.stale(e) {
			text += "  " + mark + " stale"
		}
		t.detail("  %s", text)
	}
	return nil
}

// stale reports whether e follows no rule although a rule for the destination its client sent
// to exists now: the entry was made before the rule and keeps its flow away from it.
func (t *timeline) stale(e entry) bool {
	if e.NATed() {
		return false
	}
	for _, r := range t.rules {
		if r.Protocol.String() == e.proto && r.Dst == e.origDst {
			return true
		}
	}
	return false
}

// tooEarly returns the mark for a plan that deletes entries by their destination before any
// rule for that destination exists: the next datagram re-creates the entry, unNATed. It
// returns "" for a plan without such a filter. A filter by ReplySrc (the backend a flow was
// NATed to) is meant to follow the removal of its rules, and is never marked.
func (t *timeline) tooEarly(plan conntrackorder.Plan) string {
	var early []string
	for _, f := range plan {
		if f.ReplySrc.IsValid() || (!f.OrigDst.IsValid() && f.DstPort == 0) {
			continue
		}
		if !t.hasRule(f) {
			early = append(early, f.String())
		}
	}
	switch {
	case len(early) == 0:
		return ""
	case len(early) == len(plan):
		return "  " + mark + " too early: no rule for it yet"
	}
	return "  " + mark + " too early: no rule yet for " + strings.Join(early, ", ")
}

// hasRule reports whether a rule programmed now catches the datagrams f selects.
func (t *timeline) hasRule(f conntrackorder.Filter) bool {
	for _, r := range t.rules {
		if (f.Protocol == 0 || f.Protocol == r.Protocol) &&
			(!f.OrigDst.IsValid() || f.OrigDst == r.Dst.Addr()) &&
			(f.DstPort == 0 || f.DstPort == r.Dst.Port()) {
			return true
		}
	}
	return false
}

// An entry is one line of `conntrack -L`, as far as the timeline prints it.
type entry struct {
	proto     string // "udp"
	timeout   string // seconds left, as listed
	origSrc   netip.AddrPort
	origDst   netip.AddrPort // where the client sent the flow
	replySrc  netip.AddrPort // where the node sends it: origDst unless NATed
	unreplied bool
	assured   bool
}

// parseEntry reads a line of `conntrack -L`, the model's or the kernel's:
//
//	udp      17 29 src=198.18.1.2 dst=198.18.1.1 sport=40000 dport=30080 [UNREPLIED] src=198.18.1.1 dst=198.18.1.2 sport=30080 dport=40000 mark=0 use=1
//
// The first src, dst, sport and dport are the original direction, the second the reply;
// fields it has no use for (a TCP state, mark, use, zone) are skipped. It reports false for a
// line without both directions.
func parseEntry(line string) (entry, bool) {
	f := strings.Fields(line)
	if len(f) < 3 {
		return entry{}, false
	}
	e := entry{proto: f[0], timeout: f[2]}
	var addr [2][2]netip.Addr // [original, reply][src, dst]
	var port [2][2]uint16
	dir := -1
	for _, tok := range f[3:] {
		switch tok {
		case "[UNREPLIED]":
			e.unreplied = true
			continue
		case "[ASSURED]":
			e.assured = true
			continue
		}
		k, v, ok := strings.Cut(tok, "=")
		if !ok {
			continue
		}
		if k == "src" {
			dir++
		}
		if dir < 0 || dir > 1 {
			return entry{}, false
		}
		var err error
		switch k {
		case "src":
			addr[dir][0], err = netip.ParseAddr(v)
		case "dst":
			addr[dir][1], err = netip.ParseAddr(v)
		case "sport":
			port[dir][0], err = parsePort(v)
		case "dport":
			port[dir][1], err = parsePort(v)
		}
		if err != nil {
			return entry{}, false
		}
	}
	if dir != 1 || !addr[0][0].IsValid() || !addr[0][1].IsValid() || !addr[1][0].IsValid() {
		return entry{}, false
	}
	e.origSrc = netip.AddrPortFrom(addr[0][0], port[0][0])
	e.origDst = netip.AddrPortFrom(addr[0][1], port[0][1])
	e.replySrc = netip.AddrPortFrom(addr[1][0], port[1][0])
	return e, true
}

func parsePort(s string) (uint16, error) {
	n, err := strconv.ParseUint(s, 10, 16)
	return uint16(n), err
}

// NATed reports whether the node sends the flow somewhere other than where its client sent it.
func (e entry) NATed() bool { return e.replySrc != e.origDst }

// String returns the entry in fixed columns, so that the same entry reads the same in every
// listing: "udp  30s 198.18.1.2:40000 > 198.18.1.1:30080  [UNREPLIED] not NATed".
func (e entry) String() string {
	flags := ""
	switch {
	case e.unreplied:
		flags = "[UNREPLIED]"
	case e.assured:
		flags = "[ASSURED]"
	}
	to := "not NATed"
	if e.NATed() {
		to = "to " + e.replySrc.String()
	}
	return fmt.Sprintf("%-3s %4s %-35s %-11s %s", e.proto, e.timeout+"s", e.origSrc.String()+" > "+e.origDst.String(), flags, to)
}

// seconds formats d as seconds with up to millisecond precision: "0.5s", "2.486s", "65s".
func seconds(d time.Duration) string {
	ms := d.Round(time.Millisecond).Milliseconds()
	s := strconv.FormatInt(ms/1000, 10)
	if frac := ms % 1000; frac != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%03d", frac), "0")
	}
	return s + "s"
}
