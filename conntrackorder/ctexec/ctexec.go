package ctexec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"go.uber.org/multierr"

	"github.com/safereconcile/safereconcile/conntrackorder"
)

// A Flusher deletes conntrack entries with the conntrack(8) command found in $PATH.
//
// The zero value is ready to use, and so is the result of [New]. A Flusher holds no state
// between calls and is safe for concurrent use.
type Flusher struct {
	// run runs conntrack with args and returns what it wrote. nil runs the real command;
	// tests set it.
	run func(ctx context.Context, args []string) (output []byte, err error)
}

var _ conntrackorder.Flusher = (*Flusher)(nil)

// New returns a Flusher that runs conntrack(8).
func New() *Flusher {
	return &Flusher{}
}

// Args returns the arguments, without the command name, of the conntrack(8) command that
// deletes the entries f selects, in this order: "-D -p <protocol>", then "--orig-dst <ip>" if
// OrigDst is set, "--dport <port>" if DstPort is set, "--dst-nat <ip>" if ReplySrc is set,
// and "-f ipv6" if the filter's addresses are IPv6. For example
//
//	{UDP, 172.30.0.41, 80, -}  →  -D -p udp --orig-dst 172.30.0.41 --dport 80
//	{UDP, -, 31201, -}         →  -D -p udp --dport 31201
//
// Args does not check f; [Flusher.Flush] does before it runs anything.
func Args(f conntrackorder.Filter) []string {
	args := make([]string, 0, 11)
	args = append(args, "-D", "-p", f.Protocol.String())
	if f.OrigDst.IsValid() {
		args = append(args, "--orig-dst", f.OrigDst.String())
	}
	if f.DstPort != 0 {
		args = append(args, "--dport", strconv.Itoa(int(f.DstPort)))
	}
	if f.ReplySrc.IsValid() {
		args = append(args, "--dst-nat", f.ReplySrc.String())
	}
	if f.Is6() {
		args = append(args, "-f", "ipv6")
	}
	return args
}

// Flush runs conntrack once per filter of plan, in plan order. Each command runs with ctx:
// when ctx is done, the running command's process group is killed (a wrapper's children
// too), Flush returns promptly with an error that wraps ctx.Err(), and the remaining filters
// are not run.
//
// A filter that fails [conntrackorder.Filter.Validate] is not run. A command that fails does
// not stop the others: Flush applies every filter it can and returns all failures combined
// with [multierr], one [*FilterError] per failed filter, so that one bad filter does not hide
// the others. When the conntrack binary cannot be found, Flush stops at the first filter,
// since every command would fail the same way. Flush returns nil when every command succeeded
// or deleted nothing.
func (f *Flusher) Flush(ctx context.Context, plan conntrackorder.Plan) error {
	run := f.run
	if run == nil {
		run = runConntrack
	}
	var errs error
	for i, flt := range plan {
		if err := ctx.Err(); err != nil {
			return multierr.Append(errs, fmt.Errorf("ctexec: %d of %d filters not run: %w", len(plan)-i, len(plan), err))
		}
		if err := flt.Validate(); err != nil {
			errs = multierr.Append(errs, &FilterError{Filter: flt, Err: err})
			continue
		}
		args := Args(flt)
		output, err := run(ctx, args)
		if err == nil || deletedNothing(err, output) {
			continue
		}
		if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			// The command was killed because ctx is done; say so, so that callers can
			// tell a deadline from a conntrack failure with errors.Is.
			err = fmt.Errorf("%w: %w", ctxErr, err)
		}
		errs = multierr.Append(errs, &FilterError{
			Filter: flt,
			Args:   args,
			Output: strings.TrimSpace(string(output)),
			Err:    err,
		})
		if errors.Is(err, exec.ErrNotFound) {
			return errs
		}
	}
	return errs
}

// deletedNothing reports whether conntrack failed only because no entry matched: exit status 1
// and, as the only line of its output, its message that 0 entries were deleted,
// "conntrack v1.4.7 (conntrack-tools): 0 flow entries have been deleted.". The count must be
// 0 exactly: "10 flow entries have been deleted." with status 1 is a failure after deleting.
// And the line must be alone: conntrack prints the same summary after an error of its own
// ("Operation failed: Permission denied"), and then nothing says the entries are gone.
// conntrack(8) prints the message on standard error; output holds standard output too, so a
// wrapper that moved it still counts.
func deletedNothing(err error, output []byte) bool {
	var exit interface{ ExitCode() int }
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		return false
	}
	summary := false
	for _, line := range strings.Split(string(output), "\n") {
		switch line = strings.TrimSpace(line); {
		case line == "":
		case !summary && isNothingDeleted(line):
			summary = true
		default:
			return false
		}
	}
	return summary
}

// isNothingDeleted reports whether line is conntrack's summary of a delete that matched
// nothing, with or without its "conntrack v<version> (conntrack-tools): " prefix.
func isNothingDeleted(line string) bool {
	const summary = "0 flow entries have been deleted."
	if line == summary {
		return true
	}
	prefix, ok := strings.CutSuffix(line, " "+summary)
	return ok && strings.HasPrefix(prefix, "conntrack v") && strings.HasSuffix(prefix, " (conntrack-tools):") &&
		!strings.ContainsAny(prefix[len("conntrack v"):len(prefix)-len(" (conntrack-tools):")], " \t")
}

// outputLimit bounds how much of standard output runConntrack keeps: conntrack prints a line
// per deleted entry there, which can be as long as the table, and only the start of it can
// hold a message worth reporting. Blank lines do not count against it (see limitedBuffer):
// they decide nothing, and the nothing-deleted summary after them must still be seen.
const outputLimit = 4 << 10

// waitDelay bounds how long Flush waits, once ctx is done or conntrack has exited, for the
// command's output pipes to close. Killing the process group closes them at once; this is for
// a descendant that left the group and still holds them.
const waitDelay = 500 * time.Millisecond

// runConntrack runs conntrack(8) and returns its standard error followed by the non-blank
// lines of its standard output, up to outputLimit bytes of them, and a line counting the rest
// of standard output when the rest is more than white space.
//
// The command runs in a process group of its own, and a done ctx kills the whole group: when
// conntrack is a wrapper script (a container's, a test's) whose child still holds the
// command's pipes, killing conntrack alone would leave Wait blocked until that child exits,
// and Flush would outlive ctx by the child's whole run.
func runConntrack(ctx context.Context, args []string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "conntrack", args...)
	ownProcessGroup(cmd)
	cmd.WaitDelay = waitDelay
	var stderr bytes.Buffer
	stdout := &limitedBuffer{max: outputLimit}
	cmd.Stderr = &stderr
	cmd.Stdout = stdout
	err := cmd.Run()
	if errors.Is(err, exec.ErrWaitDelay) && ctx.Err() == nil && cmd.ProcessState.Success() {
		// conntrack exited 0 and a descendant that left its process group holds the pipes:
		// the entries are deleted, only the rest of the output is lost.
		err = nil
	}
	out := append(stderr.Bytes(), stdout.buf.Bytes()...)
	if stdout.droppedText {
		// What was discarded is output too: a line there is not the nothing-deleted summary
		// alone, and says so in the error.
		out = fmt.Appendf(out, "\n(%d more bytes of standard output not kept)", stdout.dropped)
	}
	return out, err
}

// limitedBuffer keeps the non-blank lines written to it, up to max bytes of them, and counts
// the bytes it does not keep, noting whether any of them was more than white space. Blank
// lines are never kept, so that any number of them leaves room for the lines after them.
type limitedBuffer struct {
	buf         bytes.Buffer
	max         int
	dropped     int
	droppedText bool
	lineStart   int  // where the line being written starts in buf
	lineText    bool // the line being written is more than white space so far
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		line := p
		end := bytes.IndexByte(p, '\n')
		if end >= 0 {
			line = p[:end+1]
		}
		p = p[len(line):]
		b.lineText = b.lineText || !isBlank(line)
		kept := min(max(b.max-b.buf.Len(), 0), len(line))
		b.buf.Write(line[:kept])
		if rest := line[kept:]; len(rest) > 0 {
			b.dropped += len(rest)
			b.droppedText = b.droppedText || !isBlank(rest)
		}
		if end < 0 {
			break // the line goes on in the next Write
		}
		if !b.lineText {
			// A blank line, perhaps longer than max: what it took of the budget is free again.
			b.dropped += b.buf.Len() - b.lineStart
			b.buf.Truncate(b.lineStart)
		}
		b.lineStart, b.lineText = b.buf.Len(), false
	}
	return n, nil
}

// isBlank reports whether p is ASCII white space only. Unlike a Unicode space, that does not
// depend on where the command's writes split the line.
func isBlank(p []byte) bool {
	return len(bytes.Trim(p, " \t\n\v\f\r")) == 0
}

// A FilterError reports one filter of a plan that was not applied: either conntrack failed, or
// the filter was refused and not run. [Flusher.Flush] combines them with multierr; find them
// with errors.As, or with [multierr.Errors].
type FilterError struct {
	Filter conntrackorder.Filter
	Args   []string // the arguments conntrack ran with; nil when the filter was refused
	Output string   // what conntrack wrote and Flush kept (see "Exit status" in the package doc), trimmed
	Err    error    // the command's error, or why the filter was refused
}

// Error returns, for a failed command, "ctexec: conntrack <args>: <error>: <output>", and for
// a refused filter "ctexec: not run: <reason>".
func (e *FilterError) Error() string {
	if e.Args == nil {
		return "ctexec: not run: " + e.Err.Error()
	}
	msg := "ctexec: conntrack " + strings.Join(e.Args, " ") + ": " + e.Err.Error()
	if e.Output != "" {
		msg += ": " + e.Output
	}
	return msg
}

// Unwrap returns the command's error or the reason for refusing the filter.
func (e *FilterError) Unwrap() error {
	return e.Err
}
