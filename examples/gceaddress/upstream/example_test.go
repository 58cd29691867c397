package upstream_test

import (
	"fmt"
	"io"

	"github.com/safereconcile/safereconcile/examples/gceaddress/upstream"
)

// The real Kubernetes v1.20.1 (this module links k8s.io/legacy-cloud-providers v0.20.1) leaves the
// reservation behind when the firewall insert fails, and says ok when the release fails.
func ExampleEnsure() {
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
	// firewalls.insert #1 fails: LEAKED
	// addresses.delete #1 fails: LEAKED, said ok
}
