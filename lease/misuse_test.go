package lease_test

// Misuse: a nil release function, context or ledger panics with a "lease:" message before
// anything changes.

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/safereconcile/safereconcile/lease"
	"github.com/stretchr/testify/assert"
)

// panicOf returns what f panics with, or nil.
func panicOf(f func()) (p any) {
	defer func() { p = recover() }()
	f()
	return nil
}

// Project rule (bad input: a clear package-prefixed error or panic, and nothing changed):
// Release(nil) must not hand the release function a context that wraps nil, whose first use
// panics inside the release function and leaves the lease Orphaned.
func TestReleaseNilContextPanicsBeforeAnything(t *testing.T) {
	called := false
	l := lease.New("address/n", "n", func(ctx context.Context, _ string) error {
		called = true
		return ctx.Err()
	})
	var nilCtx context.Context
	var err error
	p := panicOf(func() { err = l.Release(nilCtx) })
	if p != nil {
		assert.True(t, strings.HasPrefix(fmt.Sprint(p), "lease:"), "panic %v", p)
	} else {
		assert.ErrorContains(t, err, "lease:")
	}
	assert.False(t, called, "the release function ran with a nil context")
	assert.Equal(t, lease.Held, l.State(), "bad input changed the lease")
}

// Project rule, for the nil ledgers the brief names: a method on a nil *Ledger and
// LedgerFrom(nil) are misuse, and deserve a "lease:" panic, not a bare nil dereference
// (WithLedger(nil, g) already panics with "lease:").
func TestNilLedgerPanicsWithPrefix(t *testing.T) {
	var g *lease.Ledger
	var nilCtx context.Context
	for name, f := range map[string]func(){
		"Add":         func() { g.Add(lease.New("address/a", 1, func(context.Context, int) error { return nil })) },
		"Outstanding": func() { _ = g.Outstanding() },
		"LedgerFrom":  func() { _ = lease.LedgerFrom(nilCtx) },
	} {
		p := panicOf(f)
		assert.True(t, strings.HasPrefix(fmt.Sprint(p), "lease:"), "%s: panic %v", name, p)
	}
}

func TestNewNilReleasePanics(t *testing.T) {
	assert.PanicsWithValue(t, `lease: New("a") with a nil release function`, func() {
		//releasepath:ok New panics on the nil release: there is no lease
		lease.New[int]("a", 1, nil)
	})
}
