//go:build !linux

package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "realkernel: needs Linux: network namespaces, iptables and conntrack; run go run ./examples/nodeport for the model")
	os.Exit(2)
}
