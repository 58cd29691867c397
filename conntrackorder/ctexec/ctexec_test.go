package ctexec

import (
	"bytes"
	"context"
	"errors"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/multierr"

	"github.com/safereconcile/safereconcile/conntrackorder"
)

var (
	clusterIP  = netip.MustParseAddr("172.30.0.41")
	endpointIP = netip.MustParseAddr("10.180.0.1")
	clusterIP6 = netip.MustParseAddr("fd00:30::41")
	endpoint6  = netip.MustParseAddr("fd00:180::1")
)

const nothingDeleted = "conntrack v1.4.7 (conntrack-tools): 0 flow entries have been deleted.\n"

// exitStatus is the error of a command that exited with a status, like *exec.ExitError.
type exitStatus int

func (e exitStatus) Error() string { return "exit status " + strconv.Itoa(int(e)) }
func (e exitStatus) ExitCode() int { return int(e) }

// fakeRunner records the commands it is given and answers each with reply.
type fakeRunner struct {
	mu    sync.Mutex
	calls [][]string
	reply func(args []string) ([]byte, error)
}

func (r *fakeRunner) run(_ context.Context, args []string) ([]byte, error) {
	r.mu.Lock()
	r.calls = append(r.calls, append([]string(nil), args...))
	r.mu.Unlock()
	if r.reply == nil {
		return nil, nil
	}
	return r.reply(args)
}

func (r *fakeRunner) commands() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, c := range r.calls {
		out = append(out, strings.Join(c, " "))
	}
	return out
}

func TestArgs(t *testing.T) {
	tests := []struct {
		name string
		give conntrackorder.Filter
		want string
	}{
		{
			name: "service IP",
			give: conntrackorder.Filter{Protocol: conntrackorder.UDP, OrigDst: clusterIP, DstPort: 80},
			want: "-D -p udp --orig-dst 172.30.0.41 --dport 80",
		},
		{
			name: "NodePort",
			give: conntrackorder.Filter{Protocol: conntrackorder.UDP, DstPort: 31201},
			want: "-D -p udp --dport 31201",
		},
		{
			name: "endpoint behind a service IP",
			give: conntrackorder.Filter{Protocol: conntrackorder.UDP, OrigDst: clusterIP, DstPort: 80, ReplySrc: endpointIP},
			want: "-D -p udp --orig-dst 172.30.0.41 --dport 80 --dst-nat 10.180.0.1",
		},
		{
			name: "endpoint behind a NodePort",
			give: conntrackorder.Filter{Protocol: conntrackorder.UDP, DstPort: 31201, ReplySrc: endpointIP},
			want: "-D -p udp --dport 31201 --dst-nat 10.180.0.1",
		},
		{
			name: "IPv6 service IP",
			give: conntrackorder.Filter{Protocol: conntrackorder.UDP, OrigDst: clusterIP6, DstPort: 53},
			want: "-D -p udp --orig-dst fd00:30::41 --dport 53 -f ipv6",
		},
		{
			name: "IPv6 endpoint behind a NodePort",
			give: conntrackorder.Filter{Protocol: conntrackorder.UDP, DstPort: 31201, ReplySrc: endpoint6},
			want: "-D -p udp --dport 31201 --dst-nat fd00:180::1 -f ipv6",
		},
		{
			name: "SCTP",
			give: conntrackorder.Filter{Protocol: conntrackorder.SCTP, OrigDst: clusterIP, DstPort: 3868},
			want: "-D -p sctp --orig-dst 172.30.0.41 --dport 3868",
		},
		{
			name: "TCP",
			give: conntrackorder.Filter{Protocol: conntrackorder.TCP, DstPort: 8080},
			want: "-D -p tcp --dport 8080",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, strings.Join(Args(tt.give), " "))
		})
	}
}

func TestFlushRunsEachFilterInPlanOrder(t *testing.T) {
	r := &fakeRunner{}
	plan := conntrackorder.Plan{
		{Protocol: conntrackorder.UDP, OrigDst: clusterIP, DstPort: 80},
		{Protocol: conntrackorder.UDP, OrigDst: clusterIP6, DstPort: 80},
		{Protocol: conntrackorder.UDP, DstPort: 31201},
		{Protocol: conntrackorder.UDP, DstPort: 31201, ReplySrc: endpointIP},
	}
	require.NoError(t, (&Flusher{run: r.run}).Flush(context.Background(), plan))

	want := []string{
		"-D -p udp --orig-dst 172.30.0.41 --dport 80",
		"-D -p udp --orig-dst fd00:30::41 --dport 80 -f ipv6",
		// one command per filter: without -f, conntrack 1.4.7 matches both families
		"-D -p udp --dport 31201",
		"-D -p udp --dport 31201 --dst-nat 10.180.0.1",
	}
	if diff := cmp.Diff(want, r.commands()); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
}

func TestFlushEmptyPlanRunsNothing(t *testing.T) {
	r := &fakeRunner{}
	require.NoError(t, (&Flusher{run: r.run}).Flush(context.Background(), nil))
	assert.Empty(t, r.commands())
}

func TestFlushExitStatus(t *testing.T) {
	plan := conntrackorder.Plan{{Protocol: conntrackorder.UDP, OrigDst: clusterIP, DstPort: 80}}
	tests := []struct {
		name   string
		stderr string
		err    error
		want   string // the error's message; empty for success
	}{
		{name: "deleted some", stderr: "conntrack v1.4.7 (conntrack-tools): 3 flow entries have been deleted.\n"},
		{name: "deleted nothing", stderr: nothingDeleted, err: exitStatus(1)},
		{
			name:   "status 1 for another reason",
			stderr: "conntrack v1.4.7 (conntrack-tools): Operation failed: Operation not permitted\n",
			err:    exitStatus(1),
			want:   "ctexec: conntrack -D -p udp --orig-dst 172.30.0.41 --dport 80: exit status 1: conntrack v1.4.7 (conntrack-tools): Operation failed: Operation not permitted",
		},
		{
			name:   "status 2",
			stderr: "conntrack v1.4.7 (conntrack-tools): Bad parameter\n",
			err:    exitStatus(2),
			want:   "ctexec: conntrack -D -p udp --orig-dst 172.30.0.41 --dport 80: exit status 2: conntrack v1.4.7 (conntrack-tools): Bad parameter",
		},
		{
			name:   "the message with another status",
			stderr: nothingDeleted,
			err:    exitStatus(2),
			want:   "ctexec: conntrack -D -p udp --orig-dst 172.30.0.41 --dport 80: exit status 2: conntrack v1.4.7 (conntrack-tools): 0 flow entries have been deleted.",
		},
		{name: "deleted nothing, without the prefix", stderr: "0 flow entries have been deleted.\n", err: exitStatus(1)},
		{
			// conntrack prints the summary after its own error too; then nothing is known
			// to be gone.
			name:   "the message after an error line",
			stderr: "conntrack v1.4.7 (conntrack-tools): Operation failed: Permission denied\n" + nothingDeleted,
			err:    exitStatus(1),
			want:   "ctexec: conntrack -D -p udp --orig-dst 172.30.0.41 --dport 80: exit status 1: conntrack v1.4.7 (conntrack-tools): Operation failed: Permission denied\nconntrack v1.4.7 (conntrack-tools): 0 flow entries have been deleted.",
		},
		{
			name:   "the message twice",
			stderr: nothingDeleted + nothingDeleted,
			err:    exitStatus(1),
			want:   "ctexec: conntrack -D -p udp --orig-dst 172.30.0.41 --dport 80: exit status 1: conntrack v1.4.7 (conntrack-tools): 0 flow entries have been deleted.\nconntrack v1.4.7 (conntrack-tools): 0 flow entries have been deleted.",
		},
		{name: "deleted nothing, with blank lines around", stderr: "\n" + nothingDeleted + "\n\n", err: exitStatus(1)},
		{
			// Status 1 after deleting 10 is a failure; "0 flow entries" is only a substring.
			name:   "status 1 after deleting ten",
			stderr: "conntrack v1.4.7 (conntrack-tools): 10 flow entries have been deleted.\n",
			err:    exitStatus(1),
			want:   "ctexec: conntrack -D -p udp --orig-dst 172.30.0.41 --dport 80: exit status 1: conntrack v1.4.7 (conntrack-tools): 10 flow entries have been deleted.",
		},
		{
			name:   "the message inside another line",
			stderr: "conntrack: cannot say 0 flow entries have been deleted.\n",
			err:    exitStatus(1),
			want:   "ctexec: conntrack -D -p udp --orig-dst 172.30.0.41 --dport 80: exit status 1: conntrack: cannot say 0 flow entries have been deleted.",
		},
		{
			name:   "the message with more after it",
			stderr: "conntrack v1.4.7 (conntrack-tools): 0 flow entries have been deleted. Then it failed\n",
			err:    exitStatus(1),
			want:   "ctexec: conntrack -D -p udp --orig-dst 172.30.0.41 --dport 80: exit status 1: conntrack v1.4.7 (conntrack-tools): 0 flow entries have been deleted. Then it failed",
		},
		{
			name: "killed",
			err:  errors.New("signal: killed"),
			want: "ctexec: conntrack -D -p udp --orig-dst 172.30.0.41 --dport 80: signal: killed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &fakeRunner{reply: func([]string) ([]byte, error) { return []byte(tt.stderr), tt.err }}
			err := (&Flusher{run: r.run}).Flush(context.Background(), plan)
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tt.want)
			var fe *FilterError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, plan[0], fe.Filter)
			assert.ErrorIs(t, err, tt.err)
		})
	}
}

func TestFlushContinuesAfterAFailureAndReportsEveryOne(t *testing.T) {
	plan := conntrackorder.Plan{
		{Protocol: conntrackorder.UDP, OrigDst: clusterIP, DstPort: 80},
		{Protocol: conntrackorder.UDP, OrigDst: netip.MustParseAddr("192.168.99.11"), DstPort: 80},
		{Protocol: conntrackorder.UDP, OrigDst: netip.MustParseAddr("1.2.3.4"), DstPort: 80},
		{Protocol: conntrackorder.UDP, DstPort: 31201, ReplySrc: endpointIP},
	}
	r := &fakeRunner{reply: func(args []string) ([]byte, error) {
		switch args[4] {
		case "192.168.99.11", "1.2.3.4":
			return []byte("conntrack v1.4.7 (conntrack-tools): Operation failed: invalid parameters\n"), exitStatus(1)
		}
		return []byte(nothingDeleted), exitStatus(1)
	}}
	err := (&Flusher{run: r.run}).Flush(context.Background(), plan)
	require.Error(t, err)

	assert.Len(t, r.commands(), 4, "every filter runs, also after a failure")
	var failed []conntrackorder.Filter
	for _, e := range multierr.Errors(err) {
		var fe *FilterError
		require.ErrorAs(t, e, &fe)
		failed = append(failed, fe.Filter)
	}
	if diff := cmp.Diff([]conntrackorder.Filter{plan[1], plan[2]}, failed); diff != "" {
		t.Errorf("failed filters (-want +got):\n%s", diff)
	}
	assert.Contains(t, err.Error(), "ctexec: conntrack -D -p udp --orig-dst 192.168.99.11 --dport 80: exit status 1")
	assert.Contains(t, err.Error(), "ctexec: conntrack -D -p udp --orig-dst 1.2.3.4 --dport 80: exit status 1")
}

func TestFlushRefusesFiltersItMustNotRun(t *testing.T) {
	tests := []struct {
		name string
		give conntrackorder.Filter
		want string
	}{
		{
			// conntrack -D -p udp would delete every UDP flow on the node.
			name: "protocol only",
			give: conntrackorder.Filter{Protocol: conntrackorder.UDP},
			want: "ctexec: not run: conntrackorder: filter udp: sets no address and no port, so it would delete every flow of its protocol",
		},
		{
			name: "zero filter",
			give: conntrackorder.Filter{},
			want: "ctexec: not run: conntrackorder: filter protocol(0): unknown protocol",
		},
		{
			name: "unknown protocol",
			give: conntrackorder.Filter{Protocol: 9, DstPort: 80},
			want: "ctexec: not run: conntrackorder: filter protocol(9) dport 80: unknown protocol",
		},
		{
			name: "mixed families",
			give: conntrackorder.Filter{Protocol: conntrackorder.UDP, OrigDst: clusterIP, ReplySrc: endpoint6},
			want: "ctexec: not run: conntrackorder: filter udp orig-dst 172.30.0.41 dst-nat fd00:180::1: addresses of different families",
		},
		{
			name: "unspecified address",
			give: conntrackorder.Filter{Protocol: conntrackorder.UDP, OrigDst: netip.IPv4Unspecified()},
			want: "ctexec: not run: conntrackorder: filter udp orig-dst 0.0.0.0: address 0.0.0.0 is unspecified",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &fakeRunner{}
			ok := conntrackorder.Filter{Protocol: conntrackorder.UDP, DstPort: 31201, ReplySrc: endpointIP}
			err := (&Flusher{run: r.run}).Flush(context.Background(), conntrackorder.Plan{tt.give, ok})
			require.EqualError(t, err, tt.want)
			assert.Equal(t, []string{"-D -p udp --dport 31201 --dst-nat 10.180.0.1"}, r.commands(),
				"the refused filter is not run, the next one is")
		})
	}
}

func TestFlushStopsWhenTheContextIsDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &fakeRunner{reply: func([]string) ([]byte, error) {
		cancel()
		return nil, errors.New("signal: killed")
	}}
	plan := conntrackorder.Plan{
		{Protocol: conntrackorder.UDP, OrigDst: clusterIP, DstPort: 80},
		{Protocol: conntrackorder.UDP, OrigDst: clusterIP, DstPort: 81},
		{Protocol: conntrackorder.UDP, OrigDst: clusterIP, DstPort: 82},
	}
	err := (&Flusher{run: r.run}).Flush(ctx, plan)
	require.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "ctexec: 2 of 3 filters not run: context canceled")
	assert.Len(t, r.commands(), 1)
}

func TestFlushMissingBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	plan := conntrackorder.Plan{
		{Protocol: conntrackorder.UDP, DstPort: 31201},
		{Protocol: conntrackorder.UDP, OrigDst: clusterIP, DstPort: 80},
	}
	err := New().Flush(context.Background(), plan)
	require.ErrorIs(t, err, exec.ErrNotFound)
	assert.Len(t, multierr.Errors(err), 1, "one error, not one per filter")
	assert.EqualError(t, err, `ctexec: conntrack -D -p udp --dport 31201: exec: "conntrack": executable file not found in $PATH`)
}

// TestFlushRunsTheCommand runs a stand-in conntrack script from $PATH, so that the os/exec path
// (arguments, standard error, exit status) is covered without root.
func TestFlushRunsTheCommand(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in conntrack is a shell script")
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	script := `#!/bin/sh
echo "$*" >> "` + log + `"
case "$*" in
*--dport\ 1*) echo "conntrack v1.4.7 (conntrack-tools): 1 flow entries have been deleted." >&2; exit 0 ;;
*--dport\ 2*) echo "conntrack v1.4.7 (conntrack-tools): 0 flow entries have been deleted." >&2; exit 1 ;;
*--dport\ 4*) echo "conntrack v1.4.7 (conntrack-tools): 0 flow entries have been deleted."; exit 1 ;;
*) echo "conntrack v1.4.7 (conntrack-tools): Bad parameter" >&2; exit 2 ;;
esac
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "conntrack"), []byte(script), 0o755))
	t.Setenv("PATH", dir)

	plan := conntrackorder.Plan{
		{Protocol: conntrackorder.UDP, OrigDst: clusterIP, DstPort: 1},
		{Protocol: conntrackorder.UDP, OrigDst: clusterIP, DstPort: 2},
		{Protocol: conntrackorder.UDP, OrigDst: clusterIP, DstPort: 4}, // the message on stdout
		{Protocol: conntrackorder.SCTP, OrigDst: clusterIP, DstPort: 3},
	}
	err := New().Flush(context.Background(), plan)
	require.EqualError(t, err, "ctexec: conntrack -D -p sctp --orig-dst 172.30.0.41 --dport 3: exit status 2: conntrack v1.4.7 (conntrack-tools): Bad parameter")
	var exitErr *exec.ExitError
	assert.ErrorAs(t, err, &exitErr)

	got, err := os.ReadFile(log)
	require.NoError(t, err)
	want := "-D -p udp --orig-dst 172.30.0.41 --dport 1\n" +
		"-D -p udp --orig-dst 172.30.0.41 --dport 2\n" +
		"-D -p udp --orig-dst 172.30.0.41 --dport 4\n" +
		"-D -p sctp --orig-dst 172.30.0.41 --dport 3\n"
	assert.Equal(t, want, string(got))
}

// TestFlushRealConntrack runs the real conntrack(8) with filters that cannot match: their
// addresses are in the documentation ranges (RFC 5737, RFC 3849), so nothing is deleted.
func TestFlushRealConntrack(t *testing.T) {
	if _, err := exec.LookPath("conntrack"); err != nil {
		t.Skip("conntrack(8) is not installed (apt-get install conntrack)")
	}
	if os.Geteuid() != 0 {
		t.Skip("conntrack(8) needs root (CAP_NET_ADMIN) to read the conntrack table")
	}
	doc4 := netip.MustParseAddr("192.0.2.1")
	doc6 := netip.MustParseAddr("2001:db8::1")
	plan := conntrackorder.Plan{
		{Protocol: conntrackorder.UDP, OrigDst: doc4, DstPort: 9},
		{Protocol: conntrackorder.UDP, OrigDst: doc6, DstPort: 9},
		{Protocol: conntrackorder.SCTP, OrigDst: doc4, DstPort: 9},
		{Protocol: conntrackorder.UDP, OrigDst: doc4, DstPort: 9, ReplySrc: netip.MustParseAddr("192.0.2.2")},
		{Protocol: conntrackorder.SCTP, DstPort: 9, ReplySrc: netip.MustParseAddr("2001:db8::2")},
	}
	require.NoError(t, New().Flush(context.Background(), plan))
}

// FuzzLimitedBuffer: standard output is kept as its non-blank lines, up to outputLimit bytes
// of them, whatever blank lines come between and wherever the command's writes split it; the
// rest is counted, and noted as text when it holds more than white space.
func FuzzLimitedBuffer(f *testing.F) {
	f.Add([]byte(nothingDeleted), []byte{3, 1, 200}, uint8(16))
	f.Add([]byte("\n\n  \t\n"+nothingDeleted), []byte{1}, uint8(8))
	f.Add([]byte(strings.Repeat(" ", 100)+"\n"+nothingDeleted), []byte{7, 60}, uint8(64))
	f.Add([]byte("ab  \n\ncd\n   ef"), []byte{2}, uint8(5))
	f.Fuzz(func(t *testing.T, output, writes []byte, limit uint8) {
		b := &limitedBuffer{max: int(limit)}
		for rest, i := output, 0; len(rest) > 0; i++ {
			n := len(rest)
			if len(writes) > 0 {
				n = min(int(writes[i%len(writes)])+1, n)
			}
			m, err := b.Write(rest[:n])
			require.NoError(t, err)
			require.Equal(t, n, m)
			rest = rest[n:]
		}
		var text []byte // the non-blank lines, and the last line however it is
		lines := bytes.SplitAfter(output, []byte("\n"))
		for i, line := range lines {
			if !isBlank(line) || i == len(lines)-1 {
				text = append(text, line...)
			}
		}
		kept := text[:min(len(text), int(limit))]
		assert.Equal(t, string(kept), b.buf.String())
		assert.Equal(t, len(output)-len(kept), b.dropped)
		assert.Equal(t, !isBlank(text[len(kept):]), b.droppedText)
	})
}
