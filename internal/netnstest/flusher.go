//go:build linux

package netnstest

import (
	"context"

	"github.com/safereconcile/safereconcile/conntrackorder"
)

// Flusher returns a [conntrackorder.Flusher] that runs f's Flush on a thread inside ns.
// conntrack(8) works on the network namespace of the thread that starts it, so this is how a
// ctexec Flusher reaches ns's table; a ctnetlink Flusher is instead opened inside ns with
// [Namespace.Do] and stays bound to it.
func (ns *Namespace) Flusher(f conntrackorder.Flusher) conntrackorder.Flusher {
	return nsFlusher{ns: ns, f: f}
}

type nsFlusher struct {
	ns *Namespace
	f  conntrackorder.Flusher
}

func (n nsFlusher) Flush(ctx context.Context, plan conntrackorder.Plan) error {
	return n.ns.Do(func() error { return n.f.Flush(ctx, plan) })
}
