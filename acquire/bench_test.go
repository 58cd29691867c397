package acquire_test

import (
	"context"
	"testing"
	"time"

	"go.uber.org/multierr"

	"github.com/safereconcile/safereconcile/acquire"
)

// The benchmark pair compares one Temporary in a scope with the correct hand-written code it
// replaces: acquire, then defer a release under context.WithTimeout(context.WithoutCancel(ctx)).

var (
	benchAcquire = func(context.Context) (int, error) { return 7, nil }
	benchRelease = func(context.Context, int) error { return nil }
	benchWork    = func(context.Context, int) error { return nil }
)

func handWritten(ctx context.Context, d time.Duration) (err error) {
	v, err := benchAcquire(ctx)
	if err != nil {
		return err
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d)
		defer cancel()
		err = multierr.Append(err, benchRelease(rctx, v))
	}()
	return benchWork(ctx, v)
}

func scoped(ctx context.Context, s *acquire.Scope) error {
	l, err := acquire.Temporary(s, "address", benchAcquire, benchRelease)
	if err != nil {
		return err
	}
	return benchWork(ctx, l.Value())
}

func BenchmarkHandWritten(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := handWritten(ctx, acquire.DefaultReleaseTimeout); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRunTemporary(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := acquire.Run(ctx, scoped); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRunTemporaryWithTimeout(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := acquire.Run(ctx, scoped, acquire.ReleaseTimeout(10*time.Second)); err != nil {
			b.Fatal(err)
		}
	}
}
