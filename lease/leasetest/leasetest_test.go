package leasetest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/acquire"
	"github.com/safereconcile/safereconcile/lease"
	"github.com/safereconcile/safereconcile/lease/leasetest"
)

// recorder is a testing.TB that records what the helper reports instead of failing.
// Methods it does not override panic through the nil embedded TB, so a check that uses
// anything else is caught. It is safe for concurrent use, as a TB is.
type recorder struct {
	testing.TB
	mu       sync.Mutex
	errors   []string
	cleanups []func()
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, a...))
}
func (r *recorder) Error(a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprint(a...))
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

	//releasepath:ok held stays held on purpose: Check must report it
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
				//releasepath:ok lease i is left held on purpose: the recorder must report it
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

// the check names every lease still Held or Orphaned, and its state, and forgives an
// orphan only when a later lease of the same name was Released; a lease made by acquire under
// the context is recorded.
func TestContextReportsWhatAcquireLeft(t *testing.T) {
	h := &recorder{}
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
	require.Len(t, h.errors, 2, "errors: %q", h.errors)
	all := strings.Join(h.errors, "\n")
	assert.Contains(t, all, "address/orphan-1")
	assert.Contains(t, all, "orphaned")
	assert.Contains(t, all, "firewall/fw-1")
	assert.Contains(t, all, "held")
	assert.NotContains(t, all, "address/recovered")
	assert.NotContains(t, all, "address/kept-out")
}

// "The check runs after the test's own cleanups that were registered later, after its
// subtests" (also parallel ones, which run after the parent's function returned).
func TestCheckRunsAfterLaterCleanupsAndParallelSubtests(t *testing.T) {
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
