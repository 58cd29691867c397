//go:build linux

package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/safereconcile/safereconcile/examples/nodeport/kernelpath"
)

func TestRunRefusesBadFlags(t *testing.T) {
	for _, tt := range []struct {
		name string
		give []string
		want string // in standard error
	}{
		{name: "backend", give: []string{"-backend", "ebpf"}, want: `-backend "ebpf": want auto, netlink or exec`},
		{name: "after", give: []string{"-after", "0"}, want: "-after must be at least 1"},
		{name: "timeout", give: []string{"-udp-timeout", "1500ms"}, want: "a whole number of seconds"},
		{name: "unknown", give: []string{"-verbose"}, want: "flag provided but not defined"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			assert.Equal(t, 2, run(tt.give, &stdout, &stderr))
			assert.Contains(t, stderr.String(), tt.want)
			assert.Empty(t, stdout.String())
		})
	}
}

// TestRun runs the command as `go run` would, without the pause, and checks its verdict and
// that it left no namespace behind.
func TestRun(t *testing.T) {
	if err := kernelpath.Check(); err != nil {
		t.Skipf("skipping the real-kernel command: %v", err)
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"-after", "3", "-udp-timeout", "0"}, &stdout, &stderr)
	out := stdout.String()
	assert.Equal(t, 0, code, "stderr: %s\nstdout:\n%s", &stderr, out)
	assert.Contains(t, out, "old shape:   NodePort answered 0/3, ClusterIP 3/3\n")
	assert.Contains(t, out, "fixed shape: NodePort answered 3/3, ClusterIP 3/3\n")
	assert.Contains(t, out, "reproduced:  true\n")

	list, err := exec.Command("ip", "netns", "list").CombinedOutput()
	assert.NoError(t, err)
	labs := 0
	for _, line := range strings.Split(out, "\n") {
		names, ok := strings.CutPrefix(line, "namespaces ")
		if !ok {
			continue
		}
		labs++
		for _, n := range strings.Split(names, ", ") {
			assert.NotContains(t, string(list), n, "namespace left behind")
		}
	}
	assert.Equal(t, 2, labs, "a lab per shape, each named in the output")
}
