package acquire

import (
	"context"
	"sync"
	"time"
)

// releaseCtx is the context one release runs under: the values of the scope's context, none of
// its cancellation, and a deadline of its own. It is what
// context.WithTimeout(context.WithoutCancel(ctx), d) gives, made cheaper for the common case:
// most releases never wait on Done, so the timer starts only when someone asks for Done, and
// the detached parent is made only when someone asks for a value.
type releaseCtx struct {
	scope    *Scope
	deadline time.Time

	mu    sync.Mutex
	done  chan struct{} // made on the first call of Done
	timer *time.Timer   // runs only while someone may be waiting on done
	err   error
}

var _ context.Context = (*releaseCtx)(nil)

func newReleaseCtx(s *Scope, deadline time.Time) *releaseCtx {
	return &releaseCtx{scope: s, deadline: deadline}
}

func (c *releaseCtx) Deadline() (time.Time, bool) { return c.deadline, true }

// Value reads through context.WithoutCancel, which also hides the scope context's cancellation
// from context.Cause and from contexts derived from this one.
func (c *releaseCtx) Value(key any) any { return c.scope.detachedCtx().Value(key) }

func (c *releaseCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		c.done = make(chan struct{})
		switch d := time.Until(c.deadline); {
		case c.err != nil:
			close(c.done)
		case d <= 0:
			c.stopLocked(context.DeadlineExceeded)
		default:
			c.timer = time.AfterFunc(d, func() { c.stop(context.DeadlineExceeded) })
		}
	}
	return c.done
}

func (c *releaseCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	// Without a timer the clock is read here instead; either way Err and Done agree.
	if c.err == nil && !time.Now().Before(c.deadline) {
		c.stopLocked(context.DeadlineExceeded)
	}
	return c.err
}

func (c *releaseCtx) String() string { return "acquire.releaseContext" }

// finish cancels the context when its release has returned, as the cancel function of
// context.WithTimeout would: anything the release left running sees it end.
func (c *releaseCtx) finish() { c.stop(context.Canceled) }

func (c *releaseCtx) stop(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopLocked(err)
}

func (c *releaseCtx) stopLocked(err error) {
	if c.err != nil {
		return
	}
	c.err = err
	if c.done != nil {
		close(c.done)
	}
	if c.timer != nil {
		c.timer.Stop()
	}
}
