package lease

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrInProgress is wrapped by the error of a [Lease.Release] called from inside that lease's
// own release function: the release has not finished, so its outcome is not known yet.
var ErrInProgress = errors.New("lease: release in progress")

// A Lease is a hold on an external resource for a bounded lifetime.
//
// The zero Lease is not usable; create one with [New]. A Lease must not be copied after first
// use. Its methods are safe for concurrent use.
type Lease[T any] struct {
	name    string
	value   T
	release func(ctx context.Context, value T) error

	// attempt is held for the whole of one call of the release function, so that two calls
	// never overlap. It is taken before mu, never while holding it, and only by Release.
	attempt sync.Mutex

	mu       sync.Mutex // guards the fields below
	state    State
	inFlight bool   // the release function is running
	keep     bool   // Keep was called while it ran: keep the resource if the release fails
	tries    uint64 // completed calls of the release function
	lastErr  error  // the result of the latest call, as Release returned it

	// first is the context of the first call of the release function, kept here to save an
	// allocation on the path every lease takes. Written once, before that call; later calls
	// allocate their own, since the release function may have left work that still reads it.
	first afterFuncCtx
}

// New returns a [Held] lease on value, named name, that release gives back.
//
// The name identifies the resource in errors, in a [Ledger] and in metrics. Name a lease
// "<kind>/<id>": kind is a short lowercase noun for the sort of resource ("address",
// "forwarding-rule"), and id is the name the external system knows this one by
// ("address/k8s-ilb-a1b2"). The id lets a retry or a person find an orphan again, and
// [OrphanError.Kind] reads the kind back for a low-cardinality label.
//
// New panics with a message starting with "lease:" when release is nil: a lease that cannot
// be released is a programming error.
func New[T any](name string, value T, release func(ctx context.Context, value T) error) *Lease[T] {
	if release == nil {
		panic(fmt.Sprintf("lease: New(%q) with a nil release function", name))
	}
	return &Lease[T]{name: name, value: value, release: release, state: Held}
}

// Name returns the name the lease was created with.
func (l *Lease[T]) Name() string { return l.name }

// Value returns the leased value. It stays available in every state, so that a caller can
// still report or retry an orphan.
func (l *Lease[T]) Value() T { return l.value }

// State returns the lease's current state. While a release is in progress the state is the one
// before it ([Held] or [Orphaned]) until the release function returns.
func (l *Lease[T]) State() State {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.state
}

// Release gives the resource back by calling the release function with ctx and the value.
//
// After a successful Release, and after [Lease.Keep], Release does nothing and returns nil.
// When the release function fails, Release returns an [*OrphanError] wrapping its error and
// the lease becomes [Orphaned]; a later Release tries again. A Release that finds another in
// progress waits for it, however long the other's context allows, and returns that call's
// result instead of calling the release function a second time. When the release function
// panics, the lease becomes Orphaned (the resource's fate is unknown) and the panic continues.
//
// The release function may call the lease's methods. A Release from inside it, with the
// context it was given or one derived from it, returns at once an error wrapping
// [ErrInProgress]: it does not wait for itself, does not call the release function again, and
// does not claim an outcome that is not known yet (the outer call returns that). A Release
// there under an unrelated context, such as [context.Background], cannot be told from another
// goroutine's: it waits for the release in progress, which is itself, and never returns.
//
// ctx bounds the release function only. Pass a context that is not already cancelled, and has
// a deadline: a release usually runs because the operation that acquired the resource ended,
// often through its own cancellation (see [context.WithoutCancel]). Release panics with a
// message starting with "lease:", before changing anything, when ctx is nil.
func (l *Lease[T]) Release(ctx context.Context) error {
	if ctx == nil {
		// Before anything changes: the release function would fail on it far from the cause,
		// and leave the lease Orphaned.
		panic(fmt.Sprintf("lease: Release(%q) with a nil context", l.name))
	}
	l.mu.Lock()
	if l.state == Released || l.state == Kept {
		l.mu.Unlock()
		return nil
	}
	if l.inFlight && ctx.Value(releasingKey{l}) != nil {
		// Called from inside the release function, with the context it was given: waiting for
		// the attempt would wait for ourselves, and running the function again would release
		// twice. The outcome is the outer call's to report; this one says it is not known yet.
		l.mu.Unlock()
		return fmt.Errorf("release %s from its own release function: %w", l.name, ErrInProgress)
	}
	seen := l.tries
	l.mu.Unlock()

	l.attempt.Lock()
	defer l.attempt.Unlock()

	l.mu.Lock()
	if l.tries != seen || l.state == Released || l.state == Kept {
		// Another call finished an attempt (or Keep ran) while this one waited: that call was
		// the winner of the race, and this one reports its result rather than releasing twice.
		err := l.lastErr
		if l.state == Kept {
			err = nil
		}
		l.mu.Unlock()
		return err
	}
	l.inFlight = true
	l.mu.Unlock()

	// The release function runs without mu held, so State, Value and Keep stay answerable
	// while a slow cloud call is in flight, and the release function may call them itself;
	// the attempt lock alone keeps two calls from overlapping.
	returned := false
	defer func() {
		if !returned {
			l.finish(false, nil) // the release function panicked or called runtime.Goexit
		}
	}()
	c := &l.first
	if seen > 0 {
		c = new(afterFuncCtx)
	}
	err := l.release(c.mark(ctx, l), l.value)
	returned = true
	return l.finish(true, err)
}

// releasingKey{l} is answered by the context l's release function runs under, and by every
// context derived from it, so that a Release from inside it is recognised.
type releasingKey struct{ lease any }

// releasingCtx is ctx marked as the context of one call of lease's release function.
type releasingCtx struct {
	context.Context
	lease any
}

func (c *releasingCtx) Value(key any) any {
	if k, ok := key.(releasingKey); ok && k.lease == c.lease {
		return true
	}
	return c.Context.Value(key)
}

// afterFuncCtx is a releasingCtx whose parent implements AfterFunc, the method package context
// uses to propagate cancellation to a derived context without starting a goroutine. Forwarding
// it keeps that saving for contexts the release function derives.
type afterFuncCtx struct{ releasingCtx }

type afterFuncer interface {
	AfterFunc(func()) func() bool
}

func (c *afterFuncCtx) AfterFunc(f func()) func() bool {
	return c.Context.(afterFuncer).AfterFunc(f)
}

// mark makes c the context of a call of lease's release function under ctx, and returns it
// with the AfterFunc method only when ctx has one: claiming it for a ctx without would take
// from the context package the ways it has of its own.
func (c *afterFuncCtx) mark(ctx context.Context, lease any) context.Context {
	c.releasingCtx = releasingCtx{Context: ctx, lease: lease}
	if _, ok := ctx.(afterFuncer); ok {
		return c
	}
	return &c.releasingCtx
}

// finish records the end of one call of the release function and returns what Release
// returns for it. returned is false when the function panicked or called runtime.Goexit.
func (l *Lease[T]) finish(returned bool, err error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inFlight = false
	l.tries++
	switch {
	case returned && err == nil:
		l.state, l.lastErr = Released, nil
	case l.keep:
		// Keep arrived while the release ran, and the release did not happen: the resource
		// still exists and is now the caller's.
		l.state, l.lastErr = Kept, nil
	case returned:
		l.state, l.lastErr = Orphaned, &OrphanError{Name: l.name, Err: err}
	default:
		l.state, l.lastErr = Orphaned, &OrphanError{Name: l.name, Err: errReleaseAborted}
	}
	return l.lastErr
}

// Keep hands the resource to the caller for good: the lease becomes [Kept] and a later
// [Lease.Release] is a no-op that returns nil. Keep after a successful Release does nothing.
//
// Keep is for a resource of yours that outlives the lease: the operation made it part of its
// result (the acquire package keeps a Tentative of a scope that succeeded), or a longer-lived
// owner takes it over. It is not the way to spare a resource that is not yours, such as an
// address a user reserved: do not lease that at all. A lease made and then kept leaves a window
// between the two in which an early return or a panic releases it, deleting a customer's
// resource (kubernetes#20663).
//
// Keep never blocks. While a release is in progress, Keep only takes effect if that release
// fails: a resource that was released cannot be kept, and the lease becomes [Released]; one
// that was not becomes Kept instead of Orphaned, and that Release returns nil.
func (l *Lease[T]) Keep() {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.state != Held && l.state != Orphaned:
	case l.inFlight:
		l.keep = true
	default:
		l.state = Kept
	}
}

// String returns the lease's name and state, for messages.
func (l *Lease[T]) String() string {
	return fmt.Sprintf("%s (%s)", l.name, l.State())
}
