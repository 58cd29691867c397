//go:build linux

package ctnetlink

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/vishvananda/netlink/nl"
	"go.uber.org/multierr"
	"golang.org/x/sys/unix"

	"github.com/safereconcile/safereconcile/conntrackorder"
)

// ErrClosed is returned by [Flusher.Flush] and [Flusher.Reconcile] after [Flusher.Close], and
// by a zero Flusher, when they would read the table. A call with nothing to match still
// returns nil, and one with an invalid plan its validation error.
var ErrClosed = errors.New("ctnetlink: flusher is closed")

// A Flusher deletes conntrack entries over two netlink sockets, bound to the network namespace
// it was created in: one reads the table, the other deletes entries while it is read. Each
// [Flusher.Flush] or [Flusher.Reconcile] reads the table once per address family it needs,
// message by message, and looks every entry up in sets built from the plan and the desired
// state.
//
// A Flusher is safe for concurrent use; calls are serialized. The zero value is closed: use
// [New].
type Flusher struct {
	mu   sync.Mutex
	dump *conn // reads the table; nil once closed
	del  *conn // deletes entries while dump is read

	// unfiltered is set once the kernel refused a dump's protocol filter, so that later
	// dumps do not ask again; tests set it to exercise the path of a kernel that ignores it.
	unfiltered bool
	// verdicts is the memory of judge.stale, kept between passes only for its storage.
	verdicts map[verdictKey]bool
	// judged counts the entries the latest Flush or Reconcile read, for tests to see what
	// the kernel filtered.
	judged int
}

var (
	_ conntrackorder.Flusher    = (*Flusher)(nil)
	_ conntrackorder.Reconciler = (*Flusher)(nil)
)

// New opens two netfilter netlink sockets in the network namespace of the calling thread.
// Opening needs no privilege. Flushing needs CAP_NET_ADMIN for that namespace in the thread
// that calls Flush: the kernel checks the sender of each request, so a socket opened without
// the capability works from a thread that has it (TestFlushWithoutCapNetAdmin).
// The caller must [Flusher.Close] it.
func New() (*Flusher, error) {
	dump, err := openConn()
	if err != nil {
		return nil, err
	}
	del, err := openConn()
	if err != nil {
		dump.close()
		return nil, err
	}
	return &Flusher{dump: dump, del: del}, nil
}

// Flush deletes every conntrack entry that matches any filter of plan, with the semantics of
// [conntrackorder.Filter]: a zero field matches anything, OrigDst is the original destination
// address, DstPort the original destination port and ReplySrc the backend the flow was DNATed
// to: the reply-direction source of an entry whose status says the kernel DNATed it
// (IPS_DST_NAT, or IPS_DST_NAT_DONE with a reply from another address, as conntrack(8)
// --dst-nat reads it), so that a flow a client sent to that address directly does not match. A filter without addresses applies to IPv4 and IPv6 flows, as
// conntrack(8) does without -f.
//
// An SCTP filter matches ports as a UDP or TCP filter does: the Flusher reads the ports of
// SCTP entries, which github.com/vishvananda/netlink v1.3.1's parser skips.
//
// Flush first checks the whole plan and returns an error without touching the table when a
// filter fails [conntrackorder.Filter.Validate], for example one that sets only the protocol
// and would delete every flow of it. An empty plan does nothing.
//
// ctx is checked before each table dump and between entries; when it is done, Flush stops
// deleting and returns an error wrapping ctx.Err(). A failed or cancelled Flush may have
// deleted part of the plan's entries; flushing the same plan again is harmless.
//
// Flush is Reconcile without a desired state.
func (f *Flusher) Flush(ctx context.Context, plan conntrackorder.Plan) error {
	return f.clear(ctx, "flush", plan, nil)
}

// Reconcile deletes every conntrack entry that desired contradicts
// ([conntrackorder.Desired.Contradicts]): UDP flows to a service address and port or a
// NodePort whose reply source is not a serving endpoint. It also deletes every entry that
// matches a filter of plan, as [Flusher.Flush] does, except the flows desired keeps
// ([conntrackorder.Desired.Keeps]): a flow to a current service IP and port NATed to one of
// its serving endpoints stays, although the filter for another service's lost NodePort of
// the same number selects it. It
// reads each address family's table once, for the plan and the desired state together, and
// only the families either needs ([conntrackorder.Desired.Families]); a nil desired
// contradicts nothing. A filter of plan that names no address, such as the one for a NodePort
// a deleted service had, applies to the entries of the node's families only
// ([conntrackorder.Desired.NodeFamilies]), where Flush applies it to both.
//
// The cost is linear: building the plan's sets costs the plan's size, and each entry of the
// table costs one lookup per filter shape in the plan (at most seven) and at most three for
// the desired state, whatever the number of filters and services. A pass remembers the
// verdict of each protocol, DNAT status, original destination and reply source it has
// judged, all that decides one, so that the entries of many clients of one endpoint cost
// one lookup each. The table is read message by message and never held: memory does not
// grow with the table (the remembered verdicts are at most 8,192, kept by the Flusher for
// its next pass). Deletes are sent in batches, one netlink round trip for many.
//
// Reconcile refuses a bad plan before it touches the table, like Flush. An empty plan with a
// desired state that contradicts nothing does nothing. ctx is handled as by Flush. When an
// entry cannot be deleted, Reconcile goes on with the others and returns an error for the
// failed ones; when an entry of the dump cannot be read, it returns an error rather than
// leave it unjudged. Either way the Syncer keeps the plan pending and retries.
func (f *Flusher) Reconcile(ctx context.Context, plan conntrackorder.Plan, desired *conntrackorder.Desired) error {
	return f.clear(ctx, "reconcile", plan, desired)
}

// clear is Flush and Reconcile; op names the operation in errors.
func (f *Flusher) clear(ctx context.Context, op string, plan conntrackorder.Plan, desired *conntrackorder.Desired) error {
	// Refuse a bad plan before the first delete: a partly applied plan would be retried whole
	// by the Syncer anyway, but a filter that cannot be applied must never look like a flush
	// that matched nothing (kubernetes#115299: SCTP clears were a silent no-op for years).
	idx, err := newIndex(plan)
	if err != nil {
		return err
	}
	families := idx.families(desired)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.judged = 0
	if len(families) == 0 {
		return nil // nothing can match
	}
	if f.dump == nil {
		// Never fall back to a fresh socket, as a closed netlink.Handle does: it would be in
		// the calling thread's namespace, which may be another node's table in a test.
		return ErrClosed
	}
	// When everything that can match is of one protocol (the UDP of a reconcile, most
	// often), the kernel sends only that protocol's entries: on a node, TCP entries outnumber
	// the UDP ones many times over.
	proto := dumpProtocol(idx, desired)
	for _, fam := range families {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("ctnetlink: %s %s table: %w", op, fam.name, err)
		}
		var filter []byte
		if proto != 0 && !f.unfiltered {
			filter = protocolFilter(proto)
		}
		judged, err := f.pass(ctx, fam, filter, idx, desired)
		if err != nil && filter != nil && judged == 0 && refusedFilter(err) {
			// A kernel that knows the filter attribute but not what it asks: dump
			// unfiltered, now and from now on, and judge every entry here.
			f.unfiltered = true
			judged, err = f.pass(ctx, fam, nil, idx, desired)
		}
		f.judged += judged
		if err != nil {
			return fmt.Errorf("ctnetlink: %s %s table: %w", op, fam.name, err)
		}
	}
	return nil
}

// pass reads the table of one address family, with the dump filter attributes filter (nil
// for none), and deletes the entries that match idx or that desired contradicts, while the
// dump is being read. It returns how many entries it read.
func (f *Flusher) pass(ctx context.Context, fam family, filter []byte, idx *index, desired *conntrackorder.Desired) (judged int, err error) {
	var (
		stopped    bool
		unreadable int
		failed     int
		deleteErr  error
		done       = ctx.Done()
	)
	seq, err := f.dump.send(nl.IPCTNL_MSG_CT_GET, unix.NLM_F_DUMP, fam.nl, filter)
	if err != nil {
		return 0, err
	}
	if f.verdicts == nil {
		f.verdicts = make(map[verdictKey]bool)
	}
	clear(f.verdicts) // the verdicts of the last pass, made with its own plan and state
	j := &judge{idx: idx, desired: desired, onNode: fam.node, verdicts: f.verdicts}
	deleted := func(n int, err error) {
		failed += n
		if deleteErr == nil {
			deleteErr = err
		}
	}
	// One dump per family and one matcher for the plan and the desired state: each entry
	// costs a few map lookups, so the pass costs entries + filters + services, not
	// entries × filters (kubernetes#135323). netlink v1.3.1's ConntrackDeleteFilters reads
	// the whole dump into memory before it matches anything, which is how kube-proxy's
	// reconciler reached 12 GB (kubernetes#129982); here each message is judged in the
	// receive buffer as it arrives, and nothing of it is kept.
	err = f.dump.receive(seq, func(msg []byte) {
		if stopped {
			return
		}
		select {
		case <-done:
			// Each match costs a delete; stop those, and read the rest of
			// the dump without judging it, so that the socket stays usable.
			stopped = true
			return
		default:
		}
		judged++
		e, ok := parseEntry(msg)
		if !ok {
			unreadable++
			return
		}
		if !j.stale(e) {
			return
		}
		// Delete on the second socket while the first is still being read, as conntrack(8)
		// -D does through a second handle: the kernel resumes a dump from an entry it has
		// not sent yet, so deleting entries it has sent skips none (TestReconcileLargeTable
		// checks it with thousands of deletes in a 100,000-entry dump). The deletes go in
		// batches, one round trip for many.
		if f.queueDelete(msg) {
			deleted(f.del.flush(gone))
		}
	})
	deleted(f.del.flush(gone))
	if stopped {
		return judged, ctx.Err()
	}
	if failed > 0 {
		err = multierr.Append(err, fmt.Errorf("delete %d entries: %w", failed, deleteErr))
	}
	if unreadable > 0 {
		err = multierr.Append(err, fmt.Errorf("%d entries could not be read, and were not judged", unreadable))
	}
	// err includes netlink's ErrDumpInterrupted: the entries seen were handled, but some may
	// have been missed, so the plan is not done and must stay pending.
	return judged, err
}

// queueDelete queues the delete of the entry a dump message describes, and reports whether the
// batch is full.
func (f *Flusher) queueDelete(msg []byte) (full bool) {
	// The message's family, not the dump's: it is the entry's own. Its attributes go back
	// as the kernel sent them: the tuple identifies the entry, and CTA_ID makes the kernel
	// refuse (ENOENT) if the tuple now belongs to a newer entry, one the current rules
	// created after this one was read.
	return f.del.queue(nl.IPCTNL_MSG_CT_DELETE, msg[0], msg[nl.SizeofNfgenmsg:])
}

// gone reports whether a delete failed only because the entry is gone already: it expired, or
// someone else deleted it. That is no error.
func gone(err error) bool { return errors.Is(err, unix.ENOENT) }

// Close closes the netlink sockets. Later calls to [Flusher.Flush] and [Flusher.Reconcile]
// that would read the table return [ErrClosed]. Close waits for a running call to finish; it always returns nil, and
// closing twice does nothing.
func (f *Flusher) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dump != nil {
		f.dump.close()
		f.del.close()
		f.dump, f.del = nil, nil
	}
	return nil
}
