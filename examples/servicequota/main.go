// Command servicequota reproduces kubernetes#97437: a ResourceQuota lowered below its use of
// NodePorts refuses a ClusterIP Service in the Kubernetes v1.20.1 admission shape and admits
// it in the fixed shape. It prints the scenario and exits with status 1 if the bug did not
// reproduce.
//
//	go run ./examples/servicequota
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/safereconcile/safereconcile/examples/servicequota/admission"
)

func main() {
	row, err := admission.Scenario.Run(context.Background(), os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "servicequota:", err)
		os.Exit(1)
	}
	if !row.Reproduced {
		fmt.Fprintln(os.Stderr, "servicequota: the scenario did not reproduce kubernetes#97437")
		os.Exit(1)
	}
}
