package leasetest_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/safereconcile/safereconcile/lease"
	"github.com/safereconcile/safereconcile/lease/leasetest"
)

// recorder is a testing.TB that records what the helper reports instead of failing.
type recorder struct {
	testing.TB
	errors   []string
	cleanups []func()
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, a ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, a...))
}
func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *recorder) end() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

func TestLedgerReportsOutstandingAtEnd(t *testing.T) {
	r := &recorder{TB: t}
	g := leasetest.Ledger(r)
	fail := func(context.Context, string) error { return errors.New("503") }
	ok := func(context.Context, string) error { return nil }

	held := lease.New("held", "a", ok)
	orphaned := lease.New("orphaned", "b", fail)
	released := lease.New("released", "c", ok)
	kept := lease.New("kept", "d", ok)
	for _, l := range []*lease.Lease[string]{held, orphaned, released, kept} {
		g.Add(l)
	}
	_ = orphaned.Release(context.Background())
	_ = released.Release(context.Background())
	kept.Keep()

	assert.Empty(t, r.errors, "nothing is reported before the test ends")
	r.end()
	assert.Equal(t, []string{
		`leasetest: lease "held" is still held: it outlived its purpose`,
		`leasetest: lease "orphaned" is still orphaned: it outlived its purpose`,
	}, r.errors)
}

func TestContextCarriesCheckedLedger(t *testing.T) {
	r := &recorder{TB: t}
	ctx := leasetest.Context(r, context.Background())
	g := lease.LedgerFrom(ctx)
	if assert.NotNil(t, g) {
		g.Add(lease.New("left", 1, func(context.Context, int) error { return nil }))
	}
	r.end()
	assert.Len(t, r.errors, 1)
}

// TestParallelLedgersAreSeparate runs tests in parallel that each leave their own leases in a
// different state: each ledger sees only its own test's leases.
func TestParallelLedgersAreSeparate(t *testing.T) {
	for i := 0; i < 8; i++ {
		i := i
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			r := &recorder{TB: t}
			g := leasetest.Ledger(r)
			for j := 0; j < 50; j++ {
				l := lease.New(fmt.Sprintf("t%d-%d", i, j), j, func(context.Context, int) error { return nil })
				g.Add(l)
				if j != i {
					_ = l.Release(context.Background())
				}
			}
			r.end()
			assert.Equal(t, []string{fmt.Sprintf(`leasetest: lease "t%d-%d" is still held: it outlived its purpose`, i, i)}, r.errors)
		})
	}
}

func TestBadInput(t *testing.T) {
	r := &recorder{TB: t}
	assert.False(t, leasetest.Check(r, nil))
	assert.Equal(t, []string{"leasetest: Check with a nil ledger: nothing to check"}, r.errors)

	var nilCtx context.Context
	assert.PanicsWithValue(t, "leasetest: Context with a nil context", func() { leasetest.Context(r, nilCtx) })
	assert.Empty(t, r.cleanups, "nothing was registered")
}
