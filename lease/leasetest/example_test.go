package leasetest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/safereconcile/safereconcile/lease"
	"github.com/safereconcile/safereconcile/lease/leasetest"
)

// printer stands in for the *testing.T of a real test: it prints what would fail the test.
type printer struct{ testing.TB }

func (printer) Helper()                        {}
func (printer) Errorf(format string, a ...any) { fmt.Printf(format+"\n", a...) }

// Check fails the test for every lease still held; Context and Ledger run it when the test ends.
func ExampleCheck() {
	var g lease.Ledger
	noop := func(context.Context, string) error { return nil }
	a := lease.New("address/ilb-a", "10.128.0.7", noop)
	//releasepath:ok b is leaked on purpose: the example shows Check reporting it
	b := lease.New("address/ilb-b", "10.128.0.8", noop)
	g.Add(a)
	g.Add(b)
	_ = a.Release(context.Background()) // b leaked: an early return skipped its release

	fmt.Println(leasetest.Check(printer{}, &g))
	// Output:
	// leasetest: lease "address/ilb-b" is still held: it outlived its purpose
	// false
}
