package leasetest_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"

	"github.com/safereconcile/safereconcile/acquire"
	"github.com/safereconcile/safereconcile/lease"
	"github.com/safereconcile/safereconcile/lease/leasetest"
	"github.com/stretchr/testify/assert"
)

// The check runs also when a test fails, stops early or panics: each case runs as a child
// test of this binary, whose verdict and output are read back.

// childEnv marks a run of this binary made by runChild.
const childEnv = "LEASETEST_CHILD"

// runChild runs the test name in a child process of this test binary and returns whether it
// passed and its output.
func runChild(t *testing.T, name string) (passed bool, out string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	b, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("running the child test: %v", err)
	}
	return err == nil, string(b)
}

// leaveHeld makes a checked ledger for t and leaves one lease Held in it.
func leaveHeld(t *testing.T, name string) {
	g := leasetest.Ledger(t)
	g.Add(lease.New(name, 0, func(context.Context, int) error { return nil }))
}

func TestChildSkipsWithHeldLease(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("runs only as a child of TestCheckRunsWhenTestStopsEarly")
	}
	leaveHeld(t, "address/skipped")
	t.Skip("stopping early")
}

func TestChildFailsNowWithHeldLease(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("runs only as a child of TestCheckRunsWhenTestStopsEarly")
	}
	leaveHeld(t, "address/failed-now")
	t.FailNow()
}

func TestChildPanicsWithHeldLease(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("runs only as a child of TestCheckRunsWhenTestStopsEarly")
	}
	ctx := leasetest.Context(t, context.Background())
	_ = acquire.Run(ctx, func(ctx context.Context, s *acquire.Scope) error {
		_, _ = acquire.Tentative(s, "address/panicked",
			func(context.Context) (string, error) { return "p", nil },
			func(context.Context, string) error { return errors.New("cannot release") })
		return nil
	})
	// The Tentative was kept on success: not outstanding. Leave one held and panic.
	leaveHeld(t, "address/held-at-panic")
	panic("test body panicked")
}

func TestChildSubtestWithHeldLease(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("runs only as a child of TestCheckRunsWhenTestStopsEarly")
	}
	t.Run("sub", func(t *testing.T) {
		t.Parallel()
		leaveHeld(t, "address/in-subtest")
	})
}

// the check runs "also when the test failed or stopped early, so a failed attempt is
// checked too": a skipped test with a Held lease fails, naming the lease.
func TestCheckRunsWhenTestStopsEarly(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("this is the child process")
	}
	tests := []struct {
		give string
		want string
	}{
		{give: "TestChildSkipsWithHeldLease", want: "address/skipped"},
		{give: "TestChildFailsNowWithHeldLease", want: "address/failed-now"},
		{give: "TestChildSubtestWithHeldLease", want: "address/in-subtest"},
	}
	for _, tt := range tests {
		t.Run(tt.give, func(t *testing.T) {
			passed, out := runChild(t, tt.give)
			assert.False(t, passed, "child passed with a Held lease:\n%s", out)
			assert.Contains(t, out, tt.want)
			assert.Contains(t, out, "held")
		})
	}
	t.Run("panic", func(t *testing.T) {
		passed, out := runChild(t, "TestChildPanicsWithHeldLease")
		assert.False(t, passed)
		assert.Contains(t, out, "test body panicked")
		assert.Contains(t, out, "address/held-at-panic", "the check ran before the panic ended the binary:\n%s", out)
		assert.NotContains(t, out, "address/panicked")
	})
}
