package acquire_test

// Panics and runtime.Goexit in fn, in a release and in OnOrphan: every release still runs,
// and the operation's own panic continues with its value and stack.

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/safereconcile/safereconcile/acquire"
	"github.com/safereconcile/safereconcile/lease"
	"github.com/safereconcile/safereconcile/lease/leasetest"
	"github.com/stretchr/testify/assert"
)

// A test's fake cloud calling t.FailNow (runtime.Goexit) inside one release must not skip the
// other releases: they are still resources of the operation.
func TestGoexitInReleaseStillRunsTheOthers(t *testing.T) {
	var older bool
	runOnGoroutine(func() {
		_ = acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
			s.Defer("address/older", func(context.Context) error { older = true; return nil })
			s.Defer("address/newer", func(context.Context) error { runtime.Goexit(); return nil })
			return nil
		})
	})
	assert.True(t, older, "the older release ran after a Goexit in the newer one")
}

//go:noinline
func panicSite(v any) { panic(v) }

// stackAtRecover runs f and returns the panic value and the stack seen by a deferred call
// above f before it recovers.
func stackAtRecover(f func()) (p any, stack string) {
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

// "When fn panics, every release still runs, OnOrphan hears of every failure,
// and then the panic continues with its original value and stack", also when a release or
// OnOrphan panicked too.
func TestRunPanicKeepsOriginalStack(t *testing.T) {
	for _, also := range []string{"nothing", "release panics", "onorphan panics"} {
		t.Run(also, func(t *testing.T) {
			released := false
			p, stack := stackAtRecover(func() {
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
					panicSite("fn")
					return nil
				}, acquire.OnOrphan(func(context.Context, *lease.OrphanError) {
					if also == "onorphan panics" {
						panic("onorphan")
					}
				}))
			})
			assert.Equal(t, "fn", p)
			assert.True(t, released)
			assert.Contains(t, stack, "panicSite", "the stack of fn's panic is gone")
		})
	}
}

// panic(nil) is a panic (a *runtime.PanicNilError since Go 1.21): the scope fails.
func TestPanicNilIsAFailure(t *testing.T) {
	for _, useEnd := range []bool{false, true} {
		var l *lease.Lease[string]
		p := runOnGoroutine(func() {
			if useEnd {
				_ = withScope(false, func(s *acquire.Scope) error { l = tentative(s, "address/n"); panic(nil) })
				return
			}
			_ = acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
				l = tentative(s, "address/n")
				panic(nil)
			})
		})
		var pn *runtime.PanicNilError
		assert.ErrorAs(t, p.(error), &pn, "useEnd=%v", useEnd)
		assert.Equal(t, lease.Released, l.State(), "useEnd=%v", useEnd)
	}
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

func TestPanicReleasesThenRepanics(t *testing.T) {
	ctx := leasetest.Context(t, context.Background())
	c := newCloud()
	type boom struct{ step string }
	var recovered any
	func() {
		defer func() { recovered = recover() }()
		_ = acquire.Run(ctx, func(ctx context.Context, s *acquire.Scope) error {
			_, _ = acquire.Temporary(s, "address", c.reserve("address"), c.release)
			_, _ = acquire.Tentative(s, "firewall", c.reserve("firewall"), c.release)
			panic(boom{"health-check"})
		})
	}()
	assert.Equal(t, boom{"health-check"}, recovered, "the same panic value continues")
	assert.Empty(t, c.inventory(), "a panic is a failure: tentative resources are released too")
}

func TestPanickingReleaseDoesNotStopOthers(t *testing.T) {
	c := newCloud()
	var orphans []string
	var recovered any
	func() {
		defer func() { recovered = recover() }()
		_ = acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
			_, _ = acquire.Temporary(s, "a", c.reserve("a"), c.release)
			s.Defer("bad", func(context.Context) error { panic("nil client") })
			return nil
		}, acquire.OnOrphan(func(_ context.Context, oe *lease.OrphanError) { orphans = append(orphans, oe.Error()) }))
	}()
	assert.Equal(t, "nil client", recovered, "a release's panic is raised again after the other releases")
	assert.Empty(t, c.inventory())
	assert.Equal(t, []string{"lease: bad orphaned: acquire: release panicked: nil client"}, orphans)
}

// TestReleaseGoexitIsReported: a release that calls runtime.Goexit (t.FailNow inside a fake)
// ends the goroutine, but its orphan is still reported and the other releases still run.
func TestReleaseGoexitIsReported(t *testing.T) {
	c := newCloud()
	var orphans []string
	var l *lease.Lease[int]
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
			_, _ = acquire.Temporary(s, "a", c.reserve("a"), c.release)
			l, _ = acquire.Temporary(s, "g", func(context.Context) (int, error) { return 1, nil },
				func(context.Context, int) error { runtime.Goexit(); return nil })
			return nil
		}, acquire.OnOrphan(func(_ context.Context, oe *lease.OrphanError) { orphans = append(orphans, oe.Error()) }))
	}()
	<-done
	assert.Equal(t, []string{"lease: g orphaned: acquire: release called runtime.Goexit"}, orphans)
	assert.Equal(t, lease.Orphaned, l.State())
	assert.Empty(t, c.inventory(), "the release after the one that exited still ran")
}

// A panic in OnOrphan is treated as a panic in that release: the other releases still run, and
// then Run or End raises it again, unless the operation itself panicked, whose panic then
// continues with its own value.
func TestPanickingOnOrphanIsHeldBack(t *testing.T) {
	for _, via := range []string{"Run", "End"} {
		for _, fnPanics := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/fnPanics=%v", via, fnPanics), func(t *testing.T) {
				var released, heard []string
				onOrphan := acquire.OnOrphan(func(_ context.Context, e *lease.OrphanError) {
					heard = append(heard, e.Name)
					panic("onorphan " + e.Name)
				})
				body := func(s *acquire.Scope) {
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
				}
				p := runOnGoroutine(func() {
					if via == "Run" {
						_ = acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
							body(s)
							return nil
						}, onOrphan)
						return
					}
					var err error
					s := acquire.New(context.Background(), onOrphan)
					defer s.End(&err)
					body(s)
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
}
