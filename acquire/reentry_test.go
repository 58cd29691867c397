package acquire_test

// A lease released from inside its own release, or by hand inside the scope: released once.

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/safereconcile/safereconcile/acquire"
	"github.com/safereconcile/safereconcile/lease"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// a release may call the lease's own Release with the context it was given; it
// returns an error wrapping lease.ErrInProgress at once, also through acquire's release
// context and a context derived from it, and also from a goroutine the release starts.
func TestReleaseInsideReleaseReturnsErrInProgress(t *testing.T) {
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

// at most one successful release. A Temporary released by hand inside fn is
// not released again at the end; one whose hand release failed is retried by the end, and a
// successful retry leaves no orphan.
func TestHandReleaseInsideScopeReleasesOnce(t *testing.T) {
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
