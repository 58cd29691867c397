package acquire_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

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
