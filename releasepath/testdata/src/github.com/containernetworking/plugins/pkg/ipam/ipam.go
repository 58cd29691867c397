// Package ipam stands in for the CNI plugins' ipam package: the same names and signatures.
package ipam

import "context"

type Result struct{ IPs []string }

func ExecAdd(plugin string, netconf []byte) (*Result, error) { return &Result{}, nil }
func ExecDel(plugin string, netconf []byte) error            { return nil }

var _ = context.Background
