package conntrackorder

import (
	"context"
	"fmt"
)

// A Syncer programs the forwarding rules and then flushes the filters a [Tracker] collected,
// in that order.
//
// Use [NewSyncer]; the zero value is not usable. A Syncer is safe for concurrent use: Sync
// calls run one at a time.
type Syncer struct {
	tracker *Tracker
	program func(ctx context.Context) error
	flusher Flusher
	running chan struct{} // holds a token while a Sync runs
}

// NewSyncer returns a Syncer that flushes the filters t collects with f, each time after
// program has installed the forwarding rules.
//
// program must install rules for a state at least as new as every change reported to t before
// Sync called it: record a change in the state program reads before reporting it to t. A
// filter collected for a change that program has not installed yet would be flushed too early.
//
// NewSyncer panics if t, program or f is nil.
func NewSyncer(t *Tracker, program func(ctx context.Context) error, f Flusher) *Syncer {
	if t == nil || program == nil || f == nil {
		panic("conntrackorder: NewSyncer needs a tracker, a program function and a flusher")
	}
	return &Syncer{tracker: t, program: program, flusher: f, running: make(chan struct{}, 1)}
}

// Sync takes a snapshot of the pending plan, calls program, and, only if program succeeded
// and the snapshot is not empty, calls Flush with the snapshot. Filters that Flush applied
// are no longer pending.
//
// If program or Flush fails, Sync returns the error, wrapped, and the snapshot stays pending
// together with whatever was collected in the meantime, so the next successful Sync flushes
// it after programming again. Changes reported to the Tracker while Sync runs are flushed by a
// later Sync, even a filter that is also in the snapshot.
//
// Sync waits for a running Sync to return first; if ctx is done before then, it returns
// ctx's error and does nothing. ctx is passed to program and Flush.
func (s *Syncer) Sync(ctx context.Context) error {
	select {
	case s.running <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("conntrackorder: wait for the running sync: %w", ctx.Err())
	}
	defer func() { <-s.running }()

	// Snapshot before programming: every filter in it was collected for a change that the
	// state program reads already holds, so once program returns, the rules that NAT new
	// flows for that change are in place, and a flow deleted by the flush is re-created
	// through them. A filter collected after this line may describe a change program did not
	// see; it waits for the next Sync (kubernetes#98305: flush before the rules exist and one
	// datagram in between re-creates the stale entry).
	plan, mark := s.tracker.snapshot()

	if err := s.program(ctx); err != nil {
		// Nothing is removed from the tracker until a flush succeeded, so the snapshot stays
		// pending. kube-proxy dropped the collected changes when iptables-restore failed, and
		// nothing cleared those entries again (kubernetes#112604).
		return fmt.Errorf("conntrackorder: program: %w", err)
	}
	if len(plan) == 0 {
		return nil
	}
	// Hand Flush its own copy: the tracker removes exactly the snapshot's filters afterwards,
	// whatever Flush does with its slice.
	if err := s.flusher.Flush(ctx, append(Plan(nil), plan...)); err != nil {
		// A failed flush may have applied part of the plan; the whole snapshot stays pending
		// and is flushed again, which deletes nothing twice.
		return fmt.Errorf("conntrackorder: flush: %w", err)
	}
	s.tracker.flushed(plan, mark)
	return nil
}
