package acquire_test

// Goroutines of the operation: acquisitions and Defers from many at once, and those that race
// the end or come after it, each released exactly once.

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/safereconcile/safereconcile/acquire"
	"github.com/safereconcile/safereconcile/lease"
	"github.com/safereconcile/safereconcile/lease/leasetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// after the end, Temporary and Tentative do not call acquire and report ErrEnded;
// "an acquisition that was already running when the scope ended is released as soon as it
// returns, and reports ErrEnded too", its failure going to OnOrphan.
func TestAcquisitionRacingTheEndIsReleased(t *testing.T) {
	for _, tentative := range []bool{false, true} {
		t.Run(fmt.Sprint("tentative=", tentative), func(t *testing.T) { acquisitionRacingTheEnd(t, tentative) })
	}
}

func acquisitionRacingTheEnd(t *testing.T, tentative bool) {
	acq := acquire.Temporary[string]
	if tentative {
		acq = acquire.Tentative[string]
	}
	var leaked *acquire.Scope
	started := make(chan struct{})
	proceed := make(chan struct{})
	var releases atomic.Int32
	var heard atomic.Int32
	type result struct {
		l   *lease.Lease[string]
		err error
	}
	res := make(chan result, 1)
	err := acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
		leaked = s
		go func() {
			l, err := acq(s, "address/late",
				func(context.Context) (string, error) { close(started); <-proceed; return "late", nil },
				func(context.Context, string) error { releases.Add(1); return errors.New("cannot") })
			res <- result{l, err}
		}()
		<-started
		return nil
	}, acquire.OnOrphan(func(context.Context, *lease.OrphanError) { heard.Add(1) }))
	require.NoError(t, err)
	close(proceed)
	r := <-res
	require.ErrorIs(t, r.err, acquire.ErrEnded)
	assert.Equal(t, int32(1), releases.Load(), "released as soon as it returned")
	assert.Equal(t, int32(1), heard.Load(), "its failed release reaches OnOrphan")
	if r.l != nil {
		assert.NotEqual(t, lease.Held, r.l.State())
	}

	called := false
	_, err = acquire.Tentative(leaked, "address/after",
		func(context.Context) (string, error) { called = true; return "", nil },
		func(context.Context, string) error { return nil })
	require.ErrorIs(t, err, acquire.ErrEnded)
	assert.False(t, called, "acquire called after the end")
}

// "A Scope is safe for concurrent use by goroutines started inside the operation",
// each release exactly once, LIFO by registration.
func TestConcurrentAcquisitionsReleaseEachOnce(t *testing.T) {
	const n = 64
	var released [n]atomic.Int32
	boom := errors.New("boom")
	var leases [n]*lease.Lease[int]
	err := acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				acq := acquire.Temporary[int]
				if i%2 == 1 {
					acq = acquire.Tentative[int]
				}
				l, err := acq(s, fmt.Sprintf("address/a-%d", i),
					func(context.Context) (int, error) { return i, nil },
					func(_ context.Context, v int) error { released[v].Add(1); return nil })
				if err == nil {
					leases[i] = l
				}
				if i%3 == 0 {
					s.Defer(fmt.Sprintf("cleanup/c-%d", i), func(context.Context) error { return nil })
				}
			}(i)
		}
		wg.Wait()
		return boom
	})
	require.ErrorIs(t, err, boom)
	for i := 0; i < n; i++ {
		assert.Equal(t, int32(1), released[i].Load(), "lease %d", i)
		assert.Equal(t, lease.Released, leases[i].State())
	}
}

// guardDeadlock waits for done, failing the test if it never comes: a guard against a deadlock,
// never an assertion about time.
func guardDeadlock(t *testing.T, what string, done <-chan struct{}) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("deadlock: %s never returned", what)
	}
}

// A release function that uses its own scope while the scope is ending (it acquires or defers
// one more cleanup) must not deadlock: the doc says acquisitions after the end report ErrEnded
// and a Defer after the end runs at once.
func TestScopeUsedFromItsOwnReleaseDoesNotDeadlock(t *testing.T) {
	var tempErr error
	var deferred, acquired bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
			s.Defer("cleanup/outer", func(context.Context) error {
				_, tempErr = acquire.Temporary(s, "address/during-end",
					func(context.Context) (string, error) { acquired = true; return "x", nil },
					func(context.Context, string) error { return nil })
				s.Defer("cleanup/inner", func(context.Context) error { deferred = true; return nil })
				return nil
			})
			return nil
		})
	}()
	guardDeadlock(t, "Run whose release uses its scope", done)
	assert.ErrorIs(t, tempErr, acquire.ErrEnded)
	assert.False(t, acquired)
	assert.True(t, deferred, "a Defer from a release ran")
}

// Goroutines of the operation that race the end (against the advice, as buggy code does): every
// Defer runs exactly once, every acquisition that returned is released exactly once, and any
// failure among them reaches OnOrphan, whatever the interleaving.
func TestRacingTheEndLosesNothing(t *testing.T) {
	for round := 0; round < 20; round++ {
		const n = 16
		var deferRuns, acquired, releases, heard atomic.Int32
		var wg sync.WaitGroup
		start := make(chan struct{})
		err := acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
			for i := 0; i < n; i++ {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					<-start
					s.Defer(fmt.Sprintf("cleanup/%d", i), func(context.Context) error {
						deferRuns.Add(1)
						return errors.New("cleanup failed")
					})
					_, _ = acquire.Temporary(s, fmt.Sprintf("address/%d", i),
						func(context.Context) (int, error) { acquired.Add(1); return i, nil },
						func(context.Context, int) error { releases.Add(1); return nil })
				}(i)
			}
			close(start)
			return nil
		}, acquire.OnOrphan(func(context.Context, *lease.OrphanError) { heard.Add(1) }))
		wg.Wait()
		orphansInErr := len(orphansIn(err))
		assert.Equal(t, int32(n), deferRuns.Load(), "round %d", round)
		assert.Equal(t, acquired.Load(), releases.Load(), "round %d", round)
		assert.Equal(t, int32(n), heard.Load(), "every failed cleanup reaches OnOrphan once, round %d", round)
		assert.LessOrEqual(t, orphansInErr, n)
	}
}

// orphansIn counts the orphans in err.
func orphansIn(err error) []*lease.OrphanError {
	var out []*lease.OrphanError
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		if oe, ok := e.(*lease.OrphanError); ok {
			out = append(out, oe)
			return
		}
		if u, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range u.Unwrap() {
				walk(x)
			}
			return
		}
		if u, ok := e.(interface{ Errors() []error }); ok {
			for _, x := range u.Errors() {
				walk(x)
			}
			return
		}
		walk(errors.Unwrap(e))
	}
	walk(err)
	return out
}

func TestUseAfterEnd(t *testing.T) {
	c := newCloud()
	var orphans []string
	var s *acquire.Scope
	require.NoError(t, acquire.Run(context.Background(), func(ctx context.Context, sc *acquire.Scope) error {
		s = sc
		return nil
	}, acquire.OnOrphan(func(_ context.Context, oe *lease.OrphanError) { orphans = append(orphans, oe.Name) })))

	called := false
	l, err := acquire.Temporary(s, "late", func(context.Context) (int, error) { called = true; return 1, nil },
		func(context.Context, int) error { return nil })
	assert.Nil(t, l)
	require.ErrorIs(t, err, acquire.ErrEnded)
	assert.Equal(t, "acquire late: acquire: scope has ended", err.Error())
	_, err = acquire.Tentative(s, "late2", func(context.Context) (int, error) { called = true; return 1, nil },
		func(context.Context, int) error { return nil })
	require.ErrorIs(t, err, acquire.ErrEnded)
	assert.False(t, called, "acquire is not called after the end")

	var lateErr error
	var lateDeadline bool
	s.Defer("cleanup", func(ctx context.Context) error {
		lateErr = ctx.Err()
		_, lateDeadline = ctx.Deadline()
		return c.cleanup("cleanup")(ctx)
	})
	assert.Equal(t, []string{"cleanup cleanup"}, c.calls(), "a late Defer runs at once")
	assert.NoError(t, lateErr)
	assert.True(t, lateDeadline, "a late Defer still has a deadline")
	c.failRelease["bad"] = errFlaky
	s.Defer("bad", c.cleanup("bad"))
	assert.Equal(t, []string{"bad"}, orphans, "a late Defer's failure goes to OnOrphan")
}

// TestAcquireDuringEnd: a goroutine that outlives the operation acquires while the scope ends;
// what it acquired is released at once, not leaked.
func TestAcquireDuringEnd(t *testing.T) {
	c := newCloud()
	entered, proceed := make(chan struct{}), make(chan struct{})
	result := make(chan error, 1)
	require.NoError(t, acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
		go func() {
			_, err := acquire.Temporary(s, "late", func(ctx context.Context) (string, error) {
				close(entered)
				<-proceed // the scope ends while this acquire runs
				return c.reserve("late")(ctx)
			}, c.release)
			result <- err
		}()
		<-entered
		return nil
	}))
	close(proceed)
	require.ErrorIs(t, <-result, acquire.ErrEnded)
	assert.Empty(t, c.inventory())
	assert.Equal(t, []string{"reserve late", "release late"}, c.calls())
}

func TestConcurrentAcquisitions(t *testing.T) {
	ctx := leasetest.Context(t, context.Background())
	c := newCloud()
	const n = 64
	err := acquire.Run(ctx, func(ctx context.Context, s *acquire.Scope) error {
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				name := fmt.Sprintf("r%02d", i)
				var err error
				switch i % 3 {
				case 0:
					_, err = acquire.Temporary(s, name, c.reserve(name), c.release)
				case 1:
					_, err = acquire.Tentative(s, name, c.reserve(name), c.release)
				default:
					s.Defer(name, c.cleanup(name))
				}
				errs <- err
			}(i)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		assert.Len(t, c.inventory(), 2*n/3+1)
		return errFlaky
	})
	require.ErrorIs(t, err, errFlaky)
	assert.Empty(t, c.inventory())
}
