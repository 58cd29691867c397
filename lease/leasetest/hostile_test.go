package leasetest_test

// Hostile tests: each one attacks a promise of leasetest's documentation, written from the docs
// alone. The promises about a real test ending (failed, skipped, stopped) are checked by running
// this test binary again on a child test and reading its verdict.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/acquire"
	"github.com/safereconcile/safereconcile/lease"
	"github.com/safereconcile/safereconcile/lease/leasetest"
)

// hTB records what a check reports. Methods it does not override panic through the nil
// embedded TB, so a check that uses anything else is caught.
type hTB struct {
	testing.TB
	mu       sync.Mutex
	errs     []string
	cleanups []func()
}

func (h *hTB) Helper() {}
func (h *hTB) Errorf(format string, a ...any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.errs = append(h.errs, fmt.Sprintf(format, a...))
}
func (h *hTB) Error(a ...any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.errs = append(h.errs, fmt.Sprint(a...))
}
func (h *hTB) Cleanup(f func()) { h.cleanups = append(h.cleanups, f) }
func (h *hTB) end() {
	for i := len(h.cleanups) - 1; i >= 0; i-- {
		h.cleanups[i]()
	}
}

// Promise (Check): "A nil g is an error on t too ... Check then reports false."
func TestHostileCheckNilLedger(t *testing.T) {
	h := &hTB{}
	assert.False(t, leasetest.Check(h, nil))
	assert.NotEmpty(t, h.errs)
}

// Promise (Context): "It panics with a message starting with "leasetest:" when ctx is nil."
func TestHostileContextNilPanics(t *testing.T) {
	h := &hTB{}
	var nilCtx context.Context
	p := func() (p any) {
		defer func() { p = recover() }()
		leasetest.Context(h, nilCtx)
		return nil
	}()
	require.NotNil(t, p)
	assert.True(t, strings.HasPrefix(fmt.Sprint(p), "leasetest:"), "panic %v", p)
}

// Promise: the check names every lease still Held or Orphaned, and its state, and forgives an
// orphan only when a later lease of the same name was Released; a lease made by acquire under
// the context is recorded.
func TestHostileContextReportsWhatAcquireLeft(t *testing.T) {
	h := &hTB{}
	ctx := leasetest.Context(h, context.Background())
	var held *lease.Lease[string]
	err := acquire.Run(ctx, func(ctx context.Context, s *acquire.Scope) error {
		_, err := acquire.Temporary(s, "address/orphan-1",
			func(context.Context) (string, error) { return "a", nil },
			func(context.Context, string) error { return errors.New("cloud down") })
		if err != nil {
			return err
		}
		held, err = acquire.Temporary(s, "address/kept-out",
			func(context.Context) (string, error) { return "b", nil },
			func(context.Context, string) error { return nil })
		if err != nil {
			return err
		}
		held.Keep() // taken out of the scope: Kept is not outstanding
		_, err = acquire.Temporary(s, "address/recovered",
			func(context.Context) (string, error) { return "c", nil },
			func(context.Context, string) error { return errors.New("once") })
		return err
	})
	require.Error(t, err)
	// A retry recovers address/recovered by name, but address/orphan-1 stays orphaned.
	require.NoError(t, acquire.Run(ctx, func(ctx context.Context, s *acquire.Scope) error {
		_, err := acquire.Temporary(s, "address/recovered",
			func(context.Context) (string, error) { return "c", nil },
			func(context.Context, string) error { return nil })
		return err
	}))
	// A lease made by hand and left Held, recorded in the same ledger.
	lease.LedgerFrom(ctx).Add(lease.New("firewall/fw-1", 1, func(context.Context, int) error { return nil }))
	h.end()
	require.Len(t, h.errs, 2, "errors: %q", h.errs)
	all := strings.Join(h.errs, "\n")
	assert.Contains(t, all, "address/orphan-1")
	assert.Contains(t, all, "orphaned")
	assert.Contains(t, all, "firewall/fw-1")
	assert.Contains(t, all, "held")
	assert.NotContains(t, all, "address/recovered")
	assert.NotContains(t, all, "address/kept-out")
}

// Promise: "The check runs after the test's own cleanups that were registered later, after its
// subtests" (also parallel ones, which run after the parent's function returned).
func TestHostileCheckRunsAfterLaterCleanupsAndParallelSubtests(t *testing.T) {
	ctx := leasetest.Context(t, context.Background())
	g := lease.LedgerFrom(ctx)
	require.NotNil(t, g)
	byCleanup := lease.New("address/by-cleanup", 1, func(context.Context, int) error { return nil })
	g.Add(byCleanup)
	t.Cleanup(func() { require.NoError(t, byCleanup.Release(context.Background())) })

	bySubtest := lease.New("address/by-subtest", 2, func(context.Context, int) error { return nil })
	g.Add(bySubtest)
	t.Run("parallel", func(t *testing.T) {
		t.Parallel()
		require.NoError(t, bySubtest.Release(context.Background()))
	})
}

// hChildEnv marks a run of this binary made by hRunChild.
const hChildEnv = "LEASETEST_HOSTILE_CHILD"

// hRunChild runs the test name in a child process of this test binary and returns whether it
// passed and its output.
func hRunChild(t *testing.T, name string) (passed bool, out string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), hChildEnv+"=1")
	b, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("running the child test: %v", err)
	}
	return err == nil, string(b)
}

// hLeaveHeld makes a checked ledger for t and leaves one lease Held in it.
func hLeaveHeld(t *testing.T, name string) {
	g := leasetest.Ledger(t)
	g.Add(lease.New(name, 0, func(context.Context, int) error { return nil }))
}

func TestHostileChildSkipsWithHeldLease(t *testing.T) {
	if os.Getenv(hChildEnv) == "" {
		t.Skip("hostile: runs only as a child of TestHostileCheckRunsWhenTestStopsEarly")
	}
	hLeaveHeld(t, "address/skipped")
	t.Skip("stopping early")
}

func TestHostileChildFailsNowWithHeldLease(t *testing.T) {
	if os.Getenv(hChildEnv) == "" {
		t.Skip("hostile: runs only as a child of TestHostileCheckRunsWhenTestStopsEarly")
	}
	hLeaveHeld(t, "address/failed-now")
	t.FailNow()
}

func TestHostileChildPanicsWithHeldLease(t *testing.T) {
	if os.Getenv(hChildEnv) == "" {
		t.Skip("hostile: runs only as a child of TestHostileCheckRunsWhenTestStopsEarly")
	}
	ctx := leasetest.Context(t, context.Background())
	_ = acquire.Run(ctx, func(ctx context.Context, s *acquire.Scope) error {
		_, _ = acquire.Tentative(s, "address/panicked",
			func(context.Context) (string, error) { return "p", nil },
			func(context.Context, string) error { return errors.New("cannot release") })
		return nil
	})
	// The Tentative was kept on success: not outstanding. Leave one held and panic.
	hLeaveHeld(t, "address/held-at-panic")
	panic("test body panicked")
}

func TestHostileChildSubtestWithHeldLease(t *testing.T) {
	if os.Getenv(hChildEnv) == "" {
		t.Skip("hostile: runs only as a child of TestHostileCheckRunsWhenTestStopsEarly")
	}
	t.Run("sub", func(t *testing.T) {
		t.Parallel()
		hLeaveHeld(t, "address/in-subtest")
	})
}

// Promise: the check runs "also when the test failed or stopped early, so a failed attempt is
// checked too": a skipped test with a Held lease fails, naming the lease.
func TestHostileCheckRunsWhenTestStopsEarly(t *testing.T) {
	if os.Getenv(hChildEnv) != "" {
		t.Skip("hostile: this is the parent")
	}
	tests := []struct {
		give string
		want string
	}{
		{give: "TestHostileChildSkipsWithHeldLease", want: "address/skipped"},
		{give: "TestHostileChildFailsNowWithHeldLease", want: "address/failed-now"},
		{give: "TestHostileChildSubtestWithHeldLease", want: "address/in-subtest"},
	}
	for _, tt := range tests {
		t.Run(tt.give, func(t *testing.T) {
			passed, out := hRunChild(t, tt.give)
			assert.False(t, passed, "child passed with a Held lease:\n%s", out)
			assert.Contains(t, out, tt.want)
			assert.Contains(t, out, "held")
		})
	}
	t.Run("panic", func(t *testing.T) {
		passed, out := hRunChild(t, "TestHostileChildPanicsWithHeldLease")
		assert.False(t, passed)
		assert.Contains(t, out, "test body panicked")
		assert.Contains(t, out, "address/held-at-panic", "the check ran before the panic ended the binary:\n%s", out)
		assert.NotContains(t, out, "address/panicked")
	})
}
