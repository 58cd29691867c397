package acquire_test

import (
	"context"
	"fmt"
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
	c := newCloud()
	var err error
	t.Run("skipped", func(t *testing.T) {
		t.Cleanup(func() { err = ensureRule(c, false, func() {}) })
		t.Skip("stops the test with runtime.Goexit, as t.FailNow does")
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"rule"}, c.inventory(), "the scope in the cleanup succeeded")
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

// TestPanickingOnOrphanKeepsFnPanic: OnOrphan panics for a failed release while fn's own panic
// unwinds: every release still runs, and fn's panic continues with its value.
func TestPanickingOnOrphanKeepsFnPanic(t *testing.T) {
	type boom struct{ step string }
	c := newCloud()
	c.failRelease["address"] = errFlaky
	heard := 0
	var recovered any
	func() {
		defer func() { recovered = recover() }()
		_ = acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
			_, _ = acquire.Temporary(s, "first", c.reserve("first"), c.release)
			_, _ = acquire.Temporary(s, "address", c.reserve("address"), c.release)
			panic(boom{"health-check"})
		}, acquire.OnOrphan(func(context.Context, *lease.OrphanError) {
			heard++
			panic("metrics client is nil")
		}))
	}()
	assert.Equal(t, boom{"health-check"}, recovered, "fn's panic value continues")
	assert.Equal(t, 1, heard)
	assert.Equal(t, []string{"address"}, c.inventory(), "the release after the orphan still ran")
}

// TestPanickingOnOrphanIsRaised: when fn did not panic, a panicking OnOrphan is raised again
// after every release has run, by Run and by End, and the orphans are still returned.
func TestPanickingOnOrphanIsRaised(t *testing.T) {
	onOrphan := acquire.OnOrphan(func(_ context.Context, oe *lease.OrphanError) { panic("on orphan " + oe.Name) })
	t.Run("Run", func(t *testing.T) {
		c := newCloud()
		c.failRelease["a"], c.failRelease["b"] = errFlaky, errFlaky
		assert.PanicsWithValue(t, "on orphan b", func() {
			_ = acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
				_, _ = acquire.Temporary(s, "first", c.reserve("first"), c.release)
				_, _ = acquire.Temporary(s, "a", c.reserve("a"), c.release)
				_, _ = acquire.Temporary(s, "b", c.reserve("b"), c.release)
				return nil
			}, onOrphan)
		})
		assert.Equal(t, []string{"a", "b"}, c.inventory(), "first was released after both orphans")
	})
	t.Run("End", func(t *testing.T) {
		c := newCloud()
		c.failRelease["a"] = errFlaky
		var err error
		assert.PanicsWithValue(t, "on orphan a", func() {
			err = func() (err error) {
				s := acquire.New(context.Background(), onOrphan)
				defer s.End(&err)
				_, _ = acquire.Temporary(s, "first", c.reserve("first"), c.release)
				_, err = acquire.Temporary(s, "a", c.reserve("a"), c.release)
				return err
			}()
		})
		assert.NoError(t, err, "End panicked instead of returning")
		assert.Equal(t, []string{"a"}, c.inventory())
	})
}
