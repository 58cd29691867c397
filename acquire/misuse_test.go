package acquire_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/acquire"
)

// TestBadInputPanicsFirst: each misuse panics with an "acquire:" message before anything is
// acquired or called.
func TestBadInputPanicsFirst(t *testing.T) {
	var nilCtx context.Context
	var nilScope *acquire.Scope
	called := false
	acq := func(context.Context) (int, error) { called = true; return 1, nil }
	rel := func(context.Context, int) error { called = true; return nil }
	fn := func(context.Context, *acquire.Scope) error { called = true; return nil }
	tests := []struct {
		name string
		give func()
		want string
	}{
		{"Run nil context", func() { _ = acquire.Run(nilCtx, fn) }, "acquire: Run with a nil context"},
		{"Run nil function", func() { _ = acquire.Run(context.Background(), nil) }, "acquire: Run with a nil function"},
		{"Run nil option", func() { _ = acquire.Run(context.Background(), fn, acquire.ReleaseTimeout(time.Second), nil) },
			"acquire: Run with a nil Option (option 2)"},
		{"New nil context", func() { acquire.New(nilCtx) }, "acquire: New with a nil context"},
		{"New nil option", func() { acquire.New(context.Background(), nil) }, "acquire: New with a nil Option (option 1)"},
		{"End nil scope", func() { nilScope.End(nil) }, "acquire: End on a nil *Scope"},
		{"Defer nil scope", func() { nilScope.Defer("cleanup", func(context.Context) error { called = true; return nil }) },
			`acquire: Defer("cleanup") on a nil *Scope`},
		{"Temporary nil scope", func() { _, _ = acquire.Temporary(nilScope, "address/a", acq, rel) },
			`acquire: "address/a" on a nil *Scope`},
		{"Tentative nil scope", func() { _, _ = acquire.Tentative(nilScope, "address/a", acq, rel) },
			`acquire: "address/a" on a nil *Scope`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			called = false
			assert.PanicsWithValue(t, tt.want, tt.give)
			assert.False(t, called, "nothing was called")
		})
	}
}

// TestDerivedReleaseContextStartsNoGoroutine: contexts a release derives from its own, as SDK
// calls do, start no goroutine, and end when the release's deadline passes: for a Defer, and
// for a lease's release, which runs under its lease's mark.
func TestDerivedReleaseContextStartsNoGoroutine(t *testing.T) {
	const n = 50
	for _, kind := range []string{"Defer", "Temporary"} {
		t.Run(kind, func(t *testing.T) {
			var before, during int
			var derived []context.Context
			release := func(ctx context.Context) error {
				before = runtime.NumGoroutine()
				for i := 0; i < n; i++ {
					d, cancel := context.WithTimeout(ctx, time.Hour)
					defer cancel()
					derived = append(derived, d)
				}
				during = runtime.NumGoroutine()
				for _, d := range derived {
					<-d.Done() // the release's own deadline ends what it derived
				}
				return derived[n-1].Err()
			}
			err := acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
				if kind == "Defer" {
					s.Defer("address/a1b2", release)
					return nil
				}
				_, err := acquire.Temporary(s, "address/a1b2",
					func(context.Context) (int, error) { return 1, nil },
					func(ctx context.Context, _ int) error { return release(ctx) })
				return err
			}, acquire.ReleaseTimeout(20*time.Millisecond))
			require.ErrorIs(t, err, context.DeadlineExceeded)
			// One goroutine per derived context would add n; goroutines left by earlier tests may
			// end meanwhile, so only that is checked.
			assert.Less(t, during-before, n, "deriving %d contexts started a goroutine for each", n)
			for _, d := range derived {
				assert.ErrorIs(t, d.Err(), context.DeadlineExceeded)
			}
		})
	}
}
