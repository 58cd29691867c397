package acquire_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/acquire"
	"github.com/safereconcile/safereconcile/lease"
	"github.com/safereconcile/safereconcile/lease/leasetest"
)

// ensure is the shape of the GCE internal load balancer's ensure function: a temporary address
// reservation, then durable resources that use it, the forwarding rule last.
func ensure(ctx context.Context, c *cloud, opts ...acquire.Option) error {
	return acquire.Run(ctx, func(ctx context.Context, s *acquire.Scope) error {
		if _, err := acquire.Temporary(s, "address", c.reserve("address"), c.release); err != nil {
			return err
		}
		for _, name := range []string{"firewall", "health-check", "backend-service", "forwarding-rule"} {
			if _, err := acquire.Tentative(s, name, c.reserve(name), c.release); err != nil {
				return err
			}
		}
		return nil
	}, opts...)
}

var ensureSteps = []string{"address", "firewall", "health-check", "backend-service", "forwarding-rule"}

// TestEnsureErrors fails each step of ensure in turn, then looks at what exists in the cloud.
func TestEnsureErrors(t *testing.T) {
	for _, step := range ensureSteps {
		t.Run(step, func(t *testing.T) {
			ctx := leasetest.Context(t, context.Background())
			c := newCloud()
			c.failAcquire[step] = errQuota

			err := ensure(ctx, c)

			require.ErrorIs(t, err, errQuota)
			assert.Equal(t, fmt.Sprintf("acquire %s: %v", step, errQuota), err.Error())
			assert.False(t, c.exists("address"), "the temporary reservation outlived the failed attempt")
			assert.Empty(t, c.inventory(), "a failed attempt releases its tentative resources too")
		})
	}
}

func TestEnsureSuccessKeepsDurableResources(t *testing.T) {
	ctx := leasetest.Context(t, context.Background())
	c := newCloud()
	require.NoError(t, ensure(ctx, c))
	assert.Equal(t, []string{"backend-service", "firewall", "forwarding-rule", "health-check"}, c.inventory())
	assert.Equal(t, "release address", c.calls()[len(c.calls())-1])
}

func TestReleaseOrderIsLIFO(t *testing.T) {
	c := newCloud()
	err := acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
		_, _ = acquire.Temporary(s, "a", c.reserve("a"), c.release)
		s.Defer("b", c.cleanup("b"))
		_, _ = acquire.Tentative(s, "c", c.reserve("c"), c.release)
		_, _ = acquire.Temporary(s, "d", c.reserve("d"), c.release)
		s.Defer("e", c.cleanup("e"))
		return errFlaky
	})
	require.ErrorIs(t, err, errFlaky)
	want := []string{"reserve a", "reserve c", "reserve d", "cleanup e", "release d", "release c", "cleanup b", "release a"}
	if diff := cmp.Diff(want, c.calls()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

func TestGoexitReleases(t *testing.T) {
	ctx := leasetest.Context(t, context.Background())
	c := newCloud()
	var tent *lease.Lease[string]
	after := false
	done := make(chan error, 1)
	go func() {
		defer close(done)
		err := acquire.Run(ctx, func(ctx context.Context, s *acquire.Scope) error {
			_, _ = acquire.Temporary(s, "address", c.reserve("address"), c.release)
			tent, _ = acquire.Tentative(s, "firewall", c.reserve("firewall"), c.release)
			runtime.Goexit() // what t.FailNow does inside a fake
			return nil
		})
		after = true
		done <- err // never reached
	}()
	_, reached := <-done
	assert.False(t, reached || after, "Run does not return from runtime.Goexit: it goes on")
	assert.Empty(t, c.inventory(), "Goexit is a failure: everything is released")
	assert.Equal(t, lease.Released, tent.State())
}

func TestFailedReleaseIsOrphan(t *testing.T) {
	c := newCloud()
	c.failRelease["address"] = errFlaky
	c.failAcquire["forwarding-rule"] = errQuota
	var got []*lease.OrphanError
	var addr *lease.Lease[string]
	err := acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
		var err error
		addr, err = acquire.Temporary(s, "address", c.reserve("address"), c.release)
		require.NoError(t, err)
		_, err = acquire.Tentative(s, "forwarding-rule", c.reserve("forwarding-rule"), c.release)
		return err
	}, acquire.OnOrphan(func(ctx context.Context, oe *lease.OrphanError) {
		require.NoError(t, ctx.Err())
		got = append(got, oe)
	}))

	require.ErrorIs(t, err, errQuota, "the operation's own error is kept")
	require.ErrorIs(t, err, errFlaky, "the release failure is returned too")
	var oe *lease.OrphanError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, "address", oe.Name)
	require.Len(t, got, 1, "OnOrphan is called once per failed release")
	assert.Same(t, oe, got[0])
	assert.Equal(t, lease.Orphaned, addr.State())
	assert.True(t, c.exists("address"), "the orphan really is still there")

	delete(c.failRelease, "address")
	require.NoError(t, addr.Release(context.Background()), "an orphan can be released later")
	assert.False(t, c.exists("address"))
}

func TestEveryFailedReleaseIsReported(t *testing.T) {
	c := newCloud()
	errA, errB := errors.New("a failed"), errors.New("b failed")
	c.failRelease["a"], c.failRelease["b"] = errA, errB
	calls := 0
	err := acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
		_, _ = acquire.Temporary(s, "a", c.reserve("a"), c.release)
		s.Defer("b", c.cleanup("b"))
		_, _ = acquire.Temporary(s, "c", c.reserve("c"), c.release)
		return nil
	}, acquire.OnOrphan(func(context.Context, *lease.OrphanError) { calls++ }))
	assert.ErrorIs(t, err, errA)
	assert.ErrorIs(t, err, errB)
	assert.Equal(t, 2, calls)
	assert.Equal(t, "lease: b orphaned: b failed; lease: a orphaned: a failed", err.Error())
	assert.Equal(t, []string{"a"}, c.inventory(), "c was still released after b failed")
}

func TestTentativeKeptOnSuccessUnlessFailed(t *testing.T) {
	for _, fail := range []bool{false, true} {
		t.Run(fmt.Sprintf("fail=%v", fail), func(t *testing.T) {
			c := newCloud()
			var rule *lease.Lease[string]
			err := acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
				var err error
				rule, err = acquire.Tentative(s, "rule", c.reserve("rule"), c.release)
				require.NoError(t, err)
				if fail {
					return errFlaky
				}
				return nil
			})
			if fail {
				require.ErrorIs(t, err, errFlaky)
				assert.Equal(t, lease.Released, rule.State())
				assert.Empty(t, c.inventory())
			} else {
				require.NoError(t, err)
				assert.Equal(t, lease.Kept, rule.State())
				assert.Equal(t, []string{"rule"}, c.inventory())
			}
		})
	}
}

// TestKeepTakesLeaseOutOfScope: Keep on a Temporary hands the resource to a longer-lived owner:
// the scope never releases it, even when the operation fails. (It is not how to spare a
// resource that is not ours: that never enters the scope, see ExampleScope_userAddress.)
func TestKeepTakesLeaseOutOfScope(t *testing.T) {
	c := newCloud()
	c.failAcquire["forwarding-rule"] = errQuota
	err := acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
		addr, err := acquire.Temporary(s, "static-ip", c.reserve("static-ip"), c.release)
		if err != nil {
			return err
		}
		addr.Keep() // promoted to the Service's static IP: no longer this sync's to release
		_, err = acquire.Tentative(s, "forwarding-rule", c.reserve("forwarding-rule"), c.release)
		return err
	})
	require.ErrorIs(t, err, errQuota)
	assert.Equal(t, []string{"static-ip"}, c.inventory())
}

func TestAcquireFailureRegistersNothing(t *testing.T) {
	released := false
	err := acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
		l, err := acquire.Temporary(s, "address",
			func(context.Context) (string, error) { return "half-made", errQuota },
			func(context.Context, string) error { released = true; return nil })
		assert.Nil(t, l)
		return err
	})
	require.ErrorIs(t, err, errQuota)
	assert.False(t, released, "a failed acquire is never released")
}

func TestNewEnd(t *testing.T) {
	tests := []struct {
		name    string
		giveErr error
		panics  bool
		want    []string
	}{
		{name: "success", want: []string{"rule"}},
		{name: "error", giveErr: errQuota, want: []string{}},
		{name: "panic", panics: true, want: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := leasetest.Context(t, context.Background())
			c := newCloud()
			ensure := func() (err error) {
				s := acquire.New(ctx)
				defer s.End(&err)
				if _, err := acquire.Temporary(s, "address", c.reserve("address"), c.release); err != nil {
					return err
				}
				if _, err := acquire.Tentative(s, "rule", c.reserve("rule"), c.release); err != nil {
					return err
				}
				if tt.panics {
					panic("boom")
				}
				return tt.giveErr
			}
			if tt.panics {
				assert.PanicsWithValue(t, "boom", func() { _ = ensure() }, "End re-raises the same panic")
			} else {
				assert.Equal(t, tt.giveErr, ensure())
			}
			assert.Equal(t, tt.want, c.inventory())
		})
	}
}

func TestEndAppendsOrphans(t *testing.T) {
	c := newCloud()
	c.failRelease["address"] = errFlaky
	ensure := func() (err error) {
		s := acquire.New(context.Background())
		defer s.End(&err)
		_, err = acquire.Temporary(s, "address", c.reserve("address"), c.release)
		return err
	}
	err := ensure()
	var oe *lease.OrphanError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, "address", oe.Name)
	assert.ErrorIs(t, err, errFlaky)
}

// A non-nil *errp is a failure: Tentatives are released, and the orphans are appended to the
// operation's own error, each reachable with errors.Is.
func TestEndAppendsOrphansToTheOperationsError(t *testing.T) {
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

// A Scope ended twice does nothing the second time, with a nil errp as with an error: no
// release runs twice and no orphan is appended twice.
func TestEndTwiceDoesNothingTheSecondTime(t *testing.T) {
	c := newCloud()
	s := acquire.New(context.Background())
	_, err := acquire.Temporary(s, "a", c.reserve("a"), c.release)
	require.NoError(t, err)
	s.End(nil)
	s.End(nil)
	assert.Equal(t, []string{"reserve a", "release a"}, c.calls())

	calls := 0
	s = acquire.New(context.Background())
	s.Defer("address/a", func(context.Context) error { calls++; return errors.New("no") })
	var e1, e2 error
	s.End(&e1)
	s.End(&e2)
	assert.Error(t, e1)
	assert.NoError(t, e2)
	assert.Equal(t, 1, calls)
}

// TestDeferErrorKeepsItsName: a cleanup whose error wraps some other *lease.OrphanError is
// still reported under the cleanup's own name, with its whole error.
func TestDeferErrorKeepsItsName(t *testing.T) {
	inner := &lease.OrphanError{Name: "member m3", Err: errFlaky}
	var names []string
	err := acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
		s.Defer("drain pool", func(context.Context) error { return fmt.Errorf("drain pool p1: %w", inner) })
		return nil
	}, acquire.OnOrphan(func(_ context.Context, oe *lease.OrphanError) { names = append(names, oe.Name) }))
	assert.Equal(t, []string{"drain pool"}, names)
	assert.EqualError(t, err, "lease: drain pool orphaned: drain pool p1: lease: member m3 orphaned: cloud: 503 backend error")
}

// TestEndSeesGoexit: with New and a deferred End, runtime.Goexit is a failure too, so a
// Tentative resource is released.
func TestEndSeesGoexit(t *testing.T) {
	c := newCloud()
	done := make(chan struct{})
	go func() {
		defer close(done)
		func() (err error) {
			s := acquire.New(context.Background())
			defer s.End(&err)
			_, _ = acquire.Tentative(s, "rule", c.reserve("rule"), c.release)
			runtime.Goexit()
			return nil
		}()
	}()
	<-done
	assert.Empty(t, c.inventory())
}

// releases run "one at a time, newest first", Temporary, Tentative and Defer on one
// stack, and Tentative released on error.
func TestReleaseOrderIsLIFOAcrossKinds(t *testing.T) {
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

// the scope fails only when fn returns an error, panics or calls Goexit: an orphaned
// Temporary does not make a successful scope release its Tentative.
func TestOrphanDoesNotFailTheScope(t *testing.T) {
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

// Keep on a Temporary takes it out of the scope's hands, on every path.
func TestKeepTemporaryOnPanic(t *testing.T) {
	called := false
	var l *lease.Lease[string]
	p := runOnGoroutine(func() {
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
