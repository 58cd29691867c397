//go:build !unix

package ctexec

import "os/exec"

// ownProcessGroup does nothing where there are no process groups; a done context kills the
// command alone, and [waitDelay] bounds the wait for its pipes.
func ownProcessGroup(*exec.Cmd) {}
