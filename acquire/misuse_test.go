package acquire_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/acquire"
	"github.com/safereconcile/safereconcile/lease"
)

// TestBadInputPanicsFirst: each misuse panics with an "acquire:" message before anything is
// acquired or called, and leaves the scope it was tried on usable.
func TestBadInputPanicsFirst(t *testing.T) {
	var nilCtx context.Context
	var nilScope *acquire.Scope
	called := false
	acq := func(context.Context) (int, error) { called = true; return 1, nil }
	rel := func(context.Context, int) error { called = true; return nil }
	fn := func(context.Context, *acquire.Scope) error { called = true; return nil }
	live := acquire.New(context.Background())
	tests := []struct {
		name string
		give func()
		want string
	}{
		{"Run nil context", func() { _ = acquire.Run(nilCtx, fn) }, "acquire: Run with a nil context"},
		{"Run nil function", func() { _ = acquire.Run(context.Background(), nil) }, "acquire: Run with a nil function"},
		{"Run nil option", func() { _ = acquire.Run(context.Background(), fn, acquire.ReleaseTimeout(time.Second), nil) },
			"acquire: Run with a nil Option (option 2)"},
		//releasepath:ok New panics on the nil context: there is no scope to end
		{"New nil context", func() { acquire.New(nilCtx) }, "acquire: New with a nil context"},
		//releasepath:ok New panics on the nil option: there is no scope to end
		{"New nil option", func() { acquire.New(context.Background(), nil) }, "acquire: New with a nil Option (option 1)"},
		{"End nil scope", func() { nilScope.End(nil) }, "acquire: End on a nil *Scope"},
		{"Defer nil scope", func() { nilScope.Defer("cleanup", func(context.Context) error { called = true; return nil }) },
			`acquire: Defer("cleanup") on a nil *Scope`},
		{"Temporary nil scope", func() { _, _ = acquire.Temporary(nilScope, "address/a", acq, rel) },
			`acquire: "address/a" on a nil *Scope`},
		{"Tentative nil scope", func() { _, _ = acquire.Tentative(nilScope, "address/a", acq, rel) },
			`acquire: "address/a" on a nil *Scope`},
		{"Run nil option first", func() { _ = acquire.Run(context.Background(), fn, nil) }, "acquire: Run with a nil Option (option 1)"},
		{"Temporary nil acquire", func() { _, _ = acquire.Temporary[int](live, "address/a", nil, rel) },
			`acquire: "address/a" needs both an acquire and a release function`},
		{"Temporary nil release", func() { _, _ = acquire.Temporary(live, "address/a", acq, nil) },
			`acquire: "address/a" needs both an acquire and a release function`},
		{"Tentative nil release", func() { _, _ = acquire.Tentative(live, "address/a", acq, nil) },
			`acquire: "address/a" needs both an acquire and a release function`},
		{"Defer nil release", func() { live.Defer("address/a", nil) }, `acquire: Defer("address/a") with a nil release function`},
		{"End nil scope with an error", func() { var err error; nilScope.End(&err) }, "acquire: End on a nil *Scope"},
		{"ReleaseTimeout zero", func() { acquire.ReleaseTimeout(0) }, "acquire: ReleaseTimeout(0s): the timeout must be positive"},
		{"ReleaseTimeout negative", func() { acquire.ReleaseTimeout(-time.Second) }, "acquire: ReleaseTimeout(-1s): the timeout must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			called = false
			assert.PanicsWithValue(t, tt.want, tt.give)
			assert.False(t, called, "nothing was called")
		})
	}
	var err error
	live.End(&err)
	require.NoError(t, err, "the scope the misuses were tried on is still usable")
}

// OnOrphan(nil) is ignored: the orphan is still returned.
func TestOnOrphanNilIsIgnored(t *testing.T) {
	err := acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
		s.Defer("address/a", func(context.Context) error { return errors.New("denied") })
		return nil
	}, acquire.OnOrphan(nil))
	var oe *lease.OrphanError
	assert.ErrorAs(t, err, &oe)
}

// "the zero Scope is not usable". A zero Scope once called acquire with a nil context,
// and its End then panicked in the standard library ("cannot create context from nil parent")
// without running the release: the resource acquired through it leaked. Misuse deserves an
// "acquire:" panic before anything is acquired.
func TestZeroScopePanicsBeforeAcquiring(t *testing.T) {
	var s acquire.Scope
	acquired, released := false, false
	p := func() (p any) {
		defer func() { p = recover() }()
		_, _ = acquire.Temporary(&s, "address/z",
			func(context.Context) (string, error) { acquired = true; return "z", nil },
			func(context.Context, string) error { released = true; return nil })
		var err error
		s.End(&err)
		return nil
	}()
	assert.True(t, strings.HasPrefix(fmt.Sprint(p), "acquire:"), "panic %v", p)
	assert.True(t, !acquired || released, "acquired through a zero Scope and never released")
}
