package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/examples/nodeport/packetpath"
)

// A Datapath is the node a scenario runs on: the model of package packetpath ([Model]), or a
// real kernel. A Datapath is used by one goroutine at a time.
type Datapath interface {
	// Program replaces the node's DNAT rules with rules, at once.
	Program(ctx context.Context, rules []packetpath.Rule) error
	// Flusher returns the backend that deletes conntrack entries in the node.
	Flusher() conntrackorder.Flusher
	// Send sends one UDP datagram from src to dst through the node and reports whether its
	// answer came back. Each src is a socket of its own, bound to that address and port.
	Send(ctx context.Context, src, dst netip.AddrPort) (answered bool, err error)
	// Conntrack returns the node's conntrack table as `conntrack -L` lists it, a line per
	// entry, sorted.
	Conntrack(ctx context.Context) ([]string, error)
	// Wait lets d pass on the node's clock.
	Wait(ctx context.Context, d time.Duration) error
	// Now returns the time since the Datapath was made, on its clock.
	Now() time.Duration
}

// The ports of the scenario.
const (
	ServicePort = 80    // the Service's port on its ClusterIP
	NodePort    = 30080 // the Service's NodePort
	PodPort     = 8080  // where the pod listens
	// NodePortClientPort and ClusterIPClientPort are the fixed source ports of the two
	// clients: a client that keeps its socket keeps its flow.
	NodePortClientPort  = 40000
	ClusterIPClientPort = 40001
)

// Addrs are the addresses of the scenario.
type Addrs struct {
	Client    netip.Addr // the host of both clients
	Node      netip.Addr // the node's address, where NodePorts are reached
	Pod       netip.Addr // the pod behind the Service
	ClusterIP netip.Addr // the Service's ClusterIP
}

// DefaultAddrs returns the addresses every run uses, all in 198.18.0.0/15, the range RFC 2544
// reserves for benchmarking, so that a real-kernel run never collides with a real network:
// client 198.18.1.2, node 198.18.1.1, pod 198.18.2.2 (the node is 198.18.2.1 on the pod's
// link), ClusterIP 198.18.3.10.
func DefaultAddrs() Addrs {
	return Addrs{
		Client:    netip.MustParseAddr("198.18.1.2"),
		Node:      netip.MustParseAddr("198.18.1.1"),
		Pod:       netip.MustParseAddr("198.18.2.2"),
		ClusterIP: netip.MustParseAddr("198.18.3.10"),
	}
}

// NodePortFlow returns the source and destination of the client that uses the NodePort.
func (a Addrs) NodePortFlow() (src, dst netip.AddrPort) {
	return netip.AddrPortFrom(a.Client, NodePortClientPort), netip.AddrPortFrom(a.Node, NodePort)
}

// ClusterIPFlow returns the source and destination of the client that uses the ClusterIP.
func (a Addrs) ClusterIPFlow() (src, dst netip.AddrPort) {
	return netip.AddrPortFrom(a.Client, ClusterIPClientPort), netip.AddrPortFrom(a.ClusterIP, ServicePort)
}

// Service returns the scenario's Service: default/echo, type NodePort, one UDP port.
func (a Addrs) Service() *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "echo"},
		Spec: corev1.ServiceSpec{
			Type:       corev1.ServiceTypeNodePort,
			ClusterIP:  a.ClusterIP.String(),
			ClusterIPs: []string{a.ClusterIP.String()},
			Ports: []corev1.ServicePort{{
				Name: "udp", Protocol: corev1.ProtocolUDP, Port: ServicePort, NodePort: NodePort,
			}},
		},
	}
}

// EndpointSlice returns the Service's EndpointSlice with the pod, ready or not.
func (a Addrs) EndpointSlice(ready bool) *discoveryv1.EndpointSlice {
	name, proto, port := "udp", corev1.ProtocolUDP, int32(PodPort)
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "default", Name: "echo-7x2kq",
			Labels: map[string]string{discoveryv1.LabelServiceName: "echo"},
		},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{{
			Addresses:  []string{a.Pod.String()},
			Conditions: discoveryv1.EndpointConditions{Ready: &ready},
		}},
		Ports: []discoveryv1.EndpointPort{{Name: &name, Protocol: &proto, Port: &port}},
	}
}

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
		Summary: "clear the NodePort when it is opened, before programming",
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

// Play runs the scenario once on dp with a proxy of the given shape, writes its timeline to w,
// and returns what happened. The timeline:
//
//   - t=0: the Service is created without endpoints and reported to the proxy; the two clients
//     send their first datagrams, before the proxy has synced.
//   - Half an interval later the proxy syncs; then the clients send a round every interval.
//   - Half an interval after round Before-1, the pod becomes a ready endpoint; the proxy syncs.
//   - The clients send After more rounds, then, with a Pause, fall silent and send once more.
//
// Every rule the proxy programs and every plan it flushes is printed when it happens, and
// conntrack's table at the steps that matter. Play returns an error when dp or the proxy fails
// or writing to w does, and the Result of the rounds played so far.
func Play(ctx context.Context, w io.Writer, dp Datapath, shape Shape, opts Options) (Result, error) {
	if opts.Before < 2 || opts.After < 1 || opts.Interval <= 0 {
		return Result{}, errors.New("proxy: Play needs Before >= 2, After >= 1 and a positive Interval")
	}
	a := opts.Addrs
	if a == (Addrs{}) {
		a = DefaultAddrs()
	}
	tl := &timeline{w: w, dp: dp}
	npSrc, npDst := a.NodePortFlow()
	ciSrc, ciDst := a.ClusterIPFlow()

	p := shape.New(Config{
		NodeIP: a.Node,
		Program: func(ctx context.Context, rules []packetpath.Rule) error {
			tl.detail("program %d rules", len(rules))
			for _, r := range rules {
				tl.detail("  %s", r)
			}
			return dp.Program(ctx, rules)
		},
		Flusher: loggingFlusher{tl: tl, f: dp.Flusher()},
	})
	round := func() (np, ci bool, err error) {
		at := dp.Now()
		if np, err = dp.Send(ctx, npSrc, npDst); err != nil {
			return
		}
		if ci, err = dp.Send(ctx, ciSrc, ciDst); err != nil {
			return
		}
		tl.round(at, fmt.Sprintf("NodePort: %-10s  ClusterIP: %s", answer(np), answer(ci)))
		return
	}
	sync := func() error {
		tl.event("proxy sync")
		if err := p.Sync(ctx); err != nil {
			return fmt.Errorf("proxy: %s sync: %w", shape.Name, err)
		}
		return nil
	}
	// rounds plays n rounds, the first after wait and the others an interval apart, and hands
	// each outcome to each, if not nil.
	rounds := func(n int, wait time.Duration, each func(i int, np, ci bool) error) error {
		for i := range n {
			if err := dp.Wait(ctx, wait); err != nil {
				return err
			}
			wait = opts.Interval
			np, ci, err := round()
			if err == nil && each != nil {
				err = each(i, np, ci)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	half := opts.Interval / 2

	var res Result
	err := func() error {
		tl.printf("--- %s: %s\n", shape.Name, shape.Summary)
		tl.printf("client %s > NodePort  %s\n", npSrc, npDst)
		tl.printf("client %s > ClusterIP %s\n", ciSrc, ciDst)
		tl.printf("pod    %s answers every datagram it receives\n\n", netip.AddrPortFrom(a.Pod, PodPort))

		// The Service exists and the clients send before the proxy's first sync: the window
		// in which a datagram meets no rule.
		tl.event("Service default/echo created: udp %d, ClusterIP %s, NodePort %d, no endpoints",
			ServicePort, a.ClusterIP, NodePort)
		if err := p.SetService(a.Service()); err != nil {
			return err
		}
		if err := rounds(1, 0, nil); err != nil {
			return err
		}
		if err := dp.Wait(ctx, half); err != nil {
			return err
		}
		if err := sync(); err != nil {
			return err
		}
		if err := tl.conntrack(ctx); err != nil {
			return err
		}
		if err := rounds(opts.Before-1, half, nil); err != nil {
			return err
		}
		if err := tl.conntrack(ctx); err != nil {
			return err
		}

		if err := dp.Wait(ctx, half); err != nil {
			return err
		}
		tl.event("EndpointSlice default/echo-7x2kq: %s ready", netip.AddrPortFrom(a.Pod, PodPort))
		if err := p.SetEndpointSlice(a.EndpointSlice(true)); err != nil {
			return err
		}
		if err := sync(); err != nil {
			return err
		}
		if err := tl.conntrack(ctx); err != nil {
			return err
		}
		err := rounds(opts.After, half, func(i int, np, ci bool) error {
			res.NodePort.add(np)
			res.ClusterIP.add(ci)
			if i == 0 || i == opts.After-1 {
				return tl.conntrack(ctx)
			}
			return nil
		})
		if err != nil {
			return err
		}

		if opts.Pause > 0 {
			tl.event("the clients are silent for %s", seconds(opts.Pause))
			err := rounds(1, opts.Pause, func(_ int, np, ci bool) error {
				res.NodePortAfterPause, res.ClusterIPAfterPause = np, ci
				return tl.conntrack(ctx)
			})
			if err != nil {
				return err
			}
		}
		tl.printf("\nafter the endpoint: NodePort answered %s, ClusterIP %s", res.NodePort, res.ClusterIP)
		if opts.Pause > 0 {
			tl.printf("; after the pause: NodePort %s, ClusterIP %s",
				answer(res.NodePortAfterPause), answer(res.ClusterIPAfterPause))
		}
		tl.printf("\n")
		return nil
	}()
	return res, errors.Join(err, tl.err)
}

func answer(ok bool) string {
	if ok {
		return "answered"
	}
	return "no answer"
}

// seconds formats d as seconds with up to millisecond precision: "0.5s", "2.486s", "65s".
func seconds(d time.Duration) string {
	ms := d.Round(time.Millisecond).Milliseconds()
	s := strconv.FormatInt(ms/1000, 10)
	if frac := ms % 1000; frac != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%03d", frac), "0")
	}
	return s + "s"
}

// A timeline writes the scenario's lines, each stamped with the Datapath's clock, and folds
// identical consecutive rounds into one line.
type timeline struct {
	w   io.Writer
	dp  Datapath
	err error // the first write error

	last    string        // the last round printed
	repeats int           // rounds like last not printed yet
	lastAt  time.Duration // when the last of them was sent
	firstAt time.Duration // when the first of them was sent
}

func (t *timeline) printf(format string, args ...any) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.w, format, args...)
	}
}

// stamp returns the time column.
func (t *timeline) stamp(at time.Duration) string {
	return fmt.Sprintf("t=%-13s", seconds(at))
}

// fold prints the rounds that were folded into the last one.
func (t *timeline) fold() {
	if t.repeats == 0 {
		return
	}
	span := seconds(t.firstAt)
	if t.repeats > 1 {
		span += "-" + seconds(t.lastAt)
	}
	t.printf("t=%-13s the same, %d more time%s\n", span, t.repeats, plural(t.repeats))
	t.repeats = 0
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// round prints one round of datagrams sent at now, or folds it into the last one.
func (t *timeline) round(now time.Duration, line string) {
	if line == t.last {
		if t.repeats == 0 {
			t.firstAt = now
		}
		t.repeats++
		t.lastAt = now
		return
	}
	t.fold()
	t.last = line
	t.printf("%s %s\n", t.stamp(now), line)
}

// event prints something that happened now.
func (t *timeline) event(format string, args ...any) {
	t.fold()
	t.last = ""
	t.printf("%s %s\n", t.stamp(t.dp.Now()), fmt.Sprintf(format, args...))
}

// detail prints a line that belongs to the last event.
func (t *timeline) detail(format string, args ...any) {
	t.fold()
	t.last = ""
	t.printf("%15s   %s\n", "", fmt.Sprintf(format, args...))
}

// conntrack prints the node's table.
func (t *timeline) conntrack(ctx context.Context) error {
	lines, err := t.dp.Conntrack(ctx)
	if err != nil {
		return err
	}
	noun := "entries"
	if len(lines) == 1 {
		noun = "entry"
	}
	t.detail("conntrack -L: %d %s", len(lines), noun)
	for _, l := range lines {
		t.detail("  %s", strings.TrimSpace(l))
	}
	return nil
}

// A loggingFlusher prints each plan before it hands it to the Datapath's Flusher, so that the
// timeline shows where each flush happened relative to programming.
type loggingFlusher struct {
	tl *timeline
	f  conntrackorder.Flusher
}

func (l loggingFlusher) Flush(ctx context.Context, plan conntrackorder.Plan) error {
	l.tl.detail("flush %s", planString(plan))
	err := l.f.Flush(ctx, plan)
	if err != nil {
		l.tl.detail("  failed: %v", err)
	}
	return err
}
