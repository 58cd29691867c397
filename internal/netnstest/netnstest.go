//go:build linux

package netnstest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// commandTimeout bounds every command the harness runs, so that a wedged ip or iptables fails
// the test instead of hanging it until the test binary's own timeout.
const commandTimeout = 30 * time.Second

// Capability bits, from linux/capability.h.
const (
	capNetAdmin = 12
	capSysAdmin = 21
)

// ErrUnsupported is wrapped by the error [Check] returns when this process cannot build
// namespaces here, and by [Create] when the kernel refuses to create one.
var ErrUnsupported = errors.New("netnstest: network namespaces unavailable")

// Check returns nil if this process can create network namespaces and configure them, and
// otherwise an error wrapping [ErrUnsupported] whose message says what is missing: it needs
// CAP_NET_ADMIN and CAP_SYS_ADMIN (root has both) and the commands ip, iptables, ip6tables and
// conntrack in PATH. It is for programs; tests call [Require].
func Check() error {
	if _, err := os.Stat("/proc/self/ns/net"); err != nil {
		return fmt.Errorf("%w: this kernel has no network namespaces (/proc/self/ns/net is missing)", ErrUnsupported)
	}
	capEff, err := effectiveCaps()
	if err != nil {
		return fmt.Errorf("%w: cannot read this process's capabilities: %v", ErrUnsupported, err)
	}
	for _, c := range []struct {
		bit  uint
		name string
	}{{capNetAdmin, "CAP_NET_ADMIN"}, {capSysAdmin, "CAP_SYS_ADMIN"}} {
		if capEff&(1<<c.bit) == 0 {
			return fmt.Errorf("%w: creating network namespaces needs %s; run as root (as CI does)", ErrUnsupported, c.name)
		}
	}
	for _, cmd := range []string{"ip", "iptables", "ip6tables", "conntrack"} {
		if _, err := exec.LookPath(cmd); err != nil {
			return fmt.Errorf("%w: %s is not installed or not in PATH (apt-get install iproute2 iptables conntrack)", ErrUnsupported, cmd)
		}
	}
	return nil
}

// Require skips tb, with a sentence that says what is missing, when [Check] fails.
func Require(tb testing.TB) {
	tb.Helper()
	if err := Check(); err != nil {
		tb.Skipf("skipping: %v", err)
	}
}

// effectiveCaps returns the process's effective capability set from /proc/self/status.
func effectiveCaps() (uint64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "CapEff:"); ok {
			return strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		}
	}
	return 0, errors.New("no CapEff line in /proc/self/status")
}

// A Namespace is a named network namespace made by [Create] or [New]. Its methods are safe
// for concurrent use.
type Namespace struct {
	name string
}

// seq makes namespace names unique within the process; the pid and a random part make them
// unique across parallel test binaries and leftovers of a killed run.
var seq atomic.Uint64

// Create creates a network namespace with its loopback up. role is a short lowercase word
// that ends the name ("node"), so that `ip netns list` says what each one is. The caller must
// [Namespace.Delete] it. When the kernel refuses for lack of privilege, the error wraps
// [ErrUnsupported].
//
// The first Create of a process deletes the namespaces that processes no longer running left
// behind, such as a test binary killed before its cleanups ran: their conntrack entries stay
// in the kernel's hash, which the kernel walks whole for every dump of every namespace, and a
// leftover 1M-entry table made later benchmarks several times slower.
func Create(ctx context.Context, role string) (*Namespace, error) {
	sweepOnce.Do(func() { sweep(ctx) })
	var r [3]byte
	if _, err := rand.Read(r[:]); err != nil {
		return nil, fmt.Errorf("netnstest: random name: %w", err)
	}
	name := fmt.Sprintf("srt-%d-%d-%s-%s", os.Getpid(), seq.Add(1), hex.EncodeToString(r[:]), role)
	if out, err := exec.CommandContext(ctx, "ip", "netns", "add", name).CombinedOutput(); err != nil {
		if bytes.Contains(out, []byte("Operation not permitted")) || bytes.Contains(out, []byte("Permission denied")) {
			return nil, fmt.Errorf("%w: the kernel refused to create one: %s", ErrUnsupported, bytes.TrimSpace(out))
		}
		return nil, fmt.Errorf("netnstest: ip netns add %s: %w: %s", name, err, bytes.TrimSpace(out))
	}
	ns := &Namespace{name: name}
	if _, err := ns.Run(ctx, "ip", "link", "set", "lo", "up"); err != nil {
		return nil, errors.Join(err, ns.Delete(context.WithoutCancel(ctx)))
	}
	return ns, nil
}

var sweepOnce sync.Once

// sweep deletes the namespaces named by Create for a process that no longer runs. A name
// whose process runs, or that Create did not make, is left alone; so is anything it cannot
// read or delete (best effort: a leftover costs time, never correctness).
func sweep(ctx context.Context) {
	entries, err := os.ReadDir("/run/netns")
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, ok := creatorPID(e.Name())
		if !ok || pid == os.Getpid() || unix.Kill(pid, 0) != unix.ESRCH {
			continue
		}
		_ = (&Namespace{name: e.Name()}).Delete(ctx)
	}
}

// creatorPID returns the pid in a name Create made: srt-<pid>-<seq>-<random>-<role>.
func creatorPID(name string) (int, bool) {
	parts := strings.SplitN(name, "-", 5)
	if len(parts) != 5 || parts[0] != "srt" {
		return 0, false
	}
	pid, err := strconv.Atoi(parts[1])
	return pid, err == nil && pid > 0
}

// New is [Create] for a test: it registers the namespace's deletion with tb.Cleanup, skips tb
// when the kernel refuses to create a namespace, and fails it on any other error. The cleanup
// is registered before anything else made in the namespace, so that it runs last.
func New(tb testing.TB, role string) *Namespace {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	ns, err := Create(ctx, role)
	if errors.Is(err, ErrUnsupported) {
		tb.Skipf("skipping: %v", err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
		defer cancel()
		if err := ns.Delete(ctx); err != nil {
			tb.Error(err)
		}
	})
	return ns
}

// Delete deletes the namespace, and with it its interfaces, iptables rules and conntrack
// entries. Close sockets and handles made in it first: they would keep the namespace alive,
// nameless, until they are closed.
func (ns *Namespace) Delete(ctx context.Context) error {
	if out, err := exec.CommandContext(ctx, "ip", "netns", "delete", ns.name).CombinedOutput(); err != nil {
		return fmt.Errorf("netnstest: ip netns delete %s: %w: %s", ns.name, err, bytes.TrimSpace(out))
	}
	return nil
}

// Name returns the namespace's name as `ip netns` knows it.
func (ns *Namespace) Name() string { return ns.name }

// Do runs fn on an OS thread that is in the namespace, and returns fn's error. Sockets and
// child processes that fn creates belong to the namespace; goroutines it starts run on other
// threads, in the test's own namespace. fn runs on another goroutine, so it must not call
// tb.FailNow or tb.Fatal; a panic in fn is re-raised in the caller.
//
// The thread goes back to its original namespace before it serves other goroutines; if that
// fails, the thread is discarded instead.
func (ns *Namespace) Do(fn func() error) error {
	target, err := unix.Open("/run/netns/"+ns.name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("netnstest: open namespace %s: %w", ns.name, err)
	}
	defer unix.Close(target)

	type result struct {
		err      error
		panicked bool
		value    any
	}
	done := make(chan result, 1)
	go func() {
		var r result
		finished := false
		defer func() {
			// Exactly one result, however the goroutine ends: a panic in fn is handed to
			// the caller, and runtime.Goexit (tb.FailNow inside fn) becomes an error.
			if !finished {
				if v := recover(); v != nil {
					r = result{panicked: true, value: v}
				} else {
					r = result{err: fmt.Errorf("netnstest: function run in %s exited its goroutine (tb.FailNow inside Do?)", ns.name)}
				}
			}
			done <- r
		}()
		// Locked until the thread is back home: a goroutine that exits while locked takes
		// its thread with it, so a thread stuck in the namespace never runs other code.
		runtime.LockOSThread()
		r.err = func() error {
			orig, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
			if err != nil {
				return fmt.Errorf("netnstest: open current namespace: %w", err)
			}
			defer unix.Close(orig)
			if err := unix.Setns(target, unix.CLONE_NEWNET); err != nil {
				return fmt.Errorf("netnstest: enter namespace %s: %w", ns.name, err)
			}
			ferr := fn()
			if err := unix.Setns(orig, unix.CLONE_NEWNET); err != nil {
				return errors.Join(ferr, fmt.Errorf("netnstest: leave namespace %s: %w", ns.name, err))
			}
			runtime.UnlockOSThread()
			return ferr
		}()
		finished = true
	}()
	r := <-done
	if r.panicked {
		panic(r.value)
	}
	return r.err
}

// Run runs a command inside the namespace (`ip netns exec`) and returns its combined output.
// The error includes the command line and its output.
func (ns *Namespace) Run(ctx context.Context, cmd string, args ...string) (string, error) {
	argv := append([]string{"netns", "exec", ns.name, cmd}, args...)
	out, err := exec.CommandContext(ctx, "ip", argv...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("netnstest: %s %s in %s: %w: %s",
			cmd, strings.Join(args, " "), ns.name, err, bytes.TrimSpace(out))
	}
	return string(out), nil
}

// output runs a command inside the namespace, as Run does, and returns its standard output
// alone: conntrack(8) writes its summary line to standard error.
func (ns *Namespace) output(ctx context.Context, cmd string, args ...string) (string, error) {
	argv := append([]string{"netns", "exec", ns.name, cmd}, args...)
	var stderr bytes.Buffer
	c := exec.CommandContext(ctx, "ip", argv...)
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		return string(out), fmt.Errorf("netnstest: %s %s in %s: %w: %s",
			cmd, strings.Join(args, " "), ns.name, err, bytes.TrimSpace(stderr.Bytes()))
	}
	return string(out), nil
}

// Exec is [Namespace.Run] with a bounded context for setup steps: it fails tb on error.
func (ns *Namespace) Exec(tb testing.TB, cmd string, args ...string) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	out, err := ns.Run(ctx, cmd, args...)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// WriteSysctl sets a sysctl of the namespace, such as "net/ipv4/ip_forward", to value. It
// writes /proc/sys from a thread inside the namespace, so that it needs no sysctl(8).
func (ns *Namespace) WriteSysctl(path, value string) error {
	return ns.Do(func() error {
		// /proc/sys/net resolves to the network namespace of the thread that opens it.
		if err := os.WriteFile("/proc/sys/"+path, []byte(value), 0o644); err != nil {
			return fmt.Errorf("netnstest: sysctl %s in %s: %w", path, ns.name, err)
		}
		return nil
	})
}
