package gcecloud_test

import (
	"context"
	"fmt"

	"github.com/safereconcile/safereconcile/examples/gceaddress/gcecloud"
)

// A failure injected into one call, and a look at what the cloud holds afterwards.
func ExampleCloud_Fail() {
	ctx := context.Background()
	c := gcecloud.New()
	c.Fail(gcecloud.FirewallsInsert, 1, nil) // the next firewall insert fails

	addr, err := c.InsertAddress(ctx, gcecloud.Address{Name: "a1b2"})
	if err != nil {
		fmt.Println(err)
		return
	}
	err = c.InsertFirewall(ctx, gcecloud.Firewall{Name: "k8s-fw-a1b2", Destination: addr.IP})
	fmt.Println(err)
	fmt.Println(c.State().Addresses)
	for _, call := range c.Calls() {
		fmt.Println(call)
	}
	// Output:
	// firewalls.insert k8s-fw-a1b2: gcecloud: injected failure
	// [{a1b2 10.128.0.2 }]
	// addresses.insert a1b2
	// firewalls.insert k8s-fw-a1b2: gcecloud: injected failure
}

// Cancelling the caller's context just before a given call, deterministically.
func ExampleCloud_Before() {
	c := gcecloud.New()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c.Before(gcecloud.AddressesDelete, 1, cancel)

	if _, err := c.InsertAddress(ctx, gcecloud.Address{Name: "a1b2"}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.DeleteAddress(ctx, "a1b2"))
	fmt.Println(c.DeleteAddress(context.WithoutCancel(ctx), "a1b2"))
	// Output:
	// addresses.delete a1b2: context canceled
	// <nil>
}
