//go:build linux

package ctexec_test

// Flush running a real process: a stand-in conntrack(8) script first in $PATH exits, prints,
// hangs, forks and ignores signals as the real one and its wrappers can.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/multierr"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/conntrackorder/ctexec"
)

var (
	svcFilter          = conntrackorder.Filter{Protocol: conntrackorder.UDP, OrigDst: netip.MustParseAddr("172.30.0.41"), DstPort: 80}
	nodePortFilter     = conntrackorder.Filter{Protocol: conntrackorder.UDP, DstPort: 31201}
	ep6Filter          = conntrackorder.Filter{Protocol: conntrackorder.UDP, OrigDst: netip.MustParseAddr("fd00:30::41"), DstPort: 80, ReplySrc: netip.MustParseAddr("fd00:180::1")}
	everyUDPFilter     = conntrackorder.Filter{Protocol: conntrackorder.UDP} // deletes every UDP flow
	nothingDeletedLine = "conntrack v1.4.7 (conntrack-tools): 0 flow entries have been deleted."
)

// fakeConntrack is a stand-in conntrack(8): body is a shell script fragment; every run first appends
// its arguments to the log.
type fakeConntrack struct {
	dir, log string
}

func newFakeConntrack(t *testing.T, body string) *fakeConntrack {
	t.Helper()
	dir := t.TempDir()
	f := &fakeConntrack{dir: dir, log: filepath.Join(dir, "log")}
	script := "#!/bin/sh\necho \"$*\" >> " + f.log + "\n" + body + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "conntrack"), []byte(script), 0o755))
	t.Setenv("PATH", dir)
	return f
}

func (f *fakeConntrack) runs(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(f.log)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	require.NoError(t, err)
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// killAtCleanup kills the process whose pid the script wrote to path, when the test ends.
func killAtCleanup(t *testing.T, path string) {
	t.Cleanup(func() {
		b, err := os.ReadFile(path)
		if err != nil {
			return
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 1 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// TestExitStatusOne: "Only that line, with a count of exactly 0, makes status 1 a
// success; any other failure ... is an error that names the filter."
func TestExitStatusOne(t *testing.T) {
	tests := []struct {
		name   string
		give   string // what the stand-in prints on standard error before exiting 1
		wantOK bool
	}{
		{name: "nothing deleted", give: nothingDeletedLine, wantOK: true},
		{name: "ten deleted", give: "conntrack v1.4.7 (conntrack-tools): 10 flow entries have been deleted."},
		{name: "one hundred deleted", give: "conntrack v1.4.7 (conntrack-tools): 100 flow entries have been deleted."},
		{name: "permission", give: "conntrack v1.4.7 (conntrack-tools): Operation failed: Operation not permitted"},
		{name: "silent"},
		{name: "the line quoted inside another", give: "conntrack: said \"0 flow entries have been deleted.\" but failed"},
		{name: "an error, then the line", give: "conntrack v1.4.7 (conntrack-tools): Operation failed: Permission denied\n" + nothingDeletedLine},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			newFakeConntrack(t, "echo '"+strings.ReplaceAll(tt.give, "'", "'\\''")+"' >&2\nexit 1")
			err := ctexec.New().Flush(context.Background(), conntrackorder.Plan{svcFilter})
			if tt.wantOK {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			var fe *ctexec.FilterError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, svcFilter, fe.Filter)
			assert.Equal(t, ctexec.Args(svcFilter), fe.Args)
			assert.True(t, strings.HasPrefix(err.Error(), "ctexec: conntrack -D -p udp --orig-dst 172.30.0.41 --dport 80: "), "%q", err)
		})
	}
}

// TestExitStatusOneWithALineBeyondTheKeptOutputIsAnError: the summary is not alone when
// another line follows it on standard output, however much blank output comes first, also
// past the part of standard output that Flush keeps; blank output alone beyond it changes
// nothing.
func TestExitStatusOneWithALineBeyondTheKeptOutputIsAnError(t *testing.T) {
	for _, blank := range []int{100, 4096, 65536} {
		for _, tt := range []struct {
			name   string
			then   string // printed on standard output after the blank lines
			wantOK bool
		}{
			{name: "a line", then: "Operation failed: Permission denied"},
			{name: "nothing", wantOK: true},
		} {
			t.Run(fmt.Sprintf("%d blank lines, then %s", blank, tt.name), func(t *testing.T) {
				newFakeConntrack(t, fmt.Sprintf("echo '%s' >&2\n/usr/bin/head -c %d /dev/zero | /usr/bin/tr '\\0' '\\n'\necho '%s'\nexit 1",
					nothingDeletedLine, blank, tt.then))
				err := ctexec.New().Flush(context.Background(), conntrackorder.Plan{svcFilter})
				if tt.wantOK {
					assert.NoError(t, err)
					return
				}
				var fe *ctexec.FilterError
				require.ErrorAs(t, err, &fe)
				assert.Equal(t, svcFilter, fe.Filter)
			})
		}
	}
}

// TestNothingDeletedAfterBlankStandardOutputIsASuccess: blank lines do not count against the
// part of standard output Flush keeps, so the summary alone after any amount of them, on
// standard output as a wrapper that moved it prints it, still makes status 1 a success.
func TestNothingDeletedAfterBlankStandardOutputIsASuccess(t *testing.T) {
	for _, blank := range []int{4096, 65536} {
		for _, tt := range []struct {
			name, print string // a shell pipeline printing blank bytes, given their number
		}{
			{name: "empty lines", print: "/usr/bin/head -c %d /dev/zero | /usr/bin/tr '\\0' '\\n'"},
			{name: "lines of spaces and tabs", print: "/usr/bin/head -c %d /dev/zero | /usr/bin/tr '\\0' ' ' | /usr/bin/fold -w 63 | /usr/bin/tr ' ' '\\t'"},
			{name: "one line of spaces", print: "/usr/bin/head -c %d /dev/zero | /usr/bin/tr '\\0' ' '; echo"},
		} {
			t.Run(fmt.Sprintf("%d blank bytes as %s", blank, tt.name), func(t *testing.T) {
				newFakeConntrack(t, fmt.Sprintf(tt.print, blank)+"\necho '"+nothingDeletedLine+"'\nexit 1")
				assert.NoError(t, ctexec.New().Flush(context.Background(), conntrackorder.Plan{svcFilter}))
			})
		}
	}
}

// TestNothingDeletedWhileADaemonHoldsThePipes: "Flush returns nil when every command
// succeeded or deleted nothing", also when a descendant that left the process group keeps
// the command's output open ("Flush stops waiting for it after half a second").
func TestNothingDeletedWhileADaemonHoldsThePipes(t *testing.T) {
	for _, tt := range []struct {
		name, exit string
		wantOK     bool
	}{
		{name: "status 0", exit: "exit 0", wantOK: true},
		{name: "status 1 nothing deleted", exit: "echo '" + nothingDeletedLine + "' >&2; exit 1", wantOK: true},
		{name: "status 2", exit: "echo 'conntrack v1.4.7 (conntrack-tools): Bad parameter' >&2; exit 2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			pidfile := filepath.Join(dir, "daemon.pid")
			killAtCleanup(t, pidfile)
			newFakeConntrack(t, "/usr/bin/setsid /bin/sleep 1000 &\necho $! > "+pidfile+"\n"+tt.exit)
			err := ctexec.New().Flush(context.Background(), conntrackorder.Plan{svcFilter})
			if tt.wantOK {
				assert.NoError(t, err)
			} else {
				var fe *ctexec.FilterError
				assert.ErrorAs(t, err, &fe)
			}
		})
	}
}

// TestCancelWhileADaemonHoldsThePipes: "when ctx is done, the running command's process
// group is killed (a wrapper's children too), Flush returns promptly with an error that wraps
// ctx.Err(), and the remaining filters are not run." The stand-in's own child sleeps in the
// group; a daemon that left it holds the pipes. If Flush waited for either, it would not return.
func TestCancelWhileADaemonHoldsThePipes(t *testing.T) {
	dir := t.TempDir()
	fifo, pidfile := filepath.Join(dir, "started"), filepath.Join(dir, "daemon.pid")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	killAtCleanup(t, pidfile)
	fake := newFakeConntrack(t, "/usr/bin/setsid /bin/sleep 1000 &\necho $! > "+pidfile+"\n/bin/sleep 1000 &\necho started > "+fifo+"\nwait")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// Opening the FIFO waits for the stand-in to have started its children.
		if f, err := os.Open(fifo); err == nil {
			_, _ = bufio.NewReader(f).ReadString('\n')
			f.Close()
		}
		cancel()
	}()
	err := ctexec.New().Flush(ctx, conntrackorder.Plan{svcFilter, nodePortFilter})
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, []string{strings.Join(ctexec.Args(svcFilter), " ")}, fake.runs(t), "the remaining filter must not run")
}

// TestDoneContextRunsNothing: "when ctx is done ... Flush returns ... an error that
// wraps ctx.Err(), and the remaining filters are not run": a context that is done before Flush
// runs none of them.
func TestDoneContextRunsNothing(t *testing.T) {
	fake := newFakeConntrack(t, "exit 0")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := ctexec.New().Flush(ctx, conntrackorder.Plan{svcFilter, nodePortFilter})
	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, fake.runs(t))
}

// TestRefusedFilterDoesNotStopTheOthers: "A filter that fails Validate is not run. A
// command that fails does not stop the others ... one *FilterError per failed filter", in
// plan order, and with -f ipv6 for IPv6 filters; the zero Flusher works the same.
func TestRefusedFilterDoesNotStopTheOthers(t *testing.T) {
	fake := newFakeConntrack(t, `case "$*" in *31201*) echo 'conntrack v1.4.7 (conntrack-tools): Operation failed: No buffer space available' >&2; exit 1;; esac
exit 0`)
	var zero ctexec.Flusher
	err := zero.Flush(context.Background(), conntrackorder.Plan{everyUDPFilter, svcFilter, nodePortFilter, ep6Filter})
	require.Error(t, err)
	errs := multierr.Errors(err)
	require.Len(t, errs, 2)
	var refused, failed *ctexec.FilterError
	require.ErrorAs(t, errs[0], &refused)
	require.ErrorAs(t, errs[1], &failed)
	assert.Equal(t, everyUDPFilter, refused.Filter)
	assert.Nil(t, refused.Args)
	assert.True(t, strings.HasPrefix(refused.Error(), "ctexec: not run: "), "%q", refused)
	assert.Equal(t, nodePortFilter, failed.Filter)
	assert.Contains(t, failed.Output, "No buffer space available")
	assert.Equal(t, []string{
		"-D -p udp --orig-dst 172.30.0.41 --dport 80",
		"-D -p udp --dport 31201",
		"-D -p udp --orig-dst fd00:30::41 --dport 80 --dst-nat fd00:180::1 -f ipv6",
	}, fake.runs(t))
}

// TestMissingBinaryStopsAtTheFirstFilter: "When the conntrack binary cannot be found,
// Flush stops at the first filter ... an error that names the filter."
func TestMissingBinaryStopsAtTheFirstFilter(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	err := ctexec.New().Flush(context.Background(), conntrackorder.Plan{svcFilter, nodePortFilter})
	require.Error(t, err)
	assert.Len(t, multierr.Errors(err), 1)
	assert.ErrorIs(t, err, exec.ErrNotFound)
	var fe *ctexec.FilterError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, svcFilter, fe.Filter)
	assert.Contains(t, err.Error(), "172.30.0.41")
}

// TestOutputIsBounded: FilterError.Output is "standard error, then the start of standard
// output": a command that floods standard output must not be held whole in the error.
func TestOutputIsBounded(t *testing.T) {
	newFakeConntrack(t, "echo 'conntrack v1.4.7 (conntrack-tools): Bad parameter' >&2\n/usr/bin/head -c 20000000 /dev/zero | /usr/bin/tr '\\0' x\nexit 2")
	err := ctexec.New().Flush(context.Background(), conntrackorder.Plan{svcFilter})
	var fe *ctexec.FilterError
	require.ErrorAs(t, err, &fe)
	assert.True(t, strings.HasPrefix(fe.Output, "conntrack v1.4.7 (conntrack-tools): Bad parameter"), "%.200q", fe.Output)
	assert.Less(t, len(fe.Output), 1<<20, "20 MB of standard output kept in the error")
	assert.Less(t, len(err.Error()), 1<<20)
}

// TestArgsOfEveryFilterShape: Args gives "-D -p <protocol>", then "--orig-dst", "--dport", "--dst-nat",
// and "-f ipv6" if the filter's addresses are IPv6, also when only ReplySrc is set.
func TestArgsOfEveryFilterShape(t *testing.T) {
	tests := []struct {
		give conntrackorder.Filter
		want string
	}{
		{give: conntrackorder.Filter{Protocol: conntrackorder.SCTP, DstPort: 31201}, want: "-D -p sctp --dport 31201"},
		{give: conntrackorder.Filter{Protocol: conntrackorder.UDP, ReplySrc: netip.MustParseAddr("fd00:180::1")}, want: "-D -p udp --dst-nat fd00:180::1 -f ipv6"},
		{give: conntrackorder.Filter{Protocol: conntrackorder.UDP, OrigDst: netip.MustParseAddr("fd00:30::41")}, want: "-D -p udp --orig-dst fd00:30::41 -f ipv6"},
		{give: conntrackorder.Filter{Protocol: conntrackorder.UDP, DstPort: 31201, ReplySrc: netip.MustParseAddr("10.180.0.1")}, want: "-D -p udp --dport 31201 --dst-nat 10.180.0.1"},
		{give: ep6Filter, want: "-D -p udp --orig-dst fd00:30::41 --dport 80 --dst-nat fd00:180::1 -f ipv6"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, strings.Join(ctexec.Args(tt.give), " "))
	}
}

// TestCancelKillsAWrapperThatIgnoresSignals: "when ctx is done, the running command's
// process group is killed (a wrapper's children too)": a wrapper and its child that ignore
// SIGTERM, SIGINT and SIGHUP die all the same, and Flush returns ctx's error.
func TestCancelKillsAWrapperThatIgnoresSignals(t *testing.T) {
	dir := t.TempDir()
	fifo, pidfile := filepath.Join(dir, "started"), filepath.Join(dir, "child.pid")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	killAtCleanup(t, pidfile)
	newFakeConntrack(t, "trap '' TERM INT HUP\n/bin/sleep 1000 &\necho $! > "+pidfile+"\necho started > "+fifo+"\nwhile :; do wait; done")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		if f, err := os.Open(fifo); err == nil {
			_, _ = bufio.NewReader(f).ReadString('\n')
			f.Close()
		}
		cancel()
	}()
	err := ctexec.New().Flush(ctx, conntrackorder.Plan{svcFilter})
	require.ErrorIs(t, err, context.Canceled)
	b, err := os.ReadFile(pidfile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	// The kill was sent before Flush returned; wait for the kernel to carry it out. A child
	// that survived keeps this loop going until the test times out.
	for {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || zombieOf(string(stat)) {
			break
		}
		runtime.Gosched()
	}
}

// zombieOf reports whether a /proc/<pid>/stat line is of a process that has exited.
func zombieOf(stat string) bool {
	i := strings.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X')
}
