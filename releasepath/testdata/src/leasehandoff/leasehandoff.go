// Package leasehandoff hands leases on the ways the library's own docs suggest; none leaks.
package leasehandoff

import (
	"context"
	"errors"

	"github.com/safereconcile/safereconcile/acquire"
	"github.com/safereconcile/safereconcile/lease"
)

type address struct{ name, ip string }

func release(ctx context.Context, a address) error { return nil }

func program(ctx context.Context, ip string) error { return nil }

func intoSlice(ctx context.Context, a address, held []*lease.Lease[address]) ([]*lease.Lease[address], error) {
	l := lease.New("address/"+a.name, a, release)
	held = append(held, l)
	if err := program(ctx, a.ip); err != nil {
		return held, err
	}
	return held, nil
}

func keptOnSuccess(ctx context.Context, a address) error {
	l := lease.New("address/"+a.name, a, release)
	if err := program(ctx, a.ip); err != nil {
		return errors.Join(err, l.Release(ctx))
	}
	l.Keep()
	return nil
}

func scopeDeferred(ctx context.Context, a address) (err error) {
	s := acquire.New(ctx)
	defer s.End(&err)
	s.Defer("address/"+a.name, func(ctx context.Context) error { return release(ctx, a) })
	return program(ctx, a.ip)
}

func leakyLease(ctx context.Context, a address) error {
	l := lease.New("address/"+a.name, a, release)
	if err := program(ctx, a.ip); err != nil {
		return err // want `return may skip l.(Release|Keep) \(New at line 44\)`
	}
	l.Keep()
	return nil
}
