package main

import (
	"errors"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain runs the command itself when the test binary is started with RELEASEPATH_MAIN=1,
// so that the tests below see its exit status and output without building it.
func TestMain(m *testing.M) {
	if os.Getenv("RELEASEPATH_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// TestMalformedPairsExitTwo checks that every malformed -pairs value stops the command with
// a message naming the value and exit status 2, before any package is loaded.
func TestMalformedPairsExitTwo(t *testing.T) {
	tests := []struct {
		name string
		give string
	}{
		{"no release", "example.com/ipam.ExecAdd"},
		{"no package", "Reserve=Release"},
		{"three names", "example.com/ipam.ExecAdd=example.com/ipam.ExecDel=example.com/ipam.ExecCheck"},
		{"leading star", "*example.com/cloud.Client.Reserve=example.com/cloud.Client.Release"},
		{"leading star on the release", "example.com/cloud.Client.Reserve=*example.com/cloud.Client.Release"},
		{"parenthesized receiver", "example.com/cloud.(*Client).Reserve=example.com/cloud.Client.Release"},
		{"four parts", "example.com/cloud.Client.Reserve.Now=example.com/cloud.Client.Release"},
		{"empty release", "example.com/cloud.Client.Reserve=example.com/cloud.Client.Release|"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-pairs="+tt.give, "example.invalid/nothing")
			cmd.Env = append(os.Environ(), "RELEASEPATH_MAIN=1")
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			require.True(t, errors.As(err, &exit), "want an exit status, got %v\n%s", err, out)
			assert.Equal(t, 2, exit.ExitCode(), "%s", out)
			assert.Contains(t, string(out), "releasepath: pair")
		})
	}
}
