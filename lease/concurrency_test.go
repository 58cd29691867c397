package lease_test

// Release, Keep and State from many goroutines at once: one release runs, and every caller
// gets its result.

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/safereconcile/safereconcile/lease"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func nopRelease(context.Context, string) error { return nil }

// waitUntil retries cond, yielding the processor, until it holds; it fails the test if it
// never does within many tries. It never sleeps as an assertion.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for i := 0; i < 200000; i++ {
		if cond() {
			return
		}
		runtime.Gosched()
		if i > 1000 {
			time.Sleep(time.Millisecond)
		}
	}
	t.Fatalf("never: %s", what)
}

// goroutinesIn counts the goroutines whose stack mentions fn.
func goroutinesIn(fn string) int {
	buf := make([]byte, 1<<20)
	n := 0
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, fn) {
			n++
		}
	}
	return n
}

// A context that came from an earlier, finished release is not "inside" the release function
// any more: a later retry with it must try again, not report ErrInProgress.
func TestRetryWithTheContextOfAFinishedRelease(t *testing.T) {
	var saved context.Context
	calls := 0
	l := lease.New("address/retry", "retry", func(ctx context.Context, _ string) error {
		calls++
		if saved == nil {
			saved = ctx
			return errors.New("transient")
		}
		return nil
	})
	require.Error(t, l.Release(context.Background()))
	require.Equal(t, lease.Orphaned, l.State())
	err := l.Release(saved)
	require.NoError(t, err)
	assert.Equal(t, 2, calls)
	assert.Equal(t, lease.Released, l.State())
}

// "A Release that finds another in progress waits for it, however long the other's
// context allows, and returns that call's result instead of calling the release function a
// second time" — also when the waiter's own context is already cancelled.
func TestConcurrentReleaseWaitsPastItsOwnCancelledContext(t *testing.T) {
	for _, fail := range []bool{false, true} {
		t.Run(fmt.Sprint("fail=", fail), func(t *testing.T) {
			started := make(chan struct{})
			proceed := make(chan struct{})
			var calls atomic.Int32
			cause := errors.New("quota exceeded")
			l := lease.New("address/race", "race", func(context.Context, string) error {
				calls.Add(1)
				close(started)
				<-proceed
				if fail {
					return cause
				}
				return nil
			})
			winner := make(chan error, 1)
			go func() { winner <- l.Release(context.Background()) }()
			<-started
			const waiters = 4
			before := goroutinesIn("lease.(*Lease[...]).Release")
			results := make(chan error, waiters)
			for i := 0; i < waiters; i++ {
				go func() {
					ctx, cancel := context.WithCancel(context.Background())
					cancel() // the waiter's own context does not bound the wait
					results <- l.Release(ctx)
				}()
			}
			waitUntil(t, "every waiter is inside Release", func() bool {
				return goroutinesIn("lease.(*Lease[...]).Release") >= before+waiters
			})
			close(proceed)
			werr := <-winner
			for i := 0; i < waiters; i++ {
				err := <-results
				if fail {
					var oe *lease.OrphanError
					require.ErrorAs(t, err, &oe)
					assert.ErrorIs(t, err, cause)
					assert.Equal(t, "address/race", oe.Name)
				} else {
					assert.NoError(t, err)
				}
			}
			if fail {
				assert.ErrorIs(t, werr, cause)
				assert.Equal(t, lease.Orphaned, l.State())
			} else {
				assert.NoError(t, werr)
				assert.Equal(t, lease.Released, l.State())
			}
			assert.Equal(t, int32(1), calls.Load())
		})
	}
}

// A Release that waits for one whose release function panics must not wait forever; after the
// panic the lease is Orphaned, so the waiter either gets an error or tries again itself.
func TestWaiterOnAPanickingReleaseGetsAnOrphan(t *testing.T) {
	started := make(chan struct{})
	proceed := make(chan struct{})
	calls := 0
	l := lease.New("address/pw", "pw", func(context.Context, string) error {
		calls++
		if calls == 1 {
			close(started)
			<-proceed
			panic("sdk bug")
		}
		return nil
	})
	winner := make(chan any, 1)
	go func() {
		defer func() { winner <- recover() }()
		_ = l.Release(context.Background())
	}()
	<-started
	before := goroutinesIn("lease.(*Lease[...]).Release")
	waiter := make(chan error, 1)
	go func() { waiter <- l.Release(context.Background()) }()
	waitUntil(t, "the waiter is inside Release", func() bool {
		return goroutinesIn("lease.(*Lease[...]).Release") >= before+1
	})
	close(proceed)
	assert.Equal(t, "sdk bug", <-winner)
	select {
	case err := <-waiter:
		if err == nil {
			assert.Equal(t, lease.Released, l.State(), "a nil result means the waiter released it")
		} else {
			var oe *lease.OrphanError
			assert.ErrorAs(t, err, &oe)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("deadlock: the waiter never returned after the release it waited for panicked")
	}
}

// "The release function never runs twice at the same time", it succeeds at most once,
// and Released and Kept are final, under any mix of concurrent Release and Keep.
func TestConcurrentReleaseAndKeep(t *testing.T) {
	for round := 0; round < 50; round++ {
		var inFlight, overlaps, successes, calls atomic.Int32
		//releasepath:ok the test decides the lease's fate by racing Release and Keep
		l := lease.New("address/s", round, func(_ context.Context, v int) error {
			if inFlight.Add(1) != 1 {
				overlaps.Add(1)
			}
			defer inFlight.Add(-1)
			n := calls.Add(1)
			runtime.Gosched()
			if (int(n)+v)%3 != 0 {
				return errors.New("flaky cloud")
			}
			successes.Add(1)
			return nil
		})
		var wg sync.WaitGroup
		var nilResults atomic.Int32
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				for i := 0; i < 5; i++ {
					if g == 7 && i == 3 && round%2 == 0 {
						l.Keep()
						continue
					}
					st := l.State()
					if err := l.Release(context.Background()); err == nil {
						nilResults.Add(1)
					} else if st == lease.Released || st == lease.Kept {
						t.Errorf("Release after a final state %v failed: %v", st, err)
					}
				}
			}(g)
		}
		wg.Wait()
		assert.Zero(t, overlaps.Load(), "round %d: the release function ran twice at the same time", round)
		assert.LessOrEqual(t, successes.Load(), int32(1), "round %d", round)
		switch l.State() {
		case lease.Released:
			assert.Equal(t, int32(1), successes.Load())
		case lease.Kept:
			assert.Zero(t, successes.Load())
		case lease.Orphaned:
			assert.Zero(t, successes.Load())
		default:
			t.Errorf("round %d: final state %v", round, l.State())
		}
	}
}

// "While a release is in progress the state is the one before it (Held or Orphaned)".
func TestStateDuringRetryIsOrphaned(t *testing.T) {
	started := make(chan struct{})
	proceed := make(chan struct{})
	calls := 0
	l := lease.New("address/o", "o", func(context.Context, string) error {
		calls++
		if calls == 1 {
			return errors.New("first")
		}
		close(started)
		<-proceed
		return nil
	})
	require.Error(t, l.Release(context.Background()))
	done := make(chan error, 1)
	go func() { done <- l.Release(context.Background()) }()
	<-started
	assert.Equal(t, lease.Orphaned, l.State())
	close(proceed)
	require.NoError(t, <-done)
	assert.Equal(t, lease.Released, l.State())
}

// TestConcurrentReleaseWaitsForWinner holds the winner inside the release function while the
// others call Release, then checks they all return the winner's result.
func TestConcurrentReleaseWaitsForWinner(t *testing.T) {
	for _, fail := range []bool{false, true} {
		name := map[bool]string{false: "winner succeeds", true: "winner fails"}[fail]
		t.Run(name, func(t *testing.T) {
			entered := make(chan struct{})
			proceed := make(chan struct{})
			var calls atomic.Int32
			l := lease.New("a", 1, func(context.Context, int) error {
				if calls.Add(1) == 1 {
					close(entered)
					<-proceed
				}
				if fail {
					return errCloud
				}
				return nil
			})
			const losers = 8
			errs := make(chan error, losers+1)
			go func() { errs <- l.Release(context.Background()) }()
			<-entered
			var started sync.WaitGroup
			for i := 0; i < losers; i++ {
				started.Add(1)
				go func() {
					started.Done()
					errs <- l.Release(context.Background())
				}()
			}
			started.Wait()
			// The losers are at most about to call Release; any that has not yet read the
			// attempt counter would start an attempt of its own after the winner, which the
			// call count below would show. Let the winner go only once they are all blocked.
			waitBlocked(losers)
			close(proceed)
			for i := 0; i < losers+1; i++ {
				err := <-errs
				if fail {
					assert.ErrorIs(t, err, errCloud)
				} else {
					assert.NoError(t, err)
				}
			}
			assert.Equal(t, int32(1), calls.Load(), "the release function ran once for all callers")
		})
	}
}

// TestKeepDuringRelease calls Keep while the release function runs: Keep does not wait, and it
// takes effect only if the release fails.
func TestKeepDuringRelease(t *testing.T) {
	for _, fail := range []bool{false, true} {
		t.Run(fmt.Sprintf("release fails=%v", fail), func(t *testing.T) {
			entered, proceed := make(chan struct{}), make(chan struct{})
			calls := 0
			l := lease.New("a", 1, func(context.Context, int) error {
				calls++
				close(entered)
				<-proceed
				if fail {
					return errCloud
				}
				return nil
			})
			done := make(chan error, 1)
			go func() { done <- l.Release(context.Background()) }()
			<-entered
			l.Keep() // must return while the release is parked
			assert.Equal(t, lease.Held, l.State(), "Keep waits for the release's outcome")
			close(proceed)
			require.NoError(t, <-done, "a kept resource is no orphan")
			if fail {
				assert.Equal(t, lease.Kept, l.State())
			} else {
				assert.Equal(t, lease.Released, l.State(), "a released resource cannot be kept")
			}
			require.NoError(t, l.Release(context.Background()))
			assert.Equal(t, 1, calls, "the release function ran once")
		})
	}
}
