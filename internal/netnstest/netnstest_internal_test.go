//go:build linux

package netnstest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The first Create of a process deletes the namespaces of processes that no longer run, and
// leaves those of running ones and those it did not name.
func TestSweepDeletesOnlyTheNamespacesOfProcessesGone(t *testing.T) {
	Require(t)
	ctx := context.Background()
	gone := exec.Command("true")
	require.NoError(t, gone.Run())
	live := exec.Command("sleep", "60")
	require.NoError(t, live.Start())
	t.Cleanup(func() { _ = live.Process.Kill(); _ = live.Wait() })
	names := map[string]bool{ // name: whether sweep must delete it
		fmt.Sprintf("srt-%d-1-abcdef-gone", gone.Process.Pid): true,
		fmt.Sprintf("srt-%d-1-abcdef-live", live.Process.Pid): false,
		"srt-notapid-1-abcdef-other":                          false,
		fmt.Sprintf("other-%d-1-abcdef-x", gone.Process.Pid):  false,
	}
	for name := range names {
		name := name // the module's language version is 1.21: one variable for every iteration
		out, err := exec.Command("ip", "netns", "add", name).CombinedOutput()
		require.NoError(t, err, "ip netns add %s: %s", name, out)
		t.Cleanup(func() { _ = exec.Command("ip", "netns", "delete", name).Run() })
	}

	sweep(ctx)

	for name, deleted := range names {
		_, err := os.Stat("/run/netns/" + name)
		assert.Equal(t, deleted, os.IsNotExist(err), "%s deleted", name)
	}
}
