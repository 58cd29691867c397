// Package leasescope uses safereconcile's own types: a lease from lease.New is released,
// kept or handed on; a scope from acquire.New is ended by a deferred End.
package leasescope

import (
	"context"
	"errors"

	"github.com/safereconcile/safereconcile/acquire"
	"github.com/safereconcile/safereconcile/lease"
)

type address struct{ IP string }

func release(ctx context.Context, a address) error { return nil }

func program(ctx context.Context, ip string) error { return nil }

func useLeaky(ctx context.Context, a address) error {
	l := lease.New("address/ilb-a1b2", a, release)
	if err := program(ctx, a.IP); err != nil {
		return err // want `return may skip l.Release \(New at line 20\)`
	}
	return l.Release(ctx)
}

func use(ctx context.Context, a address, ours bool) error {
	l := lease.New("address/ilb-a1b2", a, release)
	if !ours {
		l.Keep()
		return nil
	}
	defer l.Release(ctx)
	return program(ctx, a.IP)
}

func hold(ctx context.Context, a address) (*lease.Lease[address], error) {
	l := lease.New("address/ilb-a1b2", a, release)
	if a.IP == "" {
		return l, errors.New("no IP") // want `return may skip l.Release`
	}
	return l, nil
}

func scoped(ctx context.Context) (err error) {
	s := acquire.New(ctx)
	defer s.End(&err)
	return program(ctx, "")
}

func scopedLeaky(ctx context.Context) (err error) {
	s := acquire.New(ctx)
	if err := program(ctx, ""); err != nil {
		return err // want `return may skip s.End \(New at line 52\)`
	}
	s.End(&err)
	return err
}
