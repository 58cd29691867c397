package acquire

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// A detachedCtx is what context.WithoutCancel(parent) gives: parent's values, and no
// deadline or cancellation. A Scope holds one, so that its releases and OnOrphan get it
// without an allocation; context.WithoutCancel allocates once per call and once more per
// Value call that goes through it.
type detachedCtx struct{ parent context.Context }

func (c *detachedCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c *detachedCtx) Done() <-chan struct{}       { return nil }
func (c *detachedCtx) Err() error                  { return nil }
func (c *detachedCtx) String() string              { return "acquire.detachedContext" }

// Value returns parent's value for key, except for the key by which package context finds the
// canceller a context derives from: with it context.Cause would report the operation's
// cancellation as a release's, and that is what WithoutCancel hides too.
func (c *detachedCtx) Value(key any) any {
	if key == cancellerKey {
		return nil
	}
	return c.parent.Value(key)
}

// cancellerKey is the Value key by which package context looks up the canceller a context
// derives from (context.Cause asks for it of a context that is done, and WithCancel when it
// registers with its parent). The key is unexported, so it is read off the one call that asks
// for it, and taken only when a cancellable context answers it and Background does not.
// Otherwise it is nil, and newScope detaches with context.WithoutCancel instead.
var cancellerKey = func() any {
	var k any
	_ = context.Cause(keyProbe{&k})
	c, cancel := context.WithCancel(context.Background())
	defer cancel()
	if k == nil || c.Value(k) == nil || context.Background().Value(k) != nil {
		return nil
	}
	return k
}()

// keyProbe is a cancelled context that records the first key its Value is asked for.
type keyProbe struct{ key *any }

func (keyProbe) Deadline() (time.Time, bool) { return time.Time{}, false }
func (keyProbe) Done() <-chan struct{}       { return closedChan }
func (keyProbe) Err() error                  { return context.Canceled }
func (p keyProbe) Value(key any) any {
	if *p.key == nil {
		*p.key = key
	}
	return nil
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// A releaseCtx is the context one release runs under. It is what
// context.WithTimeout(context.WithoutCancel(ctx), d) would give, cancelled when the release
// returns as that call's deferred cancel would be, but it costs nothing until something waits
// for it: a release that never looks at its context allocates nothing for it, and one that
// derives a context, as every cloud SDK call does, pays for one channel and one timer.
//
// It is safe for concurrent use, and it stays valid after the release returns (it is then
// done), so a release may hand it to a goroutine of its own.
type releaseCtx struct {
	parent   context.Context // the scope's detached context: its values, none of its cancellation
	deadline time.Time

	state   atomic.Uint32 // notDone, canceled or expired; set once, under mu
	hasDone atomic.Bool   // done is made; set under mu, after done
	done    chan struct{} // made by the first Done; read without mu only after hasDone

	mu    sync.Mutex
	timer *time.Timer // closes done at the deadline; started with done
	after []afterFunc // AfterFunc's functions still waiting
	first [1]afterFunc
	seq   uint64 // numbers AfterFunc's registrations, so that a stale stop finds nothing
}

const (
	notDone uint32 = iota
	canceled
	expired
)

type afterFunc struct {
	id uint64
	f  func()
}

// start readies c for a release that begins now and lasts at most d.
func (c *releaseCtx) start(parent context.Context, d time.Duration) {
	c.parent = parent
	c.deadline = time.Now().Add(d)
}

// Deadline returns the release's deadline: it ignores the scope's, which the release outlives.
func (c *releaseCtx) Deadline() (time.Time, bool) { return c.deadline, true }

// Value returns the scope's value for key.
func (c *releaseCtx) Value(key any) any { return c.parent.Value(key) }

// Err returns context.Canceled after the release returned and context.DeadlineExceeded after
// the deadline. Without a Done channel, nothing closes at the deadline, so Err reads the
// clock; with one, Err agrees with it, as the context package requires.
func (c *releaseCtx) Err() error {
	switch c.state.Load() {
	case canceled:
		return context.Canceled
	case expired:
		return context.DeadlineExceeded
	}
	if !c.hasDone.Load() && !time.Now().Before(c.deadline) {
		c.cancel(expired)
		return c.Err() // the release may have returned first
	}
	return nil
}

// Done returns a channel closed at the deadline or when the release returns. The first call
// makes it and starts the timer; no goroutine is involved.
func (c *releaseCtx) Done() <-chan struct{} {
	if c.hasDone.Load() {
		return c.done
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		c.done = make(chan struct{})
		if c.state.Load() != notDone {
			close(c.done)
		} else {
			c.timer = time.AfterFunc(time.Until(c.deadline), c.expire)
		}
		c.hasDone.Store(true)
	}
	return c.done
}

// AfterFunc arranges for f to run once c is done, and returns a function that cancels that
// unless it has happened. It is the method package context looks for on a parent: with it,
// a context derived from c (context.WithTimeout(ctx, …) in an SDK call) is cancelled with c
// without a goroutine to wait for c's Done. f runs on the goroutine that ends c, after c is
// done; f must not block (the context package's own f only cancels the derived context).
func (c *releaseCtx) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	if c.state.Load() != notDone {
		c.mu.Unlock()
		// As context.AfterFunc does: the caller may hold a lock that f takes (the context
		// package calls this with the derived context's mutex held).
		go f()
		return func() bool { return false }
	}
	c.seq++
	id := c.seq
	if c.after == nil {
		c.after = c.first[:0]
	}
	c.after = append(c.after, afterFunc{id: id, f: f})
	c.mu.Unlock()
	return func() bool { return c.stop(id) }
}

// stop removes the AfterFunc registration id and reports whether it was still waiting.
func (c *releaseCtx) stop(id uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, a := range c.after {
		if a.id == id {
			// Order does not matter; dropping the slot keeps a release that derives a
			// context per call, in a loop, from growing the list.
			last := len(c.after) - 1
			c.after[i] = c.after[last]
			c.after[last] = afterFunc{}
			c.after = c.after[:last]
			return true
		}
	}
	return false
}

func (c *releaseCtx) expire() { c.cancel(expired) }

// end marks the release as returned: c is done with context.Canceled, unless its deadline
// came first.
func (c *releaseCtx) end() { c.cancel(canceled) }

func (c *releaseCtx) cancel(why uint32) {
	c.mu.Lock()
	if c.state.Load() != notDone {
		c.mu.Unlock()
		return
	}
	c.state.Store(why)
	if c.done != nil {
		close(c.done)
	}
	if c.timer != nil {
		c.timer.Stop()
	}
	after := c.after
	c.after = nil
	c.mu.Unlock()
	// Outside mu: each f cancels a derived context, which asks c for Err and Value.
	for _, a := range after {
		a.f()
	}
}

// String names the context for %v, as the context package's own do.
func (c *releaseCtx) String() string {
	return "acquire.releaseContext"
}
