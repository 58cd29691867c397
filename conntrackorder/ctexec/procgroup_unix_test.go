//go:build unix

package ctexec

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/conntrackorder"
)

// TestFlushKillsTheWrappersChildren runs a stand-in conntrack that, like a wrapper script,
// starts a child that holds the command's output pipes and outlives it. When ctx is done,
// Flush must kill the child too and return; killing only the wrapper left Wait blocked on the
// pipes until the child exited, 5 s against a 200 ms deadline before the fix.
func TestFlushKillsTheWrappersChildren(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	// The child's pid is written before the wrapper reports it started, so that the test
	// knows it exists before the deadline.
	script := `#!/bin/sh
sleep 300 &
echo $! > "` + pidFile + `.tmp"
mv "` + pidFile + `.tmp" "` + pidFile + `"
wait
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "conntrack"), []byte(script), 0o755))
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Cleanup(func() { // the child must not outlive a failed test
		if pid, err := readPid(pidFile); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- New().Flush(ctx, conntrackorder.Plan{{Protocol: conntrackorder.UDP, DstPort: 31201}})
	}()
	var child int
	require.Eventually(t, func() bool {
		var err error
		child, err = readPid(pidFile)
		return err == nil
	}, 30*time.Second, 5*time.Millisecond, "the stand-in conntrack did not start its child")
	cancel()

	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second): // far beyond what killing takes; the child sleeps 300 s
		t.Fatal("Flush did not return after its context was done: the child holds its pipes")
	}
	require.ErrorIs(t, err, context.Canceled)
	var fe *FilterError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, []string{"-D", "-p", "udp", "--dport", "31201"}, fe.Args)
	assert.Eventually(t, func() bool { return !running(child) }, 30*time.Second, 5*time.Millisecond,
		"the wrapper's child %d still runs", child)
}

// readPid reads the pid a stand-in conntrack wrote.
func readPid(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// running reports whether process pid exists and is not a zombie: a killed child whose new
// parent has not reaped it yet is dead.
func running(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil // no /proc: existence is all we can see
	}
	// "pid (comm) state ...": the state follows the last ')'.
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || i+2 >= len(stat) || (stat[i+2] != 'Z' && stat[i+2] != 'X')
}

// TestFlushDoesNotWaitForADaemonsPipes runs a stand-in conntrack that starts a child in a
// session of its own, out of reach of the process-group kill, holding the command's pipes.
// Flush stops waiting for the pipes shortly after conntrack exits or ctx is done: a success
// stays a success, a cancelled Flush returns its error.
func TestFlushDoesNotWaitForADaemonsPipes(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid(1) is not installed (util-linux)")
	}
	for _, tt := range []struct {
		name    string
		exit    string // how the stand-in ends after starting the child
		cancel  bool
		wantErr error
	}{
		{name: "conntrack succeeded", exit: `echo "conntrack v1.4.7 (conntrack-tools): 1 flow entries have been deleted." >&2; exit 0`},
		{name: "conntrack deleted nothing", exit: `echo "conntrack v1.4.7 (conntrack-tools): 0 flow entries have been deleted." >&2; exit 1`},
		{name: "ctx done", exit: "wait", cancel: true, wantErr: context.Canceled},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "child.pid")
			script := `#!/bin/sh
setsid sleep 300 &
echo $! > "` + pidFile + `.tmp"
mv "` + pidFile + `.tmp" "` + pidFile + `"
` + tt.exit + "\n"
			require.NoError(t, os.WriteFile(filepath.Join(dir, "conntrack"), []byte(script), 0o755))
			t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
			t.Cleanup(func() {
				if pid, err := readPid(pidFile); err == nil {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			})

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				done <- New().Flush(ctx, conntrackorder.Plan{{Protocol: conntrackorder.UDP, DstPort: 31201}})
			}()
			if tt.cancel {
				require.Eventually(t, func() bool { _, err := readPid(pidFile); return err == nil },
					30*time.Second, 5*time.Millisecond, "the stand-in conntrack did not start its child")
				cancel()
			}
			select {
			case err := <-done:
				if tt.wantErr == nil {
					assert.NoError(t, err)
				} else {
					assert.ErrorIs(t, err, tt.wantErr)
				}
			case <-time.After(60 * time.Second): // the child sleeps 300 s
				t.Fatal("Flush waited for the pipes of a child that left the process group")
			}
		})
	}
}
