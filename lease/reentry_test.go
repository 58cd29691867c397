package lease_test

// A release function that uses its own lease, another lease, or a context of its own.

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/safereconcile/safereconcile/lease"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// "A Release from inside it, with the context it was given or one derived from it,
// returns at once an error wrapping ErrInProgress", "the outer call returns that [outcome]".
func TestReleaseInsideReleaseReturnsErrInProgress(t *testing.T) {
	type key struct{}
	derive := map[string]func(context.Context) (context.Context, context.CancelFunc){
		"same": func(ctx context.Context) (context.Context, context.CancelFunc) { return ctx, func() {} },
		"timeout": func(ctx context.Context) (context.Context, context.CancelFunc) {
			return context.WithTimeout(ctx, time.Minute)
		},
		"value": func(ctx context.Context) (context.Context, context.CancelFunc) {
			return context.WithValue(ctx, key{}, 1), func() {}
		},
		"withoutcancel": func(ctx context.Context) (context.Context, context.CancelFunc) {
			return context.WithCancel(context.WithoutCancel(ctx))
		},
	}
	for name, d := range derive {
		for _, outerFails := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/outerFails=%v", name, outerFails), func(t *testing.T) {
				var l *lease.Lease[string]
				var inner error
				var stateInside lease.State
				calls := 0
				l = lease.New("address/self", "self", func(ctx context.Context, _ string) error {
					calls++
					c, cancel := d(ctx)
					defer cancel()
					inner = l.Release(c)
					stateInside = l.State()
					if outerFails {
						return errors.New("cloud said no")
					}
					return nil
				})
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				err := l.Release(ctx)
				assert.ErrorIs(t, inner, lease.ErrInProgress)
				assert.Equal(t, lease.Held, stateInside)
				assert.Equal(t, 1, calls)
				if outerFails {
					var oe *lease.OrphanError
					require.ErrorAs(t, err, &oe)
					assert.Equal(t, lease.Orphaned, l.State())
				} else {
					require.NoError(t, err)
					assert.Equal(t, lease.Released, l.State())
				}
			})
		}
	}
}

// The same from a goroutine the release function starts with its context, and waits for.
func TestReleaseFromAGoroutineOfTheReleaseReturnsErrInProgress(t *testing.T) {
	var l *lease.Lease[string]
	var inner error
	l = lease.New("address/self", "self", func(ctx context.Context, _ string) error {
		done := make(chan error)
		go func() {
			c, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			done <- l.Release(c)
		}()
		inner = <-done
		return nil
	})
	require.NoError(t, l.Release(context.Background()))
	assert.ErrorIs(t, inner, lease.ErrInProgress)
	assert.Equal(t, lease.Released, l.State())
}

// The context marks this lease's release, not "some release": a release function of one lease
// that releases another lease (a forwarding rule releasing its address) must really release it,
// and a cycle back to the first lease gets ErrInProgress.
func TestReleaseOfAnotherLeaseFromAReleaseFunctionRuns(t *testing.T) {
	var a, b *lease.Lease[string]
	var bErr, aFromB error
	b = lease.New("address/b", "b", func(ctx context.Context, _ string) error {
		aFromB = a.Release(ctx)
		return nil
	})
	a = lease.New("forwarding-rule/a", "a", func(ctx context.Context, _ string) error {
		bErr = b.Release(ctx)
		return nil
	})
	require.NoError(t, a.Release(context.Background()))
	assert.NoError(t, bErr, "releasing another lease from a release function")
	assert.Equal(t, lease.Released, b.State())
	assert.ErrorIs(t, aFromB, lease.ErrInProgress)
	assert.Equal(t, lease.Released, a.State())
}

// "The release function may call the lease's methods": Keep, State, Value, Name and String
// from inside it return, and a Keep there takes effect only if the release fails.
func TestMethodsFromInsideReleaseDoNotBlock(t *testing.T) {
	for _, fail := range []bool{false, true} {
		var l *lease.Lease[string]
		var inside []string
		l = lease.New("address/m", "m", func(context.Context, string) error {
			inside = append(inside, l.Name(), l.Value(), l.State().String(), l.String())
			l.Keep()
			if fail {
				return errors.New("no")
			}
			return nil
		})
		done := make(chan error, 1)
		go func() { done <- l.Release(context.Background()) }()
		select {
		case err := <-done:
			require.NoError(t, err, "fail=%v", fail)
		case <-time.After(20 * time.Second):
			t.Fatal("deadlock: a method called from inside the release function")
		}
		assert.Equal(t, []string{"address/m", "m", "held"}, inside[:3])
		assert.Contains(t, inside[3], "address/m")
		if fail {
			assert.Equal(t, lease.Kept, l.State())
		} else {
			assert.Equal(t, lease.Released, l.State())
		}
	}
}

// wrappedCtx is a user's own context type that embeds the context it was given, as logging and
// tracing libraries do: it is derived from that context.
type wrappedCtx struct{ context.Context }

// Re-entry through a context of the user's own type that embeds the release's context.
func TestReleaseInsideReleaseThroughAUserContextType(t *testing.T) {
	var l *lease.Lease[string]
	var inner error
	calls := 0
	l = lease.New("address/w", "w", func(ctx context.Context, _ string) error {
		calls++
		done := make(chan error, 1)
		go func() { done <- l.Release(wrappedCtx{ctx}) }()
		select {
		case inner = <-done:
		case <-time.After(20 * time.Second):
			return errors.New("deadlock: Release through an embedding context type never returned")
		}
		return nil
	})
	require.NoError(t, l.Release(context.Background()))
	assert.ErrorIs(t, inner, lease.ErrInProgress)
	assert.Equal(t, 1, calls)
}

// The context a release function gets from Release is the caller's, seen through: deriving
// from it starts no goroutine, and the caller's cancellation, deadline and values reach it and
// what it derives.
func TestReleaseContextSeesThroughToTheCaller(t *testing.T) {
	type key struct{}
	parent, cancel := context.WithTimeout(context.WithValue(context.Background(), key{}, "v"), time.Hour)
	defer cancel()
	pd, _ := parent.Deadline()
	var (
		before, during int
		stacks         string
		val            any
		dl             time.Time
		childErr       error
		done           bool
	)
	l := lease.New("address/c", "c", func(ctx context.Context, _ string) error {
		before = runtime.NumGoroutine()
		child, cancelChild := context.WithTimeout(ctx, 2*time.Hour)
		defer cancelChild()
		during = runtime.NumGoroutine()
		buf := make([]byte, 1<<20)
		stacks = string(buf[:runtime.Stack(buf, true)])
		val = child.Value(key{})
		dl, _ = child.Deadline()
		cancel() // the caller gives up
		select {
		case <-child.Done():
			done = true
			childErr = child.Err()
		case <-time.After(20 * time.Second):
		}
		return nil
	})
	require.NoError(t, l.Release(parent))
	assert.LessOrEqual(t, during, before)
	assert.NotContains(t, stacks, "context.(*cancelCtx).propagateCancel")
	assert.Equal(t, "v", val)
	assert.Equal(t, pd, dl, "the caller's deadline caps the derived one")
	assert.True(t, done, "the caller's cancellation never reached a context derived in the release")
	assert.ErrorIs(t, childErr, context.Canceled)
}

func TestReleaseFunctionMayUseItsLease(t *testing.T) {
	var l *lease.Lease[int]
	var during lease.State
	l = lease.New("a", 1, func(context.Context, int) error {
		during = l.State()
		l.Keep()
		return errCloud
	})
	require.NoError(t, l.Release(context.Background()))
	assert.Equal(t, lease.Held, during)
	assert.Equal(t, lease.Kept, l.State())
}

// TestReleaseFromItsOwnReleaseFunction: a Release from inside the release function returns at
// once, without calling it again, and says the outcome is not known yet; the outer Release
// reports the real outcome.
func TestReleaseFromItsOwnReleaseFunction(t *testing.T) {
	tests := []struct {
		name    string
		derive  bool
		outcome error
	}{
		{name: "same context, release succeeds"},
		{name: "derived context, release succeeds", derive: true},
		{name: "same context, release fails", outcome: errCloud},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l *lease.Lease[int]
			calls := 0
			var inner error
			l = lease.New("address/a", 1, func(ctx context.Context, _ int) error {
				calls++
				if tt.derive {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, time.Minute)
					defer cancel()
				}
				inner = l.Release(ctx)
				return tt.outcome
			})
			done := make(chan error, 1)
			go func() { done <- l.Release(context.Background()) }()
			select {
			case err := <-done:
				require.ErrorIs(t, inner, lease.ErrInProgress)
				assert.EqualError(t, inner, "release address/a from its own release function: lease: release in progress")
				assert.Equal(t, 1, calls, "the release function ran once")
				if tt.outcome == nil {
					require.NoError(t, err)
					assert.Equal(t, lease.Released, l.State())
				} else {
					require.ErrorIs(t, err, errCloud)
					assert.Equal(t, lease.Orphaned, l.State())
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Release from inside the release function deadlocked")
			}
		})
	}
}

// TestReleaseWhileAnotherLeaseReleases: a release function that releases another lease, which
// is in flight on another goroutine, waits for it as any other caller does: only its own lease
// is re-entrant.
func TestReleaseWhileAnotherLeaseReleases(t *testing.T) {
	entered, proceed := make(chan struct{}), make(chan struct{})
	b := lease.New("address/b", 2, func(context.Context, int) error {
		close(entered)
		<-proceed
		return nil
	})
	a := lease.New("forwarding-rule/a", 1, func(ctx context.Context, _ int) error { return b.Release(ctx) })
	go func() { _ = b.Release(context.Background()) }()
	<-entered
	done := make(chan error, 1)
	go func() { done <- a.Release(context.Background()) }()
	waitBlocked(1)
	close(proceed)
	require.NoError(t, <-done, "a waited for b's release and reports its result")
	assert.Equal(t, lease.Released, b.State())
}

// TestReleaseContextKeepsAfterFunc: the context a release function runs under passes its
// parent's AfterFunc on, so a context it derives starts no goroutine and still ends with the
// parent.
func TestReleaseContextKeepsAfterFunc(t *testing.T) {
	parent := newAfterFuncCtx()
	var before, during int
	var derived context.Context
	l := lease.New("address/a1b2", 1, func(ctx context.Context, _ int) error {
		before = runtime.NumGoroutine()
		var cancel context.CancelFunc
		derived, cancel = context.WithTimeout(ctx, time.Hour)
		defer cancel()
		during = runtime.NumGoroutine()
		parent.cancel()
		<-derived.Done()
		return derived.Err()
	})
	require.ErrorIs(t, l.Release(parent), context.Canceled)
	assert.LessOrEqual(t, during, before, "the derived context started a goroutine")
	assert.Len(t, parent.after, 1, "the derived context registered with the parent's AfterFunc")
}
