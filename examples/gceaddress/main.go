// Command gceaddress reproduces kubernetes#97740, the GCE internal load balancer address
// reservation that outlived a failed sync, in its v1.20.1 shape (the leak), its v1.20.2 shape
// (the upstream fix) and its fixed shape built on package acquire, and prints what each left
// behind at every failure point.
//
//	go run ./examples/gceaddress
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/safereconcile/safereconcile/examples/gceaddress/ilb"
)

func main() {
	row, err := ilb.Scenario.Run(context.Background(), os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("\n%s: old shape: %s; fixed shape: %s; reproduced: %t\n", row.Bug, row.Old, row.Fixed, row.Reproduced)
	if !row.Reproduced {
		os.Exit(1)
	}
}
