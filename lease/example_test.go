package lease_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/safereconcile/safereconcile/lease"
)

// A lease is released at most once; a failed release is an orphan that a later Release retries.
func Example() {
	attempts := 0
	release := func(ctx context.Context, addr string) error {
		attempts++
		if attempts == 1 {
			return errors.New("503 backend error")
		}
		fmt.Println("released", addr)
		return nil
	}
	l := lease.New("address/ilb-a1b2", "10.128.0.7", release)

	err := l.Release(context.Background())
	var orphan *lease.OrphanError
	fmt.Println(errors.As(err, &orphan), orphan.Name, l.State())

	fmt.Println(l.Release(context.Background()), l.State())
	fmt.Println(l.Release(context.Background()), attempts)
	// Output:
	// true address/ilb-a1b2 orphaned
	// released 10.128.0.7
	// <nil> released
	// <nil> 2
}

// Keep hands the resource to a longer-lived owner for good: here the address has become the
// Service's own, so the lease must never release it.
func ExampleLease_Keep() {
	l := lease.New("address/ilb-a1b2", "10.128.0.9", func(context.Context, string) error {
		panic("never called: the Service now owns this address")
	})
	l.Keep()
	fmt.Println(l.Release(context.Background()), l.State())
	// Output: <nil> kept
}

// A Ledger lists the leases that outlived their purpose.
func ExampleLedger() {
	var g lease.Ledger
	noop := func(context.Context, string) error { return nil }
	a := lease.New("address/ilb-a", "10.128.0.7", noop)
	//releasepath:ok b is left held on purpose: the ledger lists it as outstanding
	b := lease.New("address/ilb-b", "10.128.0.8", noop)
	g.Add(a)
	g.Add(b)
	_ = a.Release(context.Background())
	for _, l := range g.Outstanding() {
		fmt.Println(l.Name(), l.State())
	}
	// Output: address/ilb-b held
}
