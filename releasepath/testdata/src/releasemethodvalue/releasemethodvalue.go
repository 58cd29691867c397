// Package releasemethodvalue hands a lease to a scope as the method value l.Release; it does not leak.
package releasemethodvalue

import (
	"context"

	"github.com/safereconcile/safereconcile/acquire"
	"github.com/safereconcile/safereconcile/lease"
)

type address struct{ name, ip string }

func release(ctx context.Context, a address) error { return nil }

func program(ctx context.Context, ip string) error { return nil }

func intoScope(ctx context.Context, s *acquire.Scope, a address) error {
	l := lease.New("address/"+a.name, a, release)
	s.Defer("address/"+a.name, l.Release)
	return program(ctx, a.ip)
}

// nameOnly hands the scope a method value that is not the release: the lease still leaks.
func nameOnly(ctx context.Context, s *acquire.Scope, a address, values func(func() address)) error {
	l := lease.New("address/"+a.name, a, release)
	values(l.Value)
	return program(ctx, a.ip) // want `return may skip l.Release \(New at line 25\)`
}

// viaLocal keeps the release in a local and hands that to the scope.
func viaLocal(ctx context.Context, s *acquire.Scope, a address) error {
	l := lease.New("address/"+a.name, a, release)
	rel := l.Release
	s.Defer("address/"+a.name, rel)
	return program(ctx, a.ip)
}
