package acquire_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/safereconcile/safereconcile/acquire"
	"github.com/safereconcile/safereconcile/lease"
)

// exampleCloud prints what a cloud API would be asked to do.
type exampleCloud struct{ failRule, failRelease bool }

func (c exampleCloud) reserve(ctx context.Context, name string) (string, error) {
	fmt.Println("reserve address", name)
	return "10.128.0.7", nil
}

func (c exampleCloud) releaseAddress(ctx context.Context, ip string) error {
	if c.failRelease {
		return errors.New("503 backend error")
	}
	fmt.Println("release address", ip)
	return nil
}

func (c exampleCloud) createRule(ctx context.Context, ip string) (string, error) {
	if c.failRule {
		return "", errors.New("forwarding rule quota exceeded")
	}
	fmt.Println("create forwarding rule for", ip)
	return "rule-1", nil
}

func (c exampleCloud) deleteRule(ctx context.Context, rule string) error {
	fmt.Println("delete forwarding rule", rule)
	return nil
}

// ensureILB reserves an address for as long as it takes to create the forwarding rule that
// keeps it, the shape of the GCE internal load balancer fix (kubernetes#97740).
func ensureILB(ctx context.Context, c exampleCloud, opts ...acquire.Option) error {
	return acquire.Run(ctx, func(ctx context.Context, s *acquire.Scope) error {
		addr, err := acquire.Temporary(s, "address/ilb-a1b2",
			func(ctx context.Context) (string, error) { return c.reserve(ctx, "ilb-a1b2") },
			c.releaseAddress)
		if err != nil {
			return err
		}
		_, err = acquire.Tentative(s, "forwarding-rule/ilb-a1b2",
			func(ctx context.Context) (string, error) { return c.createRule(ctx, addr.Value()) },
			c.deleteRule)
		return err
	}, opts...)
}

// The reservation is released on the error path as on the success path.
func ExampleRun() {
	err := ensureILB(context.Background(), exampleCloud{failRule: true})
	fmt.Println("error:", err)
	// Output:
	// reserve address ilb-a1b2
	// release address 10.128.0.7
	// error: acquire forwarding-rule/ilb-a1b2: forwarding rule quota exceeded
}

// A Temporary is released when the scope ends, even when the operation succeeds: the
// forwarding rule now holds the IP, the reservation was only needed until then.
func ExampleTemporary() {
	err := ensureILB(context.Background(), exampleCloud{})
	fmt.Println("error:", err)
	// Output:
	// reserve address ilb-a1b2
	// create forwarding rule for 10.128.0.7
	// release address 10.128.0.7
	// error: <nil>
}

// A Tentative is kept when the scope succeeds and released when it fails.
func ExampleTentative() {
	c := exampleCloud{}
	for _, fail := range []bool{false, true} {
		var rule *lease.Lease[string]
		_ = acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
			var err error
			rule, err = acquire.Tentative(s, "forwarding-rule/ilb-a1b2",
				func(ctx context.Context) (string, error) { return c.createRule(ctx, "10.128.0.7") },
				c.deleteRule)
			if err != nil {
				return err
			}
			if fail {
				return errors.New("backend service not ready")
			}
			return nil
		})
		fmt.Println("rule", rule.State())
	}
	// Output:
	// create forwarding rule for 10.128.0.7
	// rule kept
	// create forwarding rule for 10.128.0.7
	// delete forwarding rule rule-1
	// rule released
}

// New and a deferred End make the same scope for a function with a named error result.
func ExampleScope_End() {
	c := exampleCloud{failRelease: true}
	ensure := func(ctx context.Context) (err error) {
		s := acquire.New(ctx)
		defer s.End(&err)
		_, err = acquire.Temporary(s, "address/ilb-a1b2",
			func(ctx context.Context) (string, error) { return c.reserve(ctx, "ilb-a1b2") },
			c.releaseAddress)
		return err
	}
	err := ensure(context.Background())
	var orphan *lease.OrphanError
	fmt.Println(errors.As(err, &orphan), orphan.Name)
	// Output:
	// reserve address ilb-a1b2
	// true address/ilb-a1b2
}

// Defer registers a plain cleanup on the same stack: it runs newest first with the releases.
func ExampleScope_Defer() {
	_ = acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
		s.Defer("first", func(context.Context) error { fmt.Println("cleanup first"); return nil })
		s.Defer("second", func(context.Context) error { fmt.Println("cleanup second"); return nil })
		return nil
	})
	// Output:
	// cleanup second
	// cleanup first
}

// OnOrphan hears of every release that failed, for a metric or a requeue; the orphan is in
// Run's error too, never only in a log line.
func ExampleOnOrphan() {
	err := ensureILB(context.Background(), exampleCloud{failRelease: true},
		acquire.OnOrphan(func(ctx context.Context, err *lease.OrphanError) {
			fmt.Println("orphan:", err.Name)
		}))
	fmt.Println("error:", err)
	// Output:
	// reserve address ilb-a1b2
	// create forwarding rule for 10.128.0.7
	// orphan: address/ilb-a1b2
	// error: lease: address/ilb-a1b2 orphaned: 503 backend error
}

// An address the user reserved under their own name is used, and never enters the scope:
// ownership is decided first, and only the controller's own reservation is acquired through
// the scope. When a later step fails, the scope releases what is ours and cannot touch the
// user's (kubernetes#20663).
func ExampleScope_userAddress() {
	c := exampleCloud{failRule: true}
	userReserved := func(ip string) bool { return ip == "10.128.0.9" } // a lookup by IP
	ensure := func(ctx context.Context, requestedIP string) error {
		return acquire.Run(ctx, func(ctx context.Context, s *acquire.Scope) error {
			ip := requestedIP
			if !userReserved(ip) {
				addr, err := acquire.Temporary(s, "address/ilb-a1b2",
					func(ctx context.Context) (string, error) { return c.reserve(ctx, "ilb-a1b2") },
					c.releaseAddress)
				if err != nil {
					return err
				}
				ip = addr.Value()
			}
			_, err := acquire.Tentative(s, "forwarding-rule/ilb-a1b2",
				func(ctx context.Context) (string, error) { return c.createRule(ctx, ip) },
				c.deleteRule)
			return err
		})
	}
	fmt.Println("user's address:", ensure(context.Background(), "10.128.0.9"))
	fmt.Println("any address:", ensure(context.Background(), ""))
	// Output:
	// user's address: acquire forwarding-rule/ilb-a1b2: forwarding rule quota exceeded
	// reserve address ilb-a1b2
	// release address 10.128.0.7
	// any address: acquire forwarding-rule/ilb-a1b2: forwarding rule quota exceeded
}
