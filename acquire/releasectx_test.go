package acquire_test

// The context each release runs under: the scope's values, none of its cancellation, a
// deadline of its own from the moment that release starts, done when the release returns,
// and a parent that contexts derived from it (as cloud SDK calls make) attach to without a
// goroutine.

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/acquire"
	"github.com/safereconcile/safereconcile/lease"
)

func TestCancelledContextStillReleases(t *testing.T) {
	type key struct{}
	parent, cancel := context.WithCancelCause(context.WithValue(context.Background(), key{}, "trace-1"))
	c := newCloud()
	var seen struct {
		err, cause error
		value      any
		deadline   time.Duration
		hasDL      bool
	}
	start := time.Now()
	err := acquire.Run(parent, func(ctx context.Context, s *acquire.Scope) error {
		_, err := acquire.Temporary(s, "address", c.reserve("address"), func(ctx context.Context, v string) error {
			seen.err, seen.cause, seen.value = ctx.Err(), context.Cause(ctx), ctx.Value(key{})
			dl, ok := ctx.Deadline()
			seen.deadline, seen.hasDL = dl.Sub(start), ok
			return c.release(ctx, v)
		})
		require.NoError(t, err)
		cancel(errors.New("reconcile timed out"))
		_, err = acquire.Tentative(s, "firewall", c.reserve("firewall"), c.release)
		return err
	}, acquire.ReleaseTimeout(time.Minute))

	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, c.inventory(), "a cancelled operation still releases what it acquired")
	assert.NoError(t, seen.err, "the release context is not cancelled with the operation's")
	assert.NoError(t, seen.cause, "nor does context.Cause see the operation's cancellation")
	assert.Equal(t, "trace-1", seen.value, "the release context keeps the operation's values")
	assert.True(t, seen.hasDL, "every release has a deadline")
	assert.InDelta(t, time.Minute, seen.deadline, float64(10*time.Second))
}

func TestReleaseTimeoutBoundsRelease(t *testing.T) {
	var orphans []*lease.OrphanError
	err := acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
		_, err := acquire.Temporary(s, "stuck",
			func(context.Context) (int, error) { return 1, nil },
			func(ctx context.Context, _ int) error {
				<-ctx.Done() // a release that hangs until its deadline
				return ctx.Err()
			})
		return err
	}, acquire.ReleaseTimeout(time.Millisecond), acquire.OnOrphan(func(_ context.Context, oe *lease.OrphanError) {
		orphans = append(orphans, oe)
	}))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Len(t, orphans, 1)
	assert.Equal(t, "stuck", orphans[0].Name)
}

func TestReleaseContextEndsWithRelease(t *testing.T) {
	var leaked context.Context
	err := acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
		s.Defer("leak", func(ctx context.Context) error {
			leaked = ctx
			return nil
		})
		return nil
	})
	require.NoError(t, err)
	assert.ErrorIs(t, leaked.Err(), context.Canceled, "work a release left running sees its context end")
	select {
	case <-leaked.Done():
	default:
		t.Error("Done is not closed after the release returned")
	}
}

// TestDerivedReleaseContextAttachesWithoutAGoroutine: contexts a release derives from its own,
// as SDK calls do (50 of them, and a context.AfterFunc on one), start no goroutine, are bounded
// by the release's deadline, and end when it passes: for a Defer, and for the releases of a
// Temporary and a Tentative, which run under their lease's mark.
func TestDerivedReleaseContextAttachesWithoutAGoroutine(t *testing.T) {
	for _, via := range []string{"Defer", "Temporary", "Tentative"} {
		t.Run(via, func(t *testing.T) { derivedReleaseContext(t, via) })
	}
}

func derivedReleaseContext(t *testing.T, via string) {
	const n = 50
	var before, during int
	var stacks string
	var derived []context.Context
	deadlinesOK := true
	release := func(ctx context.Context) error {
		before = runtime.NumGoroutine()
		rd, rok := ctx.Deadline()
		for i := 0; i < n; i++ {
			d, cancel := context.WithTimeout(ctx, time.Hour)
			defer cancel()
			derived = append(derived, d)
			dd, ok := d.Deadline()
			deadlinesOK = deadlinesOK && ok && rok && !dd.After(rd)
		}
		nested, cancel := context.WithCancel(derived[0])
		defer cancel()
		derived = append(derived, nested)
		stop := context.AfterFunc(nested, func() {})
		defer stop()
		during = runtime.NumGoroutine()
		buf := make([]byte, 1<<20)
		stacks = string(buf[:runtime.Stack(buf, true)])
		for _, d := range derived {
			<-d.Done() // the release's own deadline ends what it derived
		}
		return nil
	}
	err := acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
		get := func(context.Context) (string, error) { return "a", nil }
		rel := func(ctx context.Context, _ string) error { return release(ctx) }
		var err error
		switch via {
		case "Defer":
			s.Defer("address/a", release)
		case "Temporary":
			_, err = acquire.Temporary(s, "address/a", get, rel)
		case "Tentative":
			_, err = acquire.Tentative(s, "address/a", get, rel)
			if err == nil {
				err = errors.New("fail so that the Tentative is released")
			}
		}
		return err
	}, acquire.ReleaseTimeout(20*time.Millisecond))
	if via == "Tentative" {
		require.Error(t, err)
	} else {
		require.NoError(t, err)
	}
	// One goroutine per derived context would add n; goroutines left by earlier tests may end
	// meanwhile, so only that is checked, and the stacks.
	assert.LessOrEqual(t, during, before, "goroutines inside a release before and after it derived contexts")
	assert.NotContains(t, stacks, "context.(*cancelCtx).propagateCancel", "the standard library watches the release context with a goroutine")
	assert.True(t, deadlinesOK, "a derived deadline is bounded by the release's")
	for _, d := range derived {
		assert.ErrorIs(t, d.Err(), context.DeadlineExceeded)
		assert.ErrorIs(t, context.Cause(d), context.DeadlineExceeded)
	}
}

// A scope made with New on a context already cancelled with a cause releases under a context
// that is not cancelled, reports no cause and keeps the values.
func TestReleaseOfAScopeMadeOnACancelledContext(t *testing.T) {
	type key struct{}
	parent, cancel := context.WithCancelCause(context.WithValue(context.Background(), key{}, "v"))
	cancel(errors.New("reconcile cancelled"))
	var err, cause error
	var value any
	s := acquire.New(parent)
	s.Defer("address/a", func(ctx context.Context) error {
		err, cause, value = ctx.Err(), context.Cause(ctx), ctx.Value(key{})
		return nil
	})
	s.End(nil)
	assert.NoError(t, err)
	assert.NoError(t, cause)
	assert.Equal(t, "v", value)
}

// "a cancelled or expired operation still releases what it acquired", with the
// scope's values, each release with its own deadline "counted from the moment that release
// starts".
func TestEachReleaseHasItsOwnDeadline(t *testing.T) {
	type key struct{}
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, "trace-1"))
	const d = 30 * time.Millisecond
	var firstEnded, secondDeadline time.Time
	var secondErr error
	var secondVal any
	err := acquire.Run(parent, func(ctx context.Context, s *acquire.Scope) error {
		s.Defer("address/older", func(ctx context.Context) error {
			secondErr = ctx.Err()
			secondDeadline, _ = ctx.Deadline()
			secondVal = ctx.Value(key{})
			return nil
		})
		s.Defer("address/newer", func(ctx context.Context) error {
			<-ctx.Done() // uses its whole budget
			firstEnded = time.Now()
			return nil
		})
		cancel()
		return ctx.Err()
	}, acquire.ReleaseTimeout(d))
	require.ErrorIs(t, err, context.Canceled)
	assert.NoError(t, secondErr)
	assert.Equal(t, "trace-1", secondVal)
	assert.True(t, secondDeadline.After(firstEnded), "second release's deadline %v is not after the first release ended %v", secondDeadline, firstEnded)
}

// ReleaseTimeout bounds each release "counted from the moment that release starts": a huge
// bound must not overflow into a deadline in the past.
func TestHugeReleaseTimeoutIsNoPastDeadline(t *testing.T) {
	for _, d := range []time.Duration{1<<63 - 1, 1 << 62, 200 * 365 * 24 * time.Hour} {
		var rerr error
		var deadline time.Time
		var ok bool
		start := time.Now()
		err := acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
			s.Defer("address/a", func(ctx context.Context) error {
				rerr = ctx.Err()
				deadline, ok = ctx.Deadline()
				return nil
			})
			return nil
		}, acquire.ReleaseTimeout(d))
		require.NoError(t, err)
		assert.NoError(t, rerr, "d=%v", d)
		assert.True(t, ok)
		assert.True(t, deadline.After(start), "d=%v gives deadline %v", d, deadline)
	}
}

// OnOrphan's context "is not cancelled and carries the scope's values", also when the
// operation's context was cancelled; errp may be nil and OnOrphan still hears.
func TestOnOrphanContextIsNotCancelled(t *testing.T) {
	type key struct{}
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, "v"))
	cancel()
	var got []any
	var errs []error
	s := acquire.New(parent, acquire.OnOrphan(func(ctx context.Context, e *lease.OrphanError) {
		got = append(got, ctx.Value(key{}))
		errs = append(errs, ctx.Err())
	}))
	s.Defer("address/a", func(context.Context) error { return errors.New("no") })
	s.End(nil)
	s.End(nil) // calls after the first do nothing
	assert.Equal(t, []any{"v"}, got)
	assert.Equal(t, []error{nil}, errs)
}

// The release context is a context.Context like any other: context.AfterFunc on it runs when
// its deadline passes and can be stopped, Cause reports the deadline, a child's later deadline
// is capped by it, and a child's cancel does not cancel it.
func TestReleaseContextIsAContextLikeAnyOther(t *testing.T) {
	var (
		doneNil, errBefore, afterFuncFired, stoppedRan bool
		stopResult                                     bool
		childDeadlineOK, parentAfterChildCancel        bool
		errAfter, cause                                error
	)
	err := acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
		s.Defer("address/a", func(ctx context.Context) error {
			doneNil = ctx.Done() == nil
			errBefore = ctx.Err() != nil
			fired := make(chan struct{})
			context.AfterFunc(ctx, func() { close(fired) })
			stop := context.AfterFunc(ctx, func() { stoppedRan = true })
			stopResult = stop()

			_, cancel := context.WithCancel(ctx)
			cancel()
			parentAfterChildCancel = ctx.Err() == nil

			rd, _ := ctx.Deadline()
			later, cancel2 := context.WithDeadline(ctx, rd.Add(time.Hour))
			defer cancel2()
			cd, _ := later.Deadline()
			childDeadlineOK = !cd.After(rd)

			<-fired // waits for the release's deadline
			afterFuncFired = true
			errAfter = ctx.Err()
			cause = context.Cause(ctx)
			return nil
		})
		return nil
	}, acquire.ReleaseTimeout(20*time.Millisecond))
	require.NoError(t, err)
	assert.False(t, doneNil, "a release context with a deadline has a Done channel")
	assert.False(t, errBefore)
	assert.True(t, stopResult, "stop before the deadline reports that it stopped f")
	assert.False(t, stoppedRan)
	assert.True(t, parentAfterChildCancel)
	assert.True(t, childDeadlineOK, "a child's later deadline is capped by the release's")
	assert.True(t, afterFuncFired)
	assert.ErrorIs(t, errAfter, context.DeadlineExceeded)
	assert.ErrorIs(t, cause, context.DeadlineExceeded)
}

// A release that never waits still sees its deadline: with no Done channel made, Err reads the
// clock, and Cause agrees with it, not with the cause of the operation's own cancellation.
func TestReleaseContextExpiresWithoutDone(t *testing.T) {
	parent, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("reconcile cancelled"))
	var errSeen, causeSeen error
	var closed bool
	err := acquire.Run(parent, func(ctx context.Context, s *acquire.Scope) error {
		s.Defer("address/a", func(ctx context.Context) error {
			errSeen, causeSeen = ctx.Err(), context.Cause(ctx) // a deadline 1ns away has passed
			select {
			case <-ctx.Done():
				closed = true
			default:
			}
			return nil
		})
		return nil
	}, acquire.ReleaseTimeout(time.Nanosecond))
	require.NoError(t, err)
	assert.ErrorIs(t, errSeen, context.DeadlineExceeded)
	assert.ErrorIs(t, causeSeen, context.DeadlineExceeded)
	assert.True(t, closed, "Done made after the deadline is already closed")
}

// Work a release hands to a goroutine of its own stops when the release returns, as after the
// cancel of a hand-written context.WithTimeout: through the release's context and through a
// context derived from it, whether Done was asked for before the release returned or after.
func TestReleaseContextHandedToAGoroutineEndsWithTheRelease(t *testing.T) {
	var wg sync.WaitGroup
	results := make(chan error, 3)
	err := acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
		s.Defer("address/a", func(ctx context.Context) error {
			derived, cancel := context.WithTimeout(ctx, time.Hour)
			_ = cancel // the goroutine outlives the release on purpose
			waiting := make(chan struct{}, 2)
			for _, c := range []context.Context{ctx, derived} {
				wg.Add(1)
				go func(c context.Context) {
					defer wg.Done()
					done := c.Done()
					waiting <- struct{}{}
					<-done
					results <- context.Cause(c)
				}(c)
			}
			<-waiting
			<-waiting
			wg.Add(1)
			go func() { // asks for Done only after the release returned
				defer wg.Done()
				<-ctx.Done()
				results <- ctx.Err()
			}()
			return nil
		})
		return nil
	})
	require.NoError(t, err)
	wg.Wait()
	close(results)
	var got []error
	for err := range results {
		got = append(got, err)
	}
	require.Len(t, got, 3)
	for _, err := range got {
		assert.ErrorIs(t, err, context.Canceled)
	}
}

// Each release gets a context of its own: the one a newer release ran under is done before the
// next release starts, and the next one's is live.
func TestEachReleaseHasItsOwnContext(t *testing.T) {
	var newer context.Context
	var newerErr, olderErr error
	var same bool
	err := acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
		s.Defer("address/older", func(ctx context.Context) error {
			newerErr, olderErr, same = newer.Err(), ctx.Err(), ctx == newer
			return nil
		})
		s.Defer("address/newer", func(ctx context.Context) error {
			newer = ctx
			return nil
		})
		return nil
	})
	require.NoError(t, err)
	assert.False(t, same)
	assert.ErrorIs(t, newerErr, context.Canceled)
	assert.NoError(t, olderErr)
}

// The release context is safe for concurrent use while the release returns and its deadline
// passes (run with -race).
func TestReleaseContextIsSafeForConcurrentUse(t *testing.T) {
	type key struct{}
	parent := context.WithValue(context.Background(), key{}, "v")
	for round := 0; round < 50; round++ {
		var wg sync.WaitGroup
		err := acquire.Run(parent, func(ctx context.Context, s *acquire.Scope) error {
			s.Defer("address/a", func(ctx context.Context) error {
				for i := 0; i < 4; i++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for j := 0; j < 20; j++ {
							_ = ctx.Err()
							_ = ctx.Done()
							_ = ctx.Value(key{})
							stop := context.AfterFunc(ctx, func() {})
							d, cancel := context.WithCancel(ctx)
							_ = d.Err()
							cancel()
							stop()
						}
					}()
				}
				return nil
			})
			return nil
		}, acquire.ReleaseTimeout(time.Duration(round)*10*time.Microsecond+time.Nanosecond))
		require.NoError(t, err)
		wg.Wait()
	}
}

// TestReleaseDerivingThroughAValueStartsNoGoroutine: a release that puts a value on its
// context first (a logger, a span or gRPC metadata, as SDK wrappers do) and then derives a
// context starts no goroutine for it, however many layers lie between, whichever way it
// derives; and what it derived still ends when the release returns.
func TestReleaseDerivingThroughAValueStartsNoGoroutine(t *testing.T) {
	type key struct{ n int }
	const n = 20
	tests := []struct {
		name   string
		derive func(ctx context.Context) (done <-chan struct{}, stop func())
	}{
		{"WithTimeout", func(ctx context.Context) (<-chan struct{}, func()) {
			d, cancel := context.WithTimeout(ctx, time.Hour)
			return d.Done(), cancel
		}},
		{"WithValue then WithTimeout", func(ctx context.Context) (<-chan struct{}, func()) {
			d, cancel := context.WithTimeout(context.WithValue(ctx, key{}, "span"), time.Hour)
			return d.Done(), cancel
		}},
		{"three WithValue then WithCancel", func(ctx context.Context) (<-chan struct{}, func()) {
			for i := 0; i < 3; i++ {
				ctx = context.WithValue(ctx, key{i}, i)
			}
			d, cancel := context.WithCancel(ctx)
			return d.Done(), cancel
		}},
		{"WithValue then WithDeadline", func(ctx context.Context) (<-chan struct{}, func()) {
			d, cancel := context.WithDeadline(context.WithValue(ctx, key{}, "md"), time.Now().Add(time.Hour))
			return d.Done(), cancel
		}},
		{"WithValue then AfterFunc", func(ctx context.Context) (<-chan struct{}, func()) {
			ran := make(chan struct{})
			stop := context.AfterFunc(context.WithValue(ctx, key{}, "log"), func() { close(ran) })
			return ran, func() { stop() }
		}},
		{"a Context type that embeds it, then WithTimeout", func(ctx context.Context) (<-chan struct{}, func()) {
			d, cancel := context.WithTimeout(embeddingCtx{ctx}, time.Hour)
			return d.Done(), cancel
		}},
	}
	for _, tt := range tests {
		for _, via := range []string{"Defer", "Temporary"} {
			t.Run(tt.name+"/"+via, func(t *testing.T) {
				derivedThroughLayers(t, via, n, tt.derive)
			})
		}
	}
}

func derivedThroughLayers(t *testing.T, via string, n int, derive func(context.Context) (<-chan struct{}, func())) {
	var stacks string
	var dones []<-chan struct{}
	release := func(ctx context.Context) error {
		for i := 0; i < n; i++ {
			done, stop := derive(ctx)
			t.Cleanup(stop)
			dones = append(dones, done)
		}
		buf := make([]byte, 1<<20)
		stacks = string(buf[:runtime.Stack(buf, true)])
		return nil // without stopping what it derived: the release's end does
	}
	err := acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
		if via == "Defer" {
			s.Defer("address/a", release)
			return nil
		}
		_, err := acquire.Temporary(s, "address/a",
			func(context.Context) (string, error) { return "a", nil },
			func(ctx context.Context, _ string) error { return release(ctx) })
		return err
	})
	require.NoError(t, err)
	assert.Zero(t, strings.Count(stacks, "created by context.(*cancelCtx).propagateCancel"),
		"goroutines the standard library started to watch the release context for %d derivations", n)
	for i, done := range dones {
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("derivation %d did not end with the release", i)
		}
	}
}

// embeddingCtx is a Context type of a library's own that embeds the context it wraps.
type embeddingCtx struct{ context.Context }
