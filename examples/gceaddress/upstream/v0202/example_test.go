package v0202_test

import (
	"fmt"
	"io"

	"github.com/safereconcile/safereconcile/examples/gceaddress/upstream"
)

// The real Kubernetes v1.20.2 releases the reservation when the firewall insert fails, and says ok, with the reservation left, when
// the release fails.
func Example() {
	upstream.LogTo(io.Discard)
	for _, op := range []string{"firewalls.insert", "addresses.delete"} {
		o, err := upstream.Ensure("default/ilb", op, 1)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s #1 fails: %s\n", op, o)
	}
	// Output:
	// firewalls.insert #1 fails: clean
	// addresses.delete #1 fails: LEAKED, said ok
}
