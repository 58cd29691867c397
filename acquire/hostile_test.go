package acquire_test

// Hostile tests: each one attacks a promise of acquire's documentation, written from the docs
// alone. See the test names for the promise attacked.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/acquire"
	"github.com/safereconcile/safereconcile/lease"
)

// hDeep calls f n frames further down the stack.
//
//go:noinline
func hDeep(n int, f func()) {
	if n == 0 {
		f()
		return
	}
	hDeep(n-1, f)
}

// hEnsure is a function in the documented New/End shape: it acquires a Tentative and
// returns what body returns. wrapped selects `defer func() { s.End(&err) }()`.
func hEnsure(wrapped bool, body func() error) (l *lease.Lease[string], err error) {
	s := acquire.New(context.Background())
	if wrapped {
		defer func() { s.End(&err) }()
	} else {
		defer s.End(&err)
	}
	l, err = acquire.Tentative(s, "forwarding-rule/fr-1",
		func(context.Context) (string, error) { return "fr-1", nil },
		func(context.Context, string) error { return nil })
	if err != nil {
		return l, err
	}
	return l, body()
}

// hNewScope makes the scope in a helper, which the doc says not to do.
func hNewScope() *acquire.Scope { return acquire.New(context.Background()) }

// hEnsureHelperNew is hEnsure with New called in a helper.
func hEnsureHelperNew(body func()) (l *lease.Lease[string], err error) {
	s := hNewScope()
	defer s.End(&err)
	l, err = acquire.Tentative(s, "forwarding-rule/fr-2",
		func(context.Context) (string, error) { return "fr-2", nil },
		func(context.Context, string) error { return nil })
	if err != nil {
		return l, err
	}
	body()
	return l, nil
}

// hOnGoroutine runs f on a new goroutine and waits for it, whether it returns, panics
// (the value is returned) or calls runtime.Goexit.
func hOnGoroutine(f func()) (panicked any) {
	done := make(chan any, 1)
	go func() {
		var p any
		defer func() { done <- p }()
		defer func() { p = recover() }()
		f()
	}()
	return <-done
}

// Promise (Scope.End): "a panic or a runtime.Goexit ... that runs further up the stack, and
// only calls that function from a deferred call of its own, is not [a failure]", at any depth.
func TestHostileEndKeepsTentativeUnderUnrelatedGoexitAtAnyDepth(t *testing.T) {
	for _, wrapped := range []bool{false, true} {
		for depth := 0; depth < 40; depth++ {
			var l *lease.Lease[string]
			var err error
			hOnGoroutine(func() {
				defer hDeep(depth, func() { l, err = hEnsure(wrapped, func() error { return nil }) })
				runtime.Goexit()
			})
			require.NoError(t, err)
			require.NotNil(t, l)
			assert.Equal(t, lease.Kept, l.State(), "wrapped=%v depth=%d", wrapped, depth)
		}
	}
}

// Same promise, for an unrelated panic further up the stack.
func TestHostileEndKeepsTentativeUnderUnrelatedPanicAtAnyDepth(t *testing.T) {
	for _, wrapped := range []bool{false, true} {
		for depth := 0; depth < 40; depth++ {
			var l *lease.Lease[string]
			p := hOnGoroutine(func() {
				defer hDeep(depth, func() { l, _ = hEnsure(wrapped, func() error { return nil }) })
				panic("unrelated")
			})
			assert.Equal(t, "unrelated", p)
			require.NotNil(t, l)
			assert.Equal(t, lease.Kept, l.State(), "wrapped=%v depth=%d", wrapped, depth)
		}
	}
}

// The other side of the same promise: a Goexit or panic in the function's own body, at any
// depth below it, fails the scope and releases the Tentative, also when an unrelated Goexit is
// already unwinding further up.
func TestHostileEndReleasesTentativeOnOwnGoexitAndPanicAtAnyDepth(t *testing.T) {
	for _, wrapped := range []bool{false, true} {
		for depth := 0; depth < 30; depth++ {
			var l *lease.Lease[string]
			var got *lease.Lease[string]
			hOnGoroutine(func() {
				s := acquire.New(context.Background())
				var err error
				if wrapped {
					defer func() { s.End(&err) }()
				} else {
					defer s.End(&err)
				}
				got, _ = acquire.Tentative(s, "address/a-1",
					func(context.Context) (string, error) { return "a-1", nil },
					func(context.Context, string) error { return nil })
				hDeep(depth, runtime.Goexit)
			})
			assert.Equal(t, lease.Released, got.State(), "own Goexit wrapped=%v depth=%d", wrapped, depth)

			p := hOnGoroutine(func() {
				defer hDeep(depth, func() {
					hOnGoroutineInline(func() {
						s := acquire.New(context.Background())
						var err error
						if wrapped {
							defer func() { s.End(&err) }()
						} else {
							defer s.End(&err)
						}
						l, _ = acquire.Tentative(s, "address/a-2",
							func(context.Context) (string, error) { return "a-2", nil },
							func(context.Context, string) error { return nil })
						hDeep(depth, func() { panic("own") })
					})
				})
				runtime.Goexit()
			})
			assert.Nil(t, p)
			assert.Equal(t, lease.Released, l.State(), "own panic under Goexit wrapped=%v depth=%d", wrapped, depth)
		}
	}
}

// hOnGoroutineInline runs f and swallows its panic, on the current goroutine.
func hOnGoroutineInline(f func()) {
	defer func() { _ = recover() }()
	f()
}

// Promise: "a runtime.Goexit (t.FailNow in a test) that is running that function's deferred
// calls is a failure; one that runs further up the stack ... is not". t.Cleanup after t.Skip is
// such a call further up.
func TestHostileEndKeepsTentativeInCleanupAfterSkip(t *testing.T) {
	for _, wrapped := range []bool{false, true} {
		var l *lease.Lease[string]
		var err error
		t.Run(fmt.Sprint("wrapped=", wrapped), func(t *testing.T) {
			t.Cleanup(func() { l, err = hEnsure(wrapped, func() error { return nil }) })
			t.Skip("hostile: skipping on purpose so that the cleanup runs under Goexit")
		})
		require.NoError(t, err)
		require.NotNil(t, l)
		assert.Equal(t, lease.Kept, l.State(), "wrapped=%v", wrapped)
	}
}

// Doc: "Call New and defer End in the same function." When New is in a helper, a failure of
// the function must still release its Tentative (a kept Tentative of a failed operation is the
// #97740 leak): an error, a panic and a Goexit.
func TestHostileNewInHelperStillReleasesOnFailure(t *testing.T) {
	var l *lease.Lease[string]
	p := hOnGoroutine(func() {
		_, _ = hEnsureHelperNew(func() { panic("boom") })
	})
	assert.Equal(t, "boom", p)

	hOnGoroutine(func() {
		s := hNewScope()
		var err error
		defer s.End(&err)
		l, _ = acquire.Tentative(s, "address/a-3",
			func(context.Context) (string, error) { return "a-3", nil },
			func(context.Context, string) error { return nil })
		runtime.Goexit()
	})
	assert.Equal(t, lease.Released, l.State(), "Goexit with New in a helper")

	hOnGoroutine(func() {
		s := hNewScope()
		var err error
		defer s.End(&err)
		l, _ = acquire.Tentative(s, "address/a-4",
			func(context.Context) (string, error) { return "a-4", nil },
			func(context.Context, string) error { return nil })
		panic("boom")
	})
	assert.Equal(t, lease.Released, l.State(), "panic with New in a helper")
}

// A panic recovered inside the function before it returns is not a failure: the function
// returned normally.
func TestHostileEndRecoveredPanicIsSuccess(t *testing.T) {
	l, err := hEnsure(false, func() error {
		func() {
			defer func() { _ = recover() }()
			panic("handled")
		}()
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, lease.Kept, l.State())
}

// Promise (OnOrphan): "A panic in fn is treated as a panic in that release: the other releases
// still run, and then Run or End raises it again, unless the operation itself panicked, whose
// panic then continues with its own value."
func TestHostilePanickingOnOrphan(t *testing.T) {
	for _, fnPanics := range []bool{false, true} {
		t.Run(fmt.Sprint("fnPanics=", fnPanics), func(t *testing.T) {
			var released []string
			var heard []string
			p := hOnGoroutine(func() {
				_ = acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
					s.Defer("address/first", func(context.Context) error {
						released = append(released, "first")
						return errors.New("first failed")
					})
					s.Defer("address/second", func(context.Context) error {
						released = append(released, "second")
						return errors.New("second failed")
					})
					if fnPanics {
						panic("fn")
					}
					return nil
				}, acquire.OnOrphan(func(_ context.Context, e *lease.OrphanError) {
					heard = append(heard, e.Name)
					panic("onorphan " + e.Name)
				}))
			})
			assert.Equal(t, []string{"second", "first"}, released)
			assert.Equal(t, []string{"address/second", "address/first"}, heard)
			if fnPanics {
				assert.Equal(t, "fn", p)
			} else {
				assert.Equal(t, "onorphan address/second", p)
			}
		})
	}
}

// Same promise through New/End.
func TestHostilePanickingOnOrphanWithEnd(t *testing.T) {
	for _, fnPanics := range []bool{false, true} {
		var heard int
		var released int
		p := hOnGoroutine(func() {
			var err error
			s := acquire.New(context.Background(), acquire.OnOrphan(func(context.Context, *lease.OrphanError) {
				heard++
				panic("onorphan")
			}))
			defer s.End(&err)
			s.Defer("address/x", func(context.Context) error { released++; return errors.New("no") })
			s.Defer("address/y", func(context.Context) error { released++; return errors.New("no") })
			if fnPanics {
				panic("fn")
			}
		})
		assert.Equal(t, 2, released)
		assert.Equal(t, 2, heard)
		if fnPanics {
			assert.Equal(t, "fn", p)
		} else {
			assert.Equal(t, "onorphan", p)
		}
	}
}

// Promise: releases run "one at a time, newest first", Temporary, Tentative and Defer on one
// stack, and Tentative released on error.
func TestHostileLIFOAcrossKindsOnError(t *testing.T) {
	var order []string
	rel := func(name string) func(context.Context, string) error {
		return func(context.Context, string) error { order = append(order, name); return nil }
	}
	get := func(v string) func(context.Context) (string, error) {
		return func(context.Context) (string, error) { return v, nil }
	}
	boom := errors.New("boom")
	err := acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
		_, _ = acquire.Temporary(s, "address/1", get("1"), rel("1"))
		s.Defer("cleanup/2", func(context.Context) error { order = append(order, "2"); return nil })
		_, _ = acquire.Tentative(s, "forwarding-rule/3", get("3"), rel("3"))
		_, _ = acquire.Temporary(s, "address/4", get("4"), rel("4"))
		return boom
	})
	require.ErrorIs(t, err, boom)
	assert.Equal(t, []string{"4", "3", "2", "1"}, order)
}

// Promise: after the end, Temporary and Tentative do not call acquire and report ErrEnded;
// "an acquisition that was already running when the scope ended is released as soon as it
// returns, and reports ErrEnded too", its failure going to OnOrphan.
func TestHostileAcquisitionRacingTheEnd(t *testing.T) {
	for _, tentative := range []bool{false, true} {
		t.Run(fmt.Sprint("tentative=", tentative), func(t *testing.T) { hAcquisitionRacingTheEnd(t, tentative) })
	}
}

func hAcquisitionRacingTheEnd(t *testing.T, tentative bool) {
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

// Promise: "After the scope has ended, Defer runs release at once ... and reports a failure to
// the OnOrphan handler."
func TestHostileDeferAfterEndRunsAtOnceAndReports(t *testing.T) {
	var heard []string
	var leaked *acquire.Scope
	err := acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
		leaked = s
		return nil
	}, acquire.OnOrphan(func(_ context.Context, e *lease.OrphanError) { heard = append(heard, e.Name) }))
	require.NoError(t, err)
	ran := false
	var rctxErr error
	var hasDeadline bool
	leaked.Defer("firewall/late", func(ctx context.Context) error {
		ran = true
		rctxErr = ctx.Err()
		_, hasDeadline = ctx.Deadline()
		return errors.New("denied")
	})
	assert.True(t, ran)
	assert.NoError(t, rctxErr)
	assert.True(t, hasDeadline, "a late Defer still has a deadline")
	assert.Equal(t, []string{"firewall/late"}, heard)
}

// Promise: "A Scope is safe for concurrent use by goroutines started inside the operation",
// each release exactly once, LIFO by registration.
func TestHostileConcurrentAcquisitionsInsideFn(t *testing.T) {
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

// Promise (Run): Goexit in fn fails the scope (Tentative released) and Goexit continues.
func TestHostileRunGoexitReleasesTentativeAndContinues(t *testing.T) {
	var l *lease.Lease[string]
	after := false
	hOnGoroutine(func() {
		_ = acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
			l, _ = acquire.Tentative(s, "address/g",
				func(context.Context) (string, error) { return "g", nil },
				func(context.Context, string) error { return nil })
			runtime.Goexit()
			return nil
		})
		after = true
	})
	assert.False(t, after, "Goexit did not continue past Run")
	assert.Equal(t, lease.Released, l.State())
}

// Promise: a release may call the lease's own Release with the context it was given; it
// returns an error wrapping lease.ErrInProgress at once, also through acquire's release
// context and a context derived from it, and also from a goroutine the release starts.
func TestHostileReleaseReenteredThroughScope(t *testing.T) {
	for _, how := range []string{"same", "derived", "goroutine"} {
		t.Run(how, func(t *testing.T) {
			var l *lease.Lease[string]
			var inner error
			err := acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
				var err error
				l, err = acquire.Temporary(s, "address/self",
					func(context.Context) (string, error) { return "self", nil },
					func(ctx context.Context, _ string) error {
						switch how {
						case "same":
							inner = l.Release(ctx)
						case "derived":
							dctx, cancel := context.WithTimeout(ctx, time.Minute)
							defer cancel()
							inner = l.Release(dctx)
						case "goroutine":
							done := make(chan error)
							go func() { done <- l.Release(ctx) }()
							inner = <-done
						}
						return nil
					})
				return err
			})
			require.NoError(t, err)
			assert.ErrorIs(t, inner, lease.ErrInProgress)
			assert.Equal(t, lease.Released, l.State())
		})
	}
}

// Misuse: every nil the doc names panics with an "acquire:" message, before calling anything.
func TestHostileNilInputsPanicWithPrefix(t *testing.T) {
	called := false
	acq := func(context.Context) (int, error) { called = true; return 1, nil }
	rel := func(context.Context, int) error { called = true; return nil }
	fn := func(context.Context, *acquire.Scope) error { called = true; return nil }
	var nilScope *acquire.Scope
	live := acquire.New(context.Background())
	var nilCtx context.Context
	tests := []struct {
		give string
		f    func()
	}{
		{"Run nil ctx", func() { _ = acquire.Run(nilCtx, fn) }},
		{"Run nil fn", func() { _ = acquire.Run(context.Background(), nil) }},
		{"Run nil option", func() { _ = acquire.Run(context.Background(), fn, nil) }},
		{"Run nil option after good", func() { _ = acquire.Run(context.Background(), fn, acquire.ReleaseTimeout(time.Second), nil) }},
		{"New nil ctx", func() { acquire.New(nilCtx) }},
		{"New nil option", func() { acquire.New(context.Background(), nil) }},
		{"Temporary nil scope", func() { _, _ = acquire.Temporary(nilScope, "a/b", acq, rel) }},
		{"Tentative nil scope", func() { _, _ = acquire.Tentative(nilScope, "a/b", acq, rel) }},
		{"Temporary nil acquire", func() { _, _ = acquire.Temporary[int](live, "a/b", nil, rel) }},
		{"Temporary nil release", func() { _, _ = acquire.Temporary(live, "a/b", acq, nil) }},
		{"Tentative nil release", func() { _, _ = acquire.Tentative(live, "a/b", acq, nil) }},
		{"Defer nil scope", func() { nilScope.Defer("a/b", func(context.Context) error { return nil }) }},
		{"Defer nil release", func() { live.Defer("a/b", nil) }},
		{"End nil scope", func() { var err error; nilScope.End(&err) }},
		{"ReleaseTimeout zero", func() { acquire.ReleaseTimeout(0) }},
		{"ReleaseTimeout negative", func() { acquire.ReleaseTimeout(-time.Second) }},
	}
	for _, tt := range tests {
		t.Run(tt.give, func(t *testing.T) {
			p := func() (p any) {
				defer func() { p = recover() }()
				tt.f()
				return nil
			}()
			require.NotNil(t, p)
			msg := fmt.Sprint(p)
			if e, ok := p.(error); ok {
				msg = e.Error()
			}
			assert.True(t, strings.HasPrefix(msg, "acquire:"), "panic %q", msg)
			assert.False(t, called, "something was called before the panic")
		})
	}
	var err error
	live.End(&err)
	require.NoError(t, err)
	// OnOrphan(nil) is ignored.
	err = acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
		s.Defer("a/b", func(context.Context) error { return errors.New("x") })
		return nil
	}, acquire.OnOrphan(nil))
	var oe *lease.OrphanError
	assert.ErrorAs(t, err, &oe)
}

// hGuard waits for done, failing the test if it never comes: a guard against a deadlock,
// never an assertion about time.
func hGuard(t *testing.T, what string, done <-chan struct{}) {
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
func TestHostileScopeUsedFromItsOwnRelease(t *testing.T) {
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
	hGuard(t, "Run whose release uses its scope", done)
	assert.ErrorIs(t, tempErr, acquire.ErrEnded)
	assert.False(t, acquired)
	assert.True(t, deferred, "a Defer from a release ran")
}

// Doc: the scope fails only when fn returns an error, panics or calls Goexit: an orphaned
// Temporary does not make a successful scope release its Tentative.
func TestHostileOrphanDoesNotFailTheScope(t *testing.T) {
	var tent *lease.Lease[string]
	err := acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
		var err error
		tent, err = acquire.Tentative(s, "forwarding-rule/fr",
			func(context.Context) (string, error) { return "fr", nil },
			func(context.Context, string) error { return nil })
		if err != nil {
			return err
		}
		_, err = acquire.Temporary(s, "address/tmp",
			func(context.Context) (string, error) { return "a", nil },
			func(context.Context, string) error { return errors.New("denied") })
		return err
	})
	var oe *lease.OrphanError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, "address/tmp", oe.Name)
	assert.Equal(t, lease.Kept, tent.State())
}

// Promise (lease): at most one successful release. A Temporary released by hand inside fn is
// not released again at the end; one whose hand release failed is retried by the end, and a
// successful retry leaves no orphan.
func TestHostileHandReleaseInsideScope(t *testing.T) {
	for _, firstFails := range []bool{false, true} {
		calls := 0
		var l *lease.Lease[string]
		var heard int
		err := acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
			var err error
			l, err = acquire.Temporary(s, "address/h",
				func(context.Context) (string, error) { return "h", nil },
				func(context.Context, string) error {
					calls++
					if firstFails && calls == 1 {
						return errors.New("once")
					}
					return nil
				})
			if err != nil {
				return err
			}
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			defer cancel()
			_ = l.Release(rctx)
			return nil
		}, acquire.OnOrphan(func(context.Context, *lease.OrphanError) { heard++ }))
		require.NoError(t, err, "firstFails=%v", firstFails)
		assert.Equal(t, lease.Released, l.State())
		want := 1
		if firstFails {
			want = 2
		}
		assert.Equal(t, want, calls, "firstFails=%v", firstFails)
		assert.Zero(t, heard)
	}
}

// Keep on a Temporary takes it out of the scope's hands, on every path.
func TestHostileKeepTemporaryOnFailure(t *testing.T) {
	called := false
	var l *lease.Lease[string]
	p := hOnGoroutine(func() {
		_ = acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
			l, _ = acquire.Temporary(s, "address/mine-now",
				func(context.Context) (string, error) { return "m", nil },
				func(context.Context, string) error { called = true; return nil })
			l.Keep()
			panic("after keep")
		})
	})
	assert.Equal(t, "after keep", p)
	assert.False(t, called)
	assert.Equal(t, lease.Kept, l.State())
}

// Promise (End): a non-nil *errp is a failure: Tentatives are released and the orphans are
// appended to the operation's own error, both reachable with errors.Is.
func TestHostileEndAppendsOrphansToError(t *testing.T) {
	cause := errors.New("health check failed")
	denied := errors.New("denied")
	var tent *lease.Lease[string]
	err := func() (err error) {
		s := acquire.New(context.Background())
		defer s.End(&err)
		tent, _ = acquire.Tentative(s, "backend-service/bs",
			func(context.Context) (string, error) { return "bs", nil },
			func(context.Context, string) error { return denied })
		return cause
	}()
	assert.ErrorIs(t, err, cause)
	assert.ErrorIs(t, err, denied)
	var oe *lease.OrphanError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, "backend-service/bs", oe.Name)
	assert.Equal(t, "backend-service", oe.Kind())
	assert.Equal(t, lease.Orphaned, tent.State())
}

// The wrapped form of End must judge like the direct form: a panic that a later deferred call
// of the same function recovered is over, and the function returned normally.
func TestHostileEndAfterRecoveredPanicSameFunction(t *testing.T) {
	for _, wrapped := range []bool{false, true} {
		var l *lease.Lease[string]
		err := func() (err error) {
			s := acquire.New(context.Background())
			if wrapped {
				defer func() { s.End(&err) }()
			} else {
				defer s.End(&err)
			}
			defer func() { _ = recover() }()
			l, _ = acquire.Tentative(s, "address/r",
				func(context.Context) (string, error) { return "r", nil },
				func(context.Context, string) error { return nil })
			panic("recovered below End")
		}()
		require.NoError(t, err)
		assert.Equal(t, lease.Kept, l.State(), "wrapped=%v", wrapped)
	}
}

// A test's fake cloud calling t.FailNow (runtime.Goexit) inside one release must not skip the
// other releases: they are still resources of the operation.
func TestHostileGoexitInReleaseStillRunsTheOthers(t *testing.T) {
	var older bool
	hOnGoroutine(func() {
		_ = acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
			s.Defer("address/older", func(context.Context) error { older = true; return nil })
			s.Defer("address/newer", func(context.Context) error { runtime.Goexit(); return nil })
			return nil
		})
	})
	assert.True(t, older, "the older release ran after a Goexit in the newer one")
}

// hDo is the helper a user writes around New/End, used at every level of a program.
func hDo(wrapped bool, f func(s *acquire.Scope) error) (err error) {
	s := acquire.New(context.Background())
	if wrapped {
		defer func() { s.End(&err) }()
	} else {
		defer s.End(&err)
	}
	return f(s)
}

func hTentative(s *acquire.Scope, name string) *lease.Lease[string] {
	l, err := acquire.Tentative(s, name,
		func(context.Context) (string, error) { return name, nil },
		func(context.Context, string) error { return nil })
	if err != nil {
		panic(err)
	}
	return l
}

// The same function on the stack twice: the outer call fails with a Goexit or a panic, and its
// deferred cleanup calls the same function again, which succeeds. Only the outer scope failed;
// End must tell the two calls apart by frame, not by function.
func TestHostileEndSameFunctionTwiceOnTheStack(t *testing.T) {
	for _, wrapped := range []bool{false, true} {
		for _, how := range []string{"goexit", "panic"} {
			for depth := 0; depth < 5; depth++ {
				var outer, inner *lease.Lease[string]
				hOnGoroutine(func() {
					_ = hDo(wrapped, func(s *acquire.Scope) error {
						outer = hTentative(s, "address/outer")
						defer hDeep(depth, func() {
							_ = hDo(wrapped, func(s *acquire.Scope) error {
								inner = hTentative(s, "address/inner")
								return nil
							})
						})
						if how == "panic" {
							panic("outer")
						}
						runtime.Goexit()
						return nil
					})
				})
				assert.Equal(t, lease.Released, outer.State(), "outer wrapped=%v %s depth=%d", wrapped, how, depth)
				assert.Equal(t, lease.Kept, inner.State(), "inner wrapped=%v %s depth=%d", wrapped, how, depth)
			}
		}
	}
}

// Run inside a deferred call of a Goexit or panic further up, at many depths: fn succeeded.
func TestHostileRunKeepsTentativeUnderUnrelatedUnwinding(t *testing.T) {
	for _, how := range []string{"goexit", "panic"} {
		for _, depth := range []int{0, 1, 2, 3, 7, 16, 33, 100} {
			var l *lease.Lease[string]
			hOnGoroutine(func() {
				defer hDeep(depth, func() {
					_ = acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
						l = hTentative(s, "address/run")
						return nil
					})
				})
				if how == "panic" {
					panic("unrelated")
				}
				runtime.Goexit()
			})
			assert.Equal(t, lease.Kept, l.State(), "%s depth=%d", how, depth)
		}
	}
}

// Deep stacks: End's judgement must not depend on how deep the program is.
func TestHostileEndAtGreatDepth(t *testing.T) {
	for _, wrapped := range []bool{false, true} {
		for _, depth := range []int{64, 200, 1000} {
			var kept, released *lease.Lease[string]
			hOnGoroutine(func() {
				defer hDeep(depth, func() {
					_ = hDo(wrapped, func(s *acquire.Scope) error { kept = hTentative(s, "address/k"); return nil })
				})
				hDeep(depth, func() {
					_ = hDo(wrapped, func(s *acquire.Scope) error {
						released = hTentative(s, "address/r")
						hDeep(depth, runtime.Goexit)
						return nil
					})
				})
			})
			assert.Equal(t, lease.Kept, kept.State(), "kept wrapped=%v depth=%d", wrapped, depth)
			assert.Equal(t, lease.Released, released.State(), "released wrapped=%v depth=%d", wrapped, depth)
		}
	}
}

//go:noinline
func hPanicSite(v any) { panic(v) }

// hStackAtRecover runs f and returns the panic value and the stack seen by a deferred call
// above f before it recovers.
func hStackAtRecover(f func()) (p any, stack string) {
	func() {
		defer func() {
			buf := make([]byte, 1<<16)
			stack = string(buf[:runtime.Stack(buf, false)])
			p = recover()
		}()
		f()
	}()
	return p, stack
}

// Promise (Run): "When fn panics, every release still runs, OnOrphan hears of every failure,
// and then the panic continues with its original value and stack", also when a release or
// OnOrphan panicked too.
func TestHostileRunPanicKeepsOriginalStack(t *testing.T) {
	for _, also := range []string{"nothing", "release panics", "onorphan panics"} {
		t.Run(also, func(t *testing.T) {
			released := false
			p, stack := hStackAtRecover(func() {
				_ = acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
					s.Defer("address/a", func(context.Context) error { released = true; return nil })
					s.Defer("address/b", func(context.Context) error {
						switch also {
						case "release panics":
							panic("release")
						case "onorphan panics":
							return errors.New("no")
						}
						return nil
					})
					hPanicSite("fn")
					return nil
				}, acquire.OnOrphan(func(context.Context, *lease.OrphanError) {
					if also == "onorphan panics" {
						panic("onorphan")
					}
				}))
			})
			assert.Equal(t, "fn", p)
			assert.True(t, released)
			assert.Contains(t, stack, "hPanicSite", "the stack of fn's panic is gone")
		})
	}
}

// panic(nil) is a panic (a *runtime.PanicNilError since Go 1.21): the scope fails.
func TestHostilePanicNil(t *testing.T) {
	for _, useEnd := range []bool{false, true} {
		var l *lease.Lease[string]
		p := hOnGoroutine(func() {
			if useEnd {
				_ = hDo(false, func(s *acquire.Scope) error { l = hTentative(s, "address/n"); panic(nil) })
				return
			}
			_ = acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
				l = hTentative(s, "address/n")
				panic(nil)
			})
		})
		var pn *runtime.PanicNilError
		assert.ErrorAs(t, p.(error), &pn, "useEnd=%v", useEnd)
		assert.Equal(t, lease.Released, l.State(), "useEnd=%v", useEnd)
	}
}

// Doc: a Scope ended twice does nothing the second time: no orphan is appended twice and no
// release runs twice.
func TestHostileEndTwiceAppendsOnce(t *testing.T) {
	calls := 0
	s := acquire.New(context.Background())
	s.Defer("address/a", func(context.Context) error { calls++; return errors.New("no") })
	var e1, e2 error
	s.End(&e1)
	s.End(&e2)
	assert.Error(t, e1)
	assert.NoError(t, e2)
	assert.Equal(t, 1, calls)
}

// Goroutines of the operation that race the end (against the advice, as buggy code does): every
// Defer runs exactly once, every acquisition that returned is released exactly once, and any
// failure among them reaches OnOrphan, whatever the interleaving.
func TestHostileRacingTheEndLosesNothing(t *testing.T) {
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
		orphansInErr := len(multierrErrors(err))
		assert.Equal(t, int32(n), deferRuns.Load(), "round %d", round)
		assert.Equal(t, acquired.Load(), releases.Load(), "round %d", round)
		assert.Equal(t, int32(n), heard.Load(), "every failed cleanup reaches OnOrphan once, round %d", round)
		assert.LessOrEqual(t, orphansInErr, n)
	}
}

// multierrErrors counts the orphans in err.
func multierrErrors(err error) []*lease.OrphanError {
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

var hDirect struct {
	wrapped bool
	l       *lease.Lease[string]
	err     error
}

// hEnsureDirect is a New/End function with no arguments, so that it can itself be the deferred
// call of a frame that panics or calls Goexit.
func hEnsureDirect() (err error) {
	s := acquire.New(context.Background())
	if hDirect.wrapped {
		defer func() { s.End(&err) }()
	} else {
		defer s.End(&err)
	}
	hDirect.l = hTentative(s, "address/direct")
	return nil
}

// The function itself deferred directly by a frame that panics or calls Goexit: that unwinding
// runs the function, not the function's deferred calls, so its scope succeeded.
func TestHostileEndInFunctionDeferredDirectlyByUnwindingFrame(t *testing.T) {
	for _, wrapped := range []bool{false, true} {
		for _, how := range []string{"goexit", "panic"} {
			hDirect.wrapped = wrapped
			hDirect.l = nil
			p := hOnGoroutine(func() {
				defer hEnsureDirect()
				if how == "panic" {
					panic("up")
				}
				runtime.Goexit()
			})
			if how == "panic" {
				assert.Equal(t, "up", p)
			}
			require.NotNil(t, hDirect.l)
			assert.Equal(t, lease.Kept, hDirect.l.State(), "wrapped=%v %s", wrapped, how)
		}
	}
}

// Goexit or panic started by a deferred call of the function itself, registered after End, or
// from a deferred call of a helper the body calls: the function failed.
func TestHostileEndFailsOnUnwindingStartedByOwnDefers(t *testing.T) {
	for _, wrapped := range []bool{false, true} {
		for _, how := range []string{"goexit", "panic"} {
			for _, where := range []string{"own defer", "helper defer"} {
				var l *lease.Lease[string]
				hOnGoroutine(func() {
					_ = hDo(wrapped, func(s *acquire.Scope) error {
						l = hTentative(s, "address/own")
						unwind := func() {
							if how == "panic" {
								panic("own")
							}
							runtime.Goexit()
						}
						if where == "own defer" {
							defer unwind()
							return nil
						}
						func() { defer unwind() }()
						return nil
					})
				})
				assert.Equal(t, lease.Released, l.State(), "wrapped=%v %s %s", wrapped, how, where)
			}
		}
	}
}

// hSameFrame defers End and then, in the same frame, a call that panics or calls Goexit.
func hSameFrame(wrapped bool, how string, l **lease.Lease[string]) (err error) {
	s := acquire.New(context.Background())
	if wrapped {
		defer func() { s.End(&err) }()
	} else {
		defer s.End(&err)
	}
	if how == "panic" {
		defer hPanicSite("same frame")
	} else {
		defer runtime.Goexit()
	}
	*l = hTentative(s, "address/same-frame")
	return nil
}

func TestHostileEndFailsOnUnwindingFromSameFrameDefer(t *testing.T) {
	for _, wrapped := range []bool{false, true} {
		for _, how := range []string{"goexit", "panic"} {
			var l *lease.Lease[string]
			p := hOnGoroutine(func() { _ = hSameFrame(wrapped, how, &l) })
			if how == "panic" {
				assert.Equal(t, "same frame", p)
			}
			assert.Equal(t, lease.Released, l.State(), "wrapped=%v %s", wrapped, how)
		}
	}
}

// Doc: "the zero Scope is not usable". A zero Scope once called acquire with a nil context,
// and its End then panicked in the standard library ("cannot create context from nil parent")
// without running the release: the resource acquired through it leaked. Misuse deserves an
// "acquire:" panic before anything is acquired.
func TestHostileZeroScope(t *testing.T) {
	var s acquire.Scope
	acquired, released := false, false
	p := func() (p any) {
		defer func() { p = recover() }()
		_, _ = acquire.Temporary(&s, "address/z",
			func(context.Context) (string, error) { acquired = true; return "z", nil },
			func(context.Context, string) error { released = true; return nil })
		var err error
		s.End(&err)
		return nil
	}()
	assert.True(t, strings.HasPrefix(fmt.Sprint(p), "acquire:"), "panic %v", p)
	assert.True(t, !acquired || released, "acquired through a zero Scope and never released")
}

const hChildEnv = "ACQUIRE_HOSTILE_CHILD"

// TestHostileChildFailNowThenCleanup runs only as a child of
// TestHostileEndKeepsTentativeInCleanupAfterFailNow: it fails on purpose.
func TestHostileChildFailNowThenCleanup(t *testing.T) {
	if os.Getenv(hChildEnv) == "" {
		t.Skip("hostile: runs only as a child of TestHostileEndKeepsTentativeInCleanupAfterFailNow")
	}
	for _, wrapped := range []bool{false, true} {
		wrapped := wrapped
		t.Cleanup(func() {
			l, err := hEnsure(wrapped, func() error { return nil })
			fmt.Printf("HOSTILE wrapped=%v state=%v err=%v\n", wrapped, l.State(), err)
		})
	}
	t.FailNow()
}

// Promise (End): a Goexit further up the stack, here t.FailNow's, is not a failure of a scope
// whose function is only called from a t.Cleanup.
func TestHostileEndKeepsTentativeInCleanupAfterFailNow(t *testing.T) {
	if os.Getenv(hChildEnv) != "" {
		t.Skip("hostile: this is the parent")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHostileChildFailNowThenCleanup$", "-test.count=1")
	cmd.Env = append(os.Environ(), hChildEnv+"=1")
	out, _ := cmd.CombinedOutput()
	assert.Contains(t, string(out), "HOSTILE wrapped=false state=kept err=<nil>")
	assert.Contains(t, string(out), "HOSTILE wrapped=true state=kept err=<nil>")
}
