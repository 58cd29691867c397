package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"time"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/examples/nodeport/packetpath"
)

// A Shape is one version of the proxy, driven the same way by [Play].
type Shape struct {
	Name    string // short, e.g. "v1.20.4"
	Summary string // what it does about conntrack, in a few words
	New     func(Config) Proxy
}

// The two shapes of the scenario.
var (
	OldShape = Shape{
		Name:    "v1.20.4",
		Summary: "flush the NodePort when it opens it, before programming",
		New:     func(c Config) Proxy { return NewV1204(c) },
	}
	FixedShape = Shape{
		Name:    "conntrackorder",
		Summary: "program, then flush what the endpoint's arrival made stale",
		New:     func(c Config) Proxy { return NewFixed(c) },
	}
)

// Options shape the timeline of [Play].
type Options struct {
	// Addrs are the addresses, those the Datapath was built with; the zero value means
	// DefaultAddrs.
	Addrs Addrs
	// Before is the number of rounds the clients send before the endpoint arrives, at least
	// 2: the first round comes before the proxy's first sync, the others after it.
	Before int
	// After is the number of rounds after the endpoint arrived and the proxy synced.
	After int
	// Interval is the time between two rounds: each client sends once per interval.
	Interval time.Duration
	// Pause, when not zero, is a silence of both clients after the last round, followed by
	// one more round: longer than the unreplied UDP timeout, it lets a stale entry expire.
	Pause time.Duration
}

// A Tally counts the datagrams one client sent and how many were answered.
type Tally struct{ Sent, Answered int }

// String returns "answered of sent", e.g. "0 of 60".
func (t Tally) String() string { return fmt.Sprintf("%d of %d", t.Answered, t.Sent) }

func (t *Tally) add(answered bool) {
	t.Sent++
	if answered {
		t.Answered++
	}
}

// Result is what happened to the datagrams sent after the endpoint arrived.
type Result struct {
	NodePort, ClusterIP Tally // the After rounds
	// NodePortAfterPause and ClusterIPAfterPause report whether the round after the pause
	// was answered; false when there was no pause.
	NodePortAfterPause, ClusterIPAfterPause bool
}

// Intro writes what the timelines of [Play] show and how to read them, once for both shapes:
// the scenario, the clients, the pod, and the marks.
func Intro(w io.Writer, a Addrs) error {
	npSrc, npDst := a.NodePortFlow()
	ciSrc, ciDst := a.ClusterIPFlow()
	_, err := fmt.Fprintf(w, `kubernetes#98305: a UDP NodePort Service is created without endpoints while two
clients send to it, each from a fixed source port; then its pod becomes ready. Both
proxy shapes see the same events and the same datagrams and only flush differently,
so their two timelines can be diffed line by line.

  client %s > NodePort  %s
  client %s > ClusterIP %s
  pod    %s answers every datagram it receives

A conntrack entry reads: protocol, seconds left, the flow as the client sent it, flags,
and where the node sends the flow ("not NATed": to the address the client sent to).
"%s" marks where the old shape goes wrong: a flush before any rule for it exists, and
the entry left stale, not NATed although a rule for its destination exists: its client
keeps sending, so the entry never expires and the flow never meets the rule.
`, npSrc, npDst, ciSrc, ciDst, netip.AddrPortFrom(a.Pod, PodPort), mark)
	return err
}

// Play runs the scenario once on dp with a proxy of the given shape, writes its timeline to w,
// and returns what happened. The timeline has four acts:
//
//   - Before the endpoint, from t=0: the Service is created without endpoints; the clients
//     send a round before the proxy's first sync, half an interval later, and Before-1 rounds
//     after it, one every interval.
//   - The endpoint: half an interval later the pod becomes a ready endpoint and the proxy
//     syncs.
//   - After the endpoint: the clients send After more rounds; these make the Result.
//   - With a Pause: the clients fall silent for Pause, then send once more.
//
// Every rule the proxy programs and every plan it flushes is printed when it happens, and
// conntrack's table at the end of each act and after the first sync. Play returns an error
// when dp or the proxy fails or writing to w does, and the Result of the rounds played so far.
func Play(ctx context.Context, w io.Writer, dp Datapath, shape Shape, opts Options) (Result, error) {
	if opts.Before < 2 || opts.After < 1 || opts.Interval <= 0 {
		return Result{}, errors.New("proxy: Play needs Before >= 2, After >= 1 and a positive Interval")
	}
	if opts.Addrs == (Addrs{}) {
		opts.Addrs = DefaultAddrs()
	}
	p := &play{dp: dp, shape: shape, opts: opts, tl: &timeline{w: w, now: dp.Now}}
	p.proxy = shape.New(Config{NodeIP: opts.Addrs.Node, Program: p.program, Flusher: p})
	err := p.run(ctx)
	return p.res, errors.Join(err, p.tl.err)
}

// A play is one run of [Play]: the proxy under test, the node it runs on, the timeline it
// writes, and the Result so far.
type play struct {
	dp    Datapath
	proxy Proxy
	shape Shape
	opts  Options
	tl    *timeline
	res   Result
}

var _ conntrackorder.Flusher = (*play)(nil)

func (p *play) run(ctx context.Context) error {
	p.tl.printf("--- %s: %s\n", p.shape.Name, p.shape.Summary)
	for _, act := range []func(context.Context) error{p.beforeEndpoints, p.endpointArrives, p.afterEndpoint, p.pause} {
		if err := act(ctx); err != nil {
			return err
		}
	}
	p.tl.printf("\nafter the endpoint: NodePort answered %s, ClusterIP %s\n", p.res.NodePort, p.res.ClusterIP)
	if p.opts.Pause > 0 {
		p.tl.printf("after the pause:    NodePort %s, ClusterIP %s\n",
			answer(p.res.NodePortAfterPause), answer(p.res.ClusterIPAfterPause))
	}
	return nil
}

// beforeEndpoints is the window kubernetes#98305 is about: the Service exists and its clients
// send, but no rule can catch their datagrams, because there is no endpoint to send them to.
// Each first datagram creates an entry that is not NATed. The old shape flushes the NodePort
// here, at its first sync.
func (p *play) beforeEndpoints(ctx context.Context) error {
	p.tl.event("Service default/echo: udp %d, NodePort %d, no endpoints", ServicePort, NodePort)
	if err := p.proxy.SetService(p.opts.Addrs.Service()); err != nil {
		return err
	}
	if _, _, err := p.rounds(ctx, 1, 0); err != nil {
		return err
	}
	if err := p.dp.Wait(ctx, p.opts.Interval/2); err != nil {
		return err
	}
	if err := p.sync(ctx); err != nil {
		return err
	}
	if err := p.tl.conntrack(ctx, p.dp); err != nil {
		return err
	}
	if _, _, err := p.rounds(ctx, p.opts.Before-1, p.opts.Interval/2); err != nil {
		return err
	}
	return p.tl.conntrack(ctx, p.dp)
}

// endpointArrives makes the pod a ready endpoint and syncs: both shapes program the rules for
// it here; what each flushes, and when, is the difference between them.
func (p *play) endpointArrives(ctx context.Context) error {
	if err := p.dp.Wait(ctx, p.opts.Interval/2); err != nil {
		return err
	}
	p.tl.event("EndpointSlice default/echo-7x2kq: %s ready", netip.AddrPortFrom(p.opts.Addrs.Pod, PodPort))
	if err := p.proxy.SetEndpointSlice(p.opts.Addrs.EndpointSlice(true)); err != nil {
		return err
	}
	if err := p.sync(ctx); err != nil {
		return err
	}
	return p.tl.conntrack(ctx, p.dp)
}

// afterEndpoint plays the rounds the Result counts: a client whose flow still follows an entry
// that is not NATed gets no answer, however long it keeps sending.
func (p *play) afterEndpoint(ctx context.Context) error {
	var err error
	p.res.NodePort, p.res.ClusterIP, err = p.rounds(ctx, p.opts.After, p.opts.Interval/2)
	if err != nil {
		return err
	}
	return p.tl.conntrack(ctx, p.dp)
}

// pause, with a Pause longer than the unreplied timeout, lets a stale entry expire: the next
// datagram starts a new flow, which meets the rule. That is why kubernetes#98305 looked
// intermittent (the flake of kubernetes#91236).
func (p *play) pause(ctx context.Context) error {
	if p.opts.Pause <= 0 {
		return nil
	}
	p.tl.event("the clients are silent for %s", seconds(p.opts.Pause))
	np, ci, err := p.rounds(ctx, 1, p.opts.Pause)
	p.res.NodePortAfterPause, p.res.ClusterIPAfterPause = np.Answered == 1, ci.Answered == 1
	if err != nil {
		return err
	}
	return p.tl.conntrack(ctx, p.dp)
}

// rounds plays n rounds, the first after wait and the others an interval apart: in each, the
// NodePort client sends one datagram, then the ClusterIP client. It returns what each client
// sent and got answered, also for the rounds played before an error.
func (p *play) rounds(ctx context.Context, n int, wait time.Duration) (np, ci Tally, err error) {
	npSrc, npDst := p.opts.Addrs.NodePortFlow()
	ciSrc, ciDst := p.opts.Addrs.ClusterIPFlow()
	for range n {
		if err := p.dp.Wait(ctx, wait); err != nil {
			return np, ci, err
		}
		wait = p.opts.Interval
		at := p.dp.Now()
		npOK, err := p.dp.Send(ctx, npSrc, npDst)
		if err != nil {
			return np, ci, err
		}
		np.add(npOK)
		ciOK, err := p.dp.Send(ctx, ciSrc, ciDst)
		if err != nil {
			return np, ci, err
		}
		ci.add(ciOK)
		p.tl.round(at, fmt.Sprintf("NodePort: %-10s  ClusterIP: %s", answer(npOK), answer(ciOK)))
	}
	return np, ci, nil
}

func (p *play) sync(ctx context.Context) error {
	p.tl.event("proxy sync")
	if err := p.proxy.Sync(ctx); err != nil {
		return fmt.Errorf("proxy: %s sync: %w", p.shape.Name, err)
	}
	return nil
}

// program is the proxy's [Config.Program]: it prints the rules, installs them in the
// Datapath, and tells the timeline which rules exist, for its marks.
func (p *play) program(ctx context.Context, rules []packetpath.Rule) error {
	p.tl.detail("program %d rules", len(rules))
	for _, r := range rules {
		p.tl.detail("  %s", r)
	}
	if err := p.dp.Program(ctx, rules); err != nil {
		p.tl.detail("  failed: %v", err)
		return err
	}
	p.tl.rules = rules
	return nil
}

// Flush is the proxy's [Config.Flusher]: it prints the plan, marked when it comes before the
// rules it is meant to follow, and hands it to the Datapath's Flusher.
func (p *play) Flush(ctx context.Context, plan conntrackorder.Plan) error {
	p.tl.detail("flush %s%s", planString(plan), p.tl.tooEarly(plan))
	if err := p.dp.Flusher().Flush(ctx, plan); err != nil {
		p.tl.detail("  failed: %v", err)
		return err
	}
	return nil
}

func answer(ok bool) string {
	if ok {
		return "answered"
	}
	return "no answer"
}
