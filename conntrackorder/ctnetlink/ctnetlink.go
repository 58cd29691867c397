//go:build linux

package ctnetlink

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"github.com/safereconcile/safereconcile/conntrackorder"
)

var (
	// ErrSCTPPort is wrapped by the error [Flusher.Flush] returns for a plan with an SCTP
	// filter that sets DstPort. github.com/vishvananda/netlink v1.3.1 parses ports for TCP and
	// UDP flows only and hands every SCTP flow to the matcher with port 0, so such a filter
	// would match nothing. The conntrack(8) backend matches SCTP ports.
	ErrSCTPPort = errors.New("ctnetlink: cannot match sctp ports, netlink v1.3.1 does not parse them (use ctexec)")

	// ErrClosed is returned by [Flusher.Flush] after [Flusher.Close], and by a zero Flusher.
	ErrClosed = errors.New("ctnetlink: flusher is closed")
)

// A Flusher deletes conntrack entries over one netlink socket, bound to the network namespace
// it was created in. Each [Flusher.Flush] dumps the table once per address family the plan
// needs and matches every entry against the whole plan through set lookups.
//
// A Flusher is safe for concurrent use; Flush calls are serialized. The zero value is closed:
// use [New].
type Flusher struct {
	mu sync.Mutex
	h  *netlink.Handle // nil once closed
}

var _ conntrackorder.Flusher = (*Flusher)(nil)

// New opens one netfilter netlink socket in the network namespace of the calling thread.
// Opening needs no privilege. Flushing needs CAP_NET_ADMIN for that namespace in the thread
// that calls Flush: the kernel checks the sender of each request (measured on Linux 6.18; a
// socket opened without the capability still worked from a thread that had it).
// The caller must [Flusher.Close] it.
func New() (*Flusher, error) {
	h, err := netlink.NewHandle(unix.NETLINK_NETFILTER)
	if err != nil {
		return nil, fmt.Errorf("ctnetlink: open netfilter netlink socket: %w", err)
	}
	return &Flusher{h: h}, nil
}

// Flush deletes every conntrack entry that matches any filter of plan, with the semantics of
// [conntrackorder.Filter]: a zero field matches anything, OrigDst is the original destination
// address, DstPort the original destination port and ReplySrc the reply-direction source (the
// backend the flow was NATed to). A filter without addresses applies to IPv4 and IPv6 flows,
// as conntrack(8) does without -f.
//
// Flush first checks the whole plan and returns an error without touching the table when a
// filter fails [conntrackorder.Filter.Validate] (for example one that sets only the protocol
// and would delete every flow of it) or is an SCTP filter with a port ([ErrSCTPPort]). An
// empty plan does nothing.
//
// ctx is checked before each table dump and between entries; when it is done, Flush stops
// deleting and returns an error wrapping ctx.Err(). A failed or cancelled Flush may have
// deleted part of the plan's entries; flushing the same plan again is harmless.
func (f *Flusher) Flush(ctx context.Context, plan conntrackorder.Plan) error {
	// Refuse a bad plan before the first delete: a partly applied plan would be retried whole
	// by the Syncer anyway, but a refused filter must never look like a flush that matched
	// nothing (kubernetes#115299: SCTP clears were a silent no-op for years).
	idx, err := newIndex(plan)
	if err != nil || len(plan) == 0 {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.h == nil {
		// A closed netlink.Handle would not fail: it falls back to a fresh socket in the
		// calling thread's namespace, which may be another node's table in a test.
		return ErrClosed
	}
	for _, fam := range idx.families() {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("ctnetlink: flush %s table: %w", fam.name, err)
		}
		// One dump per family and one filter for the whole plan: netlink calls
		// MatchConntrackFlow once per entry, and the index answers in a few map lookups,
		// so the pass costs entries + filters, not entries × filters (kubernetes#135323).
		m := &matcher{idx: idx, done: ctx.Done()}
		_, err := f.h.ConntrackDeleteFilters(netlink.ConntrackTable, fam.nl, m)
		if m.stopped {
			return fmt.Errorf("ctnetlink: flush %s table: %w", fam.name, ctx.Err())
		}
		if err != nil {
			// Includes netlink.ErrDumpInterrupted: the entries seen were deleted, but some
			// may have been missed, so the plan is not done and must stay pending.
			return fmt.Errorf("ctnetlink: flush %s table: %w", fam.name, err)
		}
	}
	return nil
}

// Close closes the netlink socket. Later calls to [Flusher.Flush] return [ErrClosed]. Close
// waits for a running Flush to finish; it always returns nil, and closing twice does nothing.
func (f *Flusher) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.h != nil {
		f.h.Close()
		f.h = nil
	}
	return nil
}

// matcher is the one netlink.CustomConntrackFilter of a table pass. It stops matching once
// the flush's context is done, so that a cancelled flush deletes nothing more.
type matcher struct {
	idx     *index
	done    <-chan struct{}
	stopped bool
}

// MatchConntrackFlow reports whether flow matches any filter of the plan.
func (m *matcher) MatchConntrackFlow(flow *netlink.ConntrackFlow) bool {
	if m.stopped {
		return false
	}
	select {
	case <-m.done:
		// Each match costs a delete round trip; stop those, and let the dump's remaining
		// entries go by without further work.
		m.stopped = true
		return false
	default:
	}
	return m.idx.match(flow)
}
