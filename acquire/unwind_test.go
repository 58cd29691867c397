package acquire_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/acquire"
	"github.com/safereconcile/safereconcile/lease"
)

// nest calls f n frames further down the stack.
//
//go:noinline
func nest(n int, f func()) {
	if n == 0 {
		f()
		return
	}
	nest(n-1, f)
}

// ensureRule makes a scope with New, acquires a Tentative "rule" and returns after calling
// during; wrapped says whether End is deferred inside a closure.
func ensureRule(c *cloud, wrapped bool, during func()) (err error) {
	s := acquire.New(context.Background())
	if wrapped {
		defer func() { s.End(&err) }()
	} else {
		defer s.End(&err)
	}
	if _, err := acquire.Tentative(s, "rule", c.reserve("rule"), c.release); err != nil {
		return err
	}
	during()
	return nil
}

// inGoroutine runs f on a goroutine of its own and waits until it has ended, however it ends.
func inGoroutine(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	<-done
}

// TestEndGoexitOfItsOwnFunction: runtime.Goexit that runs the defers of the function that made
// the scope is a failure, wherever below that function it was called: the Tentative goes.
func TestEndGoexitOfItsOwnFunction(t *testing.T) {
	for _, wrapped := range []bool{false, true} {
		for _, depth := range []int{0, 1, 10, 40, 100} {
			t.Run(fmt.Sprintf("wrapped=%v/depth=%d", wrapped, depth), func(t *testing.T) {
				c := newCloud()
				inGoroutine(func() { _ = ensureRule(c, wrapped, func() { nest(depth, runtime.Goexit) }) })
				assert.Empty(t, c.inventory(), "Goexit failed the scope: the Tentative is released")
			})
		}
	}
}

// TestEndGoexitFurtherUp: a scope that succeeds inside a deferred call of a goroutine that
// called runtime.Goexit keeps its Tentative, whatever the depth of either: the Goexit is not
// this scope's.
func TestEndGoexitFurtherUp(t *testing.T) {
	for _, wrapped := range []bool{false, true} {
		for _, depth := range []int{0, 1, 5, 14, 40, 100} {
			t.Run(fmt.Sprintf("wrapped=%v/depth=%d", wrapped, depth), func(t *testing.T) {
				c := newCloud()
				var err error
				inGoroutine(func() {
					defer nest(depth, func() { err = ensureRule(c, wrapped, func() {}) })
					nest(depth, runtime.Goexit)
				})
				require.NoError(t, err)
				assert.Equal(t, []string{"rule"}, c.inventory(), "the scope succeeded: its Tentative is kept")
			})
		}
	}
}

// TestEndInCleanupAfterSkip: t.Cleanup runs while t.Skip's runtime.Goexit unwinds the test;
// a scope that succeeds in the cleanup keeps its Tentative. (t.FailNow unwinds the same way,
// but would fail this test too.)
func TestEndInCleanupAfterSkip(t *testing.T) {
	for _, wrapped := range []bool{false, true} {
		c := newCloud()
		var err error
		t.Run(fmt.Sprint("wrapped=", wrapped), func(t *testing.T) {
			t.Cleanup(func() { err = ensureRule(c, wrapped, func() {}) })
			t.Skip("stops the test with runtime.Goexit, as t.FailNow does")
		})
		require.NoError(t, err)
		assert.Equal(t, []string{"rule"}, c.inventory(), "the scope in the cleanup succeeded, wrapped=%v", wrapped)
	}
}

// TestEndPanicThroughClosure: with End deferred inside a closure, End cannot recover the
// panic, but the panic is still a failure of the scope: the Tentative goes, and the panic
// continues.
func TestEndPanicThroughClosure(t *testing.T) {
	c := newCloud()
	assert.PanicsWithValue(t, "boom", func() { _ = ensureRule(c, true, func() { panic("boom") }) })
	assert.Empty(t, c.inventory())
}

// TestEndScopeFromHelper: New called by a helper; End deferred by the helper's caller still
// tells its own Goexit from one further up.
func TestEndScopeFromHelper(t *testing.T) {
	newScope := func() *acquire.Scope { return acquire.New(context.Background()) }
	ensure := func(c *cloud, during func()) (err error) {
		s := newScope()
		defer s.End(&err)
		_, err = acquire.Tentative(s, "rule", c.reserve("rule"), c.release)
		during()
		return err
	}
	c := newCloud()
	inGoroutine(func() { _ = ensure(c, runtime.Goexit) })
	assert.Empty(t, c.inventory(), "its own Goexit")

	c = newCloud()
	inGoroutine(func() {
		defer func() { _ = ensure(c, func() {}) }()
		runtime.Goexit()
	})
	assert.Equal(t, []string{"rule"}, c.inventory(), "a Goexit further up")
}

// ensureForwardingRule is a function in the documented New/End shape: it acquires a Tentative and
// returns what body returns. wrapped selects `defer func() { s.End(&err) }()`.
func ensureForwardingRule(wrapped bool, body func() error) (l *lease.Lease[string], err error) {
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

// newScopeInHelper makes the scope in a helper, which the doc says not to do.
func newScopeInHelper() *acquire.Scope { return acquire.New(context.Background()) }

// ensureWithHelperNew is ensureForwardingRule with New called in a helper.
func ensureWithHelperNew(body func()) (l *lease.Lease[string], err error) {
	s := newScopeInHelper()
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

// runOnGoroutine runs f on a new goroutine and waits for it, whether it returns, panics
// (the value is returned) or calls runtime.Goexit.
func runOnGoroutine(f func()) (panicked any) {
	done := make(chan any, 1)
	go func() {
		var p any
		defer func() { done <- p }()
		defer func() { p = recover() }()
		f()
	}()
	return <-done
}

// A runtime.Goexit or a panic that runs further up the stack, and only calls the function from
// a deferred call of its own, is not a failure of the function's scope, at any depth: its
// Tentative is kept, and the panic goes on with its value.
func TestEndKeepsTentativeUnderUnrelatedUnwindingAtAnyDepth(t *testing.T) {
	for _, how := range []string{"goexit", "panic"} {
		for _, wrapped := range []bool{false, true} {
			for depth := 0; depth < 40; depth++ {
				var l *lease.Lease[string]
				var err error
				p := runOnGoroutine(func() {
					defer nest(depth, func() { l, err = ensureForwardingRule(wrapped, func() error { return nil }) })
					if how == "panic" {
						panic("unrelated")
					}
					runtime.Goexit()
				})
				if how == "panic" {
					assert.Equal(t, "unrelated", p)
				}
				require.NoError(t, err)
				require.NotNil(t, l)
				assert.Equal(t, lease.Kept, l.State(), "%s wrapped=%v depth=%d", how, wrapped, depth)
			}
		}
	}
}

// The other side: a Goexit or panic in the function's own body, at any
// depth below it, fails the scope and releases the Tentative, also when an unrelated Goexit is
// already unwinding further up.
func TestEndReleasesTentativeOnOwnGoexitAndPanicAtAnyDepth(t *testing.T) {
	for _, wrapped := range []bool{false, true} {
		for depth := 0; depth < 30; depth++ {
			var l *lease.Lease[string]
			var got *lease.Lease[string]
			runOnGoroutine(func() {
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
				nest(depth, runtime.Goexit)
			})
			assert.Equal(t, lease.Released, got.State(), "own Goexit wrapped=%v depth=%d", wrapped, depth)

			p := runOnGoroutine(func() {
				defer nest(depth, func() {
					swallowPanic(func() {
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
						nest(depth, func() { panic("own") })
					})
				})
				runtime.Goexit()
			})
			assert.Nil(t, p)
			assert.Equal(t, lease.Released, l.State(), "own panic under Goexit wrapped=%v depth=%d", wrapped, depth)
		}
	}
}

// swallowPanic runs f and swallows its panic, on the current goroutine.
func swallowPanic(f func()) {
	defer func() { _ = recover() }()
	f()
}

// "Call New and defer End in the same function." When New is in a helper, a failure of
// the function must still release its Tentative (a kept Tentative of a failed operation is the
// #97740 leak): an error, a panic and a Goexit.
func TestNewInHelperStillReleasesOnFailure(t *testing.T) {
	var l *lease.Lease[string]
	p := runOnGoroutine(func() {
		_, _ = ensureWithHelperNew(func() { panic("boom") })
	})
	assert.Equal(t, "boom", p)

	runOnGoroutine(func() {
		s := newScopeInHelper()
		var err error
		defer s.End(&err)
		l, _ = acquire.Tentative(s, "address/a-3",
			func(context.Context) (string, error) { return "a-3", nil },
			func(context.Context, string) error { return nil })
		runtime.Goexit()
	})
	assert.Equal(t, lease.Released, l.State(), "Goexit with New in a helper")

	runOnGoroutine(func() {
		s := newScopeInHelper()
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
func TestEndAfterRecoveredPanicIsSuccess(t *testing.T) {
	l, err := ensureForwardingRule(false, func() error {
		func() {
			defer func() { _ = recover() }()
			panic("handled")
		}()
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, lease.Kept, l.State())
}

// The wrapped form of End must judge like the direct form: a panic that a later deferred call
// of the same function recovered is over, and the function returned normally.
func TestEndAfterPanicRecoveredByALaterDeferIsSuccess(t *testing.T) {
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

// withScope is the helper a user writes around New/End, used at every level of a program.
func withScope(wrapped bool, f func(s *acquire.Scope) error) (err error) {
	s := acquire.New(context.Background())
	if wrapped {
		defer func() { s.End(&err) }()
	} else {
		defer s.End(&err)
	}
	return f(s)
}

func tentative(s *acquire.Scope, name string) *lease.Lease[string] {
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
func TestEndTellsTwoCallsOfOneFunctionApart(t *testing.T) {
	for _, wrapped := range []bool{false, true} {
		for _, how := range []string{"goexit", "panic"} {
			for depth := 0; depth < 5; depth++ {
				var outer, inner *lease.Lease[string]
				runOnGoroutine(func() {
					_ = withScope(wrapped, func(s *acquire.Scope) error {
						outer = tentative(s, "address/outer")
						defer nest(depth, func() {
							_ = withScope(wrapped, func(s *acquire.Scope) error {
								inner = tentative(s, "address/inner")
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
func TestRunKeepsTentativeUnderUnrelatedUnwinding(t *testing.T) {
	for _, how := range []string{"goexit", "panic"} {
		for _, depth := range []int{0, 1, 2, 3, 7, 16, 33, 100} {
			var l *lease.Lease[string]
			runOnGoroutine(func() {
				defer nest(depth, func() {
					_ = acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
						l = tentative(s, "address/run")
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
func TestEndAtGreatDepth(t *testing.T) {
	for _, wrapped := range []bool{false, true} {
		for _, depth := range []int{64, 200, 1000} {
			var kept, released *lease.Lease[string]
			runOnGoroutine(func() {
				defer nest(depth, func() {
					_ = withScope(wrapped, func(s *acquire.Scope) error { kept = tentative(s, "address/k"); return nil })
				})
				nest(depth, func() {
					_ = withScope(wrapped, func(s *acquire.Scope) error {
						released = tentative(s, "address/r")
						nest(depth, runtime.Goexit)
						return nil
					})
				})
			})
			assert.Equal(t, lease.Kept, kept.State(), "kept wrapped=%v depth=%d", wrapped, depth)
			assert.Equal(t, lease.Released, released.State(), "released wrapped=%v depth=%d", wrapped, depth)
		}
	}
}

var directCase struct {
	wrapped bool
	l       *lease.Lease[string]
	err     error
}

// ensureDirect is a New/End function with no arguments, so that it can itself be the deferred
// call of a frame that panics or calls Goexit.
func ensureDirect() (err error) {
	s := acquire.New(context.Background())
	if directCase.wrapped {
		defer func() { s.End(&err) }()
	} else {
		defer s.End(&err)
	}
	directCase.l = tentative(s, "address/direct")
	return nil
}

// The function itself deferred directly by a frame that panics or calls Goexit: that unwinding
// runs the function, not the function's deferred calls, so its scope succeeded.
func TestEndInFunctionDeferredDirectlyByUnwindingFrame(t *testing.T) {
	for _, wrapped := range []bool{false, true} {
		for _, how := range []string{"goexit", "panic"} {
			directCase.wrapped = wrapped
			directCase.l = nil
			p := runOnGoroutine(func() {
				defer ensureDirect()
				if how == "panic" {
					panic("up")
				}
				runtime.Goexit()
			})
			if how == "panic" {
				assert.Equal(t, "up", p)
			}
			require.NotNil(t, directCase.l)
			assert.Equal(t, lease.Kept, directCase.l.State(), "wrapped=%v %s", wrapped, how)
		}
	}
}

// Goexit or panic started by a deferred call of the function itself, registered after End, or
// from a deferred call of a helper the body calls: the function failed.
func TestEndFailsOnUnwindingStartedByOwnDefers(t *testing.T) {
	for _, wrapped := range []bool{false, true} {
		for _, how := range []string{"goexit", "panic"} {
			for _, where := range []string{"own defer", "helper defer"} {
				var l *lease.Lease[string]
				runOnGoroutine(func() {
					_ = withScope(wrapped, func(s *acquire.Scope) error {
						l = tentative(s, "address/own")
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

// sameFrameUnwind defers End and then, in the same frame, a call that panics or calls Goexit.
func sameFrameUnwind(wrapped bool, how string, l **lease.Lease[string]) (err error) {
	s := acquire.New(context.Background())
	if wrapped {
		defer func() { s.End(&err) }()
	} else {
		defer s.End(&err)
	}
	if how == "panic" {
		defer panicSite("same frame")
	} else {
		defer runtime.Goexit()
	}
	*l = tentative(s, "address/same-frame")
	return nil
}

func TestEndFailsOnUnwindingFromSameFrameDefer(t *testing.T) {
	for _, wrapped := range []bool{false, true} {
		for _, how := range []string{"goexit", "panic"} {
			var l *lease.Lease[string]
			p := runOnGoroutine(func() { _ = sameFrameUnwind(wrapped, how, &l) })
			if how == "panic" {
				assert.Equal(t, "same frame", p)
			}
			assert.Equal(t, lease.Released, l.State(), "wrapped=%v %s", wrapped, how)
		}
	}
}

const childEnv = "ACQUIRE_CHILD_FAILNOW"

// TestChildFailNowThenCleanup runs only as a child of
// TestEndKeepsTentativeInCleanupAfterFailNow: it fails on purpose.
func TestChildFailNowThenCleanup(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("runs only as a child of TestEndKeepsTentativeInCleanupAfterFailNow")
	}
	for _, wrapped := range []bool{false, true} {
		wrapped := wrapped
		t.Cleanup(func() {
			l, err := ensureForwardingRule(wrapped, func() error { return nil })
			fmt.Printf("CHILD wrapped=%v state=%v err=%v\n", wrapped, l.State(), err)
		})
	}
	t.FailNow()
}

// a Goexit further up the stack, here t.FailNow's, is not a failure of a scope
// whose function is only called from a t.Cleanup.
func TestEndKeepsTentativeInCleanupAfterFailNow(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("this is the child")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildFailNowThenCleanup$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, _ := cmd.CombinedOutput()
	assert.Contains(t, string(out), "CHILD wrapped=false state=kept err=<nil>")
	assert.Contains(t, string(out), "CHILD wrapped=true state=kept err=<nil>")
}
