//go:build linux

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/safereconcile/safereconcile/examples/nodeport/kernelpath"
	"github.com/safereconcile/safereconcile/examples/nodeport/proxy"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("realkernel", flag.ContinueOnError)
	fs.SetOutput(stderr)
	backend := fs.String("backend", "auto", "conntrack backend: netlink (conntrackorder/ctnetlink), exec (conntrackorder/ctexec), or auto (netlink if it opens, else exec)")
	after := fs.Int("after", 5, "datagrams each client sends after the endpoint arrives")
	udpTimeout := fs.Duration("udp-timeout", 3*time.Second, "the node namespace's nf_conntrack_udp_timeout, whole seconds; 0 keeps the kernel's 30s and skips the pause")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	labOpts := kernelpath.Options{UDPTimeout: *udpTimeout}
	switch *backend {
	case "auto":
		labOpts.Backend = kernelpath.Auto
	case "netlink", "exec":
		labOpts.Backend = kernelpath.Backend(*backend)
	default:
		fmt.Fprintf(stderr, "realkernel: -backend %q: want auto, netlink or exec\n", *backend)
		return 2
	}
	if *after < 1 || *udpTimeout < 0 || *udpTimeout%time.Second != 0 {
		fmt.Fprintln(stderr, "realkernel: -after must be at least 1 and -udp-timeout a whole number of seconds, or 0")
		return 2
	}
	if err := kernelpath.Check(); err != nil {
		fmt.Fprintf(stderr, "realkernel: cannot run here: it needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN) and\n"+
			"ip, iptables, ip6tables, iptables-restore and conntrack in PATH, to build network namespaces.\n"+
			"What is missing: %v\n", err)
		return 2
	}

	// A signal cancels the run; the labs are closed on the way out. Signals stay caught until
	// the end, so that a second Ctrl-C cannot cut the cleanup short.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	playOpts := kernelpath.PlayOptions(*after, *udpTimeout)
	if err := proxy.Intro(stdout, proxy.DefaultAddrs()); err != nil {
		fmt.Fprintf(stderr, "realkernel: %v\n", err)
		return 1
	}
	var results []proxy.Result
	for _, shape := range []proxy.Shape{proxy.OldShape, proxy.FixedShape} {
		fmt.Fprintln(stdout)
		res, err := playOnce(ctx, stdout, shape, labOpts, playOpts)
		var cleanup *cleanupError
		switch {
		case errors.As(err, &cleanup):
			fmt.Fprintf(stderr, "realkernel: %s: %v\n", shape.Name, err)
			return 1
		case err != nil && ctx.Err() != nil:
			fmt.Fprintf(stderr, "realkernel: interrupted (%v); the namespaces it made are deleted\n", err)
			return 130
		case err != nil:
			fmt.Fprintf(stderr, "realkernel: %s: %v; the namespaces it made are deleted\n", shape.Name, err)
			return 1
		}
		results = append(results, res)
	}
	row := proxy.Row(results[0], results[1])
	fmt.Fprintf(stdout, "\n%s\nold shape:   %s\nfixed shape: %s\nreproduced:  %t\n", row.Bug, row.Old, row.Fixed, row.Reproduced)
	if !row.Reproduced {
		return 1
	}
	return 0
}

// playOnce plays one shape on a lab of its own and deletes the lab, whatever happened.
func playOnce(ctx context.Context, w io.Writer, shape proxy.Shape, labOpts kernelpath.Options, playOpts proxy.Options) (res proxy.Result, err error) {
	lab, err := kernelpath.New(ctx, labOpts)
	if err != nil {
		return proxy.Result{}, err
	}
	names := lab.Namespaces()
	defer func() {
		if cerr := lab.Close(); cerr != nil {
			err = errors.Join(err, &cleanupError{names: names, err: cerr})
		}
	}()
	timeout := "30s (the kernel's)"
	if labOpts.UDPTimeout > 0 {
		timeout = labOpts.UDPTimeout.String() + " (lowered in the node namespace only)"
	}
	fmt.Fprintf(w, "namespaces %s\nbackend %s; unreplied UDP timeout %s\n",
		strings.Join(lab.Namespaces(), ", "), lab.Backend(), timeout)
	return proxy.Play(ctx, w, lab, shape, playOpts)
}

// A cleanupError is a failure to delete what a lab made; it names what may be left.
type cleanupError struct {
	names []string
	err   error
}

func (e *cleanupError) Error() string {
	return fmt.Sprintf("cleanup: %v; remove what is left with: ip netns delete <name>, for each of %s",
		e.err, strings.Join(e.names, " "))
}

func (e *cleanupError) Unwrap() error { return e.err }
