package conntrackordertest

import (
	"context"
	"sync"

	"github.com/safereconcile/safereconcile/conntrackorder"
)

// A Flusher is a [conntrackorder.Flusher] and a [conntrackorder.Reconciler] that deletes
// nothing and records every plan and desired state it is given, and can be told to fail.
//
// The zero value is ready to use, and so is the result of [New]. A Flusher is safe for
// concurrent use.
type Flusher struct {
	mu       sync.Mutex
	calls    []Call
	failN    int
	failErr  error
	failFunc func(ctx context.Context, plan conntrackorder.Plan) error
}

var (
	_ conntrackorder.Flusher    = (*Flusher)(nil)
	_ conntrackorder.Reconciler = (*Flusher)(nil)
)

// A Call is one call of [Flusher.Flush] or [Flusher.Reconcile]: the plan it was given, the
// desired state given to Reconcile, and what it returned.
type Call struct {
	Plan conntrackorder.Plan
	// Desired is the desired state given to Reconcile; nil for a call of Flush. It is
	// immutable; ask it what a real backend would have deleted whatever the plan
	// ([conntrackorder.Desired.Contradicts]), and kept although the plan selects it
	// ([conntrackorder.Desired.Keeps]).
	Desired *conntrackorder.Desired
	Err     error // nil when the call succeeded
}

// New returns a Flusher that succeeds until told otherwise.
func New() *Flusher {
	return &Flusher{}
}

// Flush records a copy of plan and returns, in this order of precedence: ctx's error when ctx
// is done; the error given to [Flusher.FailNext] while that count lasts; the result of the
// function given to [Flusher.FailWith]; nil. Every call is recorded, also a failed one.
func (f *Flusher) Flush(ctx context.Context, plan conntrackorder.Plan) error {
	return f.record(ctx, plan, nil)
}

// Reconcile records a copy of plan, and desired, and returns what [Flusher.Flush] would
// return for plan: ctx's error when ctx is done; the error given to [Flusher.FailNext] while
// that count lasts; the result of the function given to [Flusher.FailWith], which sees plan;
// nil. Every call is recorded, also a failed one.
func (f *Flusher) Reconcile(ctx context.Context, plan conntrackorder.Plan, desired *conntrackorder.Desired) error {
	return f.record(ctx, plan, desired)
}

// record records one call of Flush (desired is nil) or Reconcile.
func (f *Flusher) record(ctx context.Context, plan conntrackorder.Plan, desired *conntrackorder.Desired) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	var err error
	switch {
	case ctx.Err() != nil:
		err = ctx.Err()
	case f.failN > 0:
		f.failN--
		err = f.failErr
	case f.failFunc != nil:
		err = f.failFunc(ctx, plan)
	}
	f.calls = append(f.calls, Call{Plan: clonePlan(plan), Desired: desired, Err: err})
	return err
}

// FailNext makes the next n calls of Flush or Reconcile return err. It replaces an earlier FailNext that
// has not run out; n <= 0 cancels it. FailNext panics if n > 0 and err is nil.
func (f *Flusher) FailNext(n int, err error) {
	if n > 0 && err == nil {
		panic("conntrackordertest: FailNext needs an error")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failN, f.failErr = n, err
}

// FailWith makes every later call of Flush or Reconcile that [Flusher.FailNext] does not fail
// return fn(ctx, plan); fn decides per call, for example from the plan or a counter. fn runs
// with the Flusher's lock held and must not call its methods. A nil fn restores success.
func (f *Flusher) FailWith(fn func(ctx context.Context, plan conntrackorder.Plan) error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failFunc = fn
}

// Calls returns a copy of every call of Flush and Reconcile so far, in the order they
// happened.
func (f *Flusher) Calls() []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	calls := make([]Call, len(f.calls))
	for i, c := range f.calls {
		calls[i] = Call{Plan: clonePlan(c.Plan), Desired: c.Desired, Err: c.Err}
	}
	return calls
}

// Flushed returns a copy of the plans of the calls that succeeded, Flush and Reconcile alike,
// in order: what a real backend would have deleted by filter. A Reconcile also deleted what
// its [Call.Desired] contradicts, and kept the flows of its plan that Call.Desired keeps.
func (f *Flusher) Flushed() []conntrackorder.Plan {
	f.mu.Lock()
	defer f.mu.Unlock()
	var plans []conntrackorder.Plan
	for _, c := range f.calls {
		if c.Err == nil {
			plans = append(plans, clonePlan(c.Plan))
		}
	}
	return plans
}

// Reset forgets the recorded calls. It keeps what FailNext and FailWith set.
func (f *Flusher) Reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = nil
}

func clonePlan(p conntrackorder.Plan) conntrackorder.Plan {
	if p == nil {
		return nil
	}
	return append(conntrackorder.Plan(nil), p...)
}
