package acquire

import (
	"context"
	"fmt"
	"time"

	"github.com/safereconcile/safereconcile/lease"
)

// DefaultReleaseTimeout bounds each release when no [ReleaseTimeout] is given.
const DefaultReleaseTimeout = 30 * time.Second

// An Option configures a [Scope] made by [Run] or [New]. A nil Option is a programming error:
// Run and New panic with a message starting with "acquire:".
type Option interface {
	apply(*config)
}

type config struct {
	timeout  time.Duration
	onOrphan func(ctx context.Context, err *lease.OrphanError)
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// ReleaseTimeout bounds each release of the scope to d, counted from the moment that release
// starts. ReleaseTimeout panics when d is not positive: a release must have a deadline.
func ReleaseTimeout(d time.Duration) Option {
	if d <= 0 {
		panic(fmt.Sprintf("acquire: ReleaseTimeout(%v): the timeout must be positive", d))
	}
	return optionFunc(func(c *config) { c.timeout = d })
}

// OnOrphan calls fn once for each release of the scope that fails, with a context that is
// not cancelled and carries the scope's values. It is called after the release, before [Run]
// returns or re-panics (or before [Scope.End] returns), on the goroutine that ends the scope,
// or on a goroutine of the operation whose acquisition raced the end or that called
// [Scope.Defer] after it; fn must therefore be safe for concurrent use. A nil fn is ignored.
// Use it to record or requeue orphans; they are returned as errors as well.
//
// A panic in fn is treated as a panic in that release: the other releases still run, and then
// Run or End raises it again, unless the operation itself panicked, whose panic then continues
// with its own value (fn's is dropped, as a panicking release's would be).
func OnOrphan(fn func(ctx context.Context, err *lease.OrphanError)) Option {
	return optionFunc(func(c *config) { c.onOrphan = fn })
}
