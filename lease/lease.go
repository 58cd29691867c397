package lease

import (
	"context"
	"fmt"
	"sync"
)

// A Lease is a hold on an external resource for a bounded lifetime.
//
// The zero Lease is not usable; create one with [New]. A Lease must not be copied after first
// use. Its methods are safe for concurrent use.
type Lease[T any] struct {
	name    string
	value   T
	release func(ctx context.Context, value T) error

	// attempt is held for the whole of one call of the release function, so that two calls
	// never overlap. It is taken before mu, never while holding it.
	attempt sync.Mutex

	mu      sync.Mutex // guards the fields below
	state   State
	tries   uint64 // completed calls of the release function
	lastErr error  // the result of the latest call, as Release returned it
}

// New returns a [Held] lease on value, named name, that release gives back.
//
// The name identifies the resource in errors and in a [Ledger]; use the name the external
// system knows it by, so that an orphan can be found again. New panics with a message starting
// with "lease:" when release is nil: a lease that cannot be released is a programming error.
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
// result instead of calling the release function a second time.
//
// ctx bounds the release function only. Pass a context that is not already cancelled: a
// release usually runs because the operation that acquired the resource ended, often through
// its own cancellation (see [context.WithoutCancel]).
func (l *Lease[T]) Release(ctx context.Context) error {
	l.mu.Lock()
	if l.state == Released || l.state == Kept {
		l.mu.Unlock()
		return nil
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
	l.mu.Unlock()

	// The release function runs without mu held, so State and Value stay answerable while a
	// slow cloud call is in flight; the attempt lock alone keeps two calls from overlapping.
	err := l.callRelease(ctx)

	l.mu.Lock()
	defer l.mu.Unlock()
	l.tries++
	if err != nil {
		l.state = Orphaned
		l.lastErr = &OrphanError{Name: l.name, Err: err}
		return l.lastErr
	}
	l.state = Released
	l.lastErr = nil
	return nil
}

// callRelease runs the release function and turns a panic in it into an error, so that a
// panicking release leaves the lease Orphaned (the resource's fate is unknown) instead of
// wedging it; the panic then continues, so the bug is not hidden.
func (l *Lease[T]) callRelease(ctx context.Context) (err error) {
	done := false
	defer func() {
		if !done {
			l.mu.Lock()
			l.tries++
			l.state = Orphaned
			l.lastErr = &OrphanError{Name: l.name, Err: errReleasePanicked}
			l.mu.Unlock()
		}
	}()
	err = l.release(ctx, l.value)
	done = true
	return err
}

// Keep hands the resource to the caller for good: the lease becomes [Kept] and a later
// [Lease.Release] is a no-op that returns nil. Keep after a successful Release does nothing.
// Keep waits for a release in progress to finish, so its effect is never lost in a race: if
// that release succeeded the lease stays [Released].
func (l *Lease[T]) Keep() {
	l.attempt.Lock()
	defer l.attempt.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.state == Held || l.state == Orphaned {
		l.state = Kept
	}
}

// String returns the lease's name and state, for messages.
func (l *Lease[T]) String() string {
	return fmt.Sprintf("%s (%s)", l.name, l.State())
}
