// Command nodeport reproduces kubernetes#98305, the UDP NodePort that stayed dark after its
// endpoint arrived, on a deterministic model of a node's packet path: once in the shape of
// Kubernetes v1.20.4 and once with package conntrackorder. It prints both timelines and exits
// with status 1 if the bug did not reproduce. The same scenario on a real kernel is
// ./examples/nodeport/realkernel.
//
//	go run ./examples/nodeport
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/safereconcile/safereconcile/examples/nodeport/proxy"
)

func main() {
	row, err := proxy.Scenario.Run(context.Background(), os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "nodeport:", err)
		os.Exit(1)
	}
	fmt.Printf("\n%s\nold shape:   %s\nfixed shape: %s\nreproduced:  %t\n", row.Bug, row.Old, row.Fixed, row.Reproduced)
	if !row.Reproduced {
		os.Exit(1)
	}
}
