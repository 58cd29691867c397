//go:build linux

package kernelpath

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/conntrackorder/ctexec"
	"github.com/safereconcile/safereconcile/conntrackorder/ctnetlink"
	"github.com/safereconcile/safereconcile/examples/nodeport/packetpath"
	"github.com/safereconcile/safereconcile/examples/nodeport/proxy"
	"github.com/safereconcile/safereconcile/internal/netnstest"
)

// commandTimeout bounds each command the Lab runs itself, and its cleanup, so that a wedged
// iptables fails the run instead of hanging it.
const commandTimeout = 30 * time.Second

// Check returns nil when this process can build a [Lab], and otherwise an error that says
// what is missing: network namespaces, root (CAP_NET_ADMIN and CAP_SYS_ADMIN), and the
// commands ip, iptables, ip6tables, iptables-restore and conntrack in PATH.
func Check() error {
	if err := netnstest.Check(); err != nil {
		return fmt.Errorf("kernelpath: %w", err)
	}
	// The harness does not program rules atomically; the Lab does, as kube-proxy does.
	if _, err := exec.LookPath("iptables-restore"); err != nil {
		return errors.New("kernelpath: iptables-restore is not installed or not in PATH (apt-get install iptables)")
	}
	return nil
}

// Backend names the library backend a Lab flushes with.
type Backend string

// The backends of package conntrackorder.
const (
	// Auto uses Netlink, or Exec when a netfilter netlink socket cannot be opened.
	Auto Backend = ""
	// Netlink is conntrackorder/ctnetlink: one table dump per flush, over a netlink socket
	// opened in the node's namespace.
	Netlink Backend = "netlink"
	// Exec is conntrackorder/ctexec: one conntrack(8) command per filter, started on a
	// thread inside the node's namespace.
	Exec Backend = "exec"
)

// Options configure a [Lab].
type Options struct {
	// Backend is the conntrack backend; the zero value is Auto.
	Backend Backend
	// UDPTimeout, when not zero, replaces the node namespace's nf_conntrack_udp_timeout
	// (the kernel's default is 30s), so that a stale entry can be shown expiring within
	// seconds. It must be a whole number of seconds.
	UDPTimeout time.Duration
	// ReplyWait is how long a datagram waits for its answer; the zero value means 300ms. An
	// answer through a veth takes well under a millisecond; a late one counts as none, so a
	// short wait can only make a served port look dark, never the other way round. Keep it
	// well under UDPTimeout: a client's datagrams are at most two waits apart, and a longer
	// gap would let the stale entry expire while the client "keeps sending".
	ReplyWait time.Duration
}

// serviceRange holds the ClusterIPs (proxy.DefaultAddrs's is 198.18.3.10); the client routes
// it to the node.
var serviceRange = netip.MustParsePrefix("198.18.3.0/24")

// chain is the nat chain Program replaces, jumped to from PREROUTING.
const chain = "NODEPORT-DEMO"

// A Lab is one node on a real kernel, with a client and a pod, in the three network namespaces
// of a topology of package internal/netnstest, joined by two veth pairs:
//
//	client 198.18.1.2 ── 198.18.1.1 node 198.18.2.1 ── 198.18.2.2 pod (UDP echo on 8080)
//
// The node forwards, tracks connections from the first packet, and NATs with the rules of the
// last [Lab.Program], in a chain of its nat table. Only IPv4 is used. The client routes 198.18.3.0/24 (the
// ClusterIP range) to the node; the node routes it on to the pod, which does not forward: a
// ClusterIP datagram that no rule catches leaves the node, as through a real node's default
// route, and nobody answers it. There is no masquerading.
//
// A Lab is a [proxy.Datapath]. It is not safe for concurrent use. Close it when done.
type Lab struct {
	addrs   proxy.Addrs
	opts    Options
	backend Backend
	start   time.Time

	topo         *netnstest.Topology
	echo         *netnstest.UDPEcho
	clients      map[netip.AddrPort]*netnstest.UDPClient
	flusher      conntrackorder.Flusher
	closeFlusher func() error
	closed       bool
}

var _ proxy.Datapath = (*Lab)(nil)

// New builds a Lab with the addresses of [proxy.DefaultAddrs]. Call [Check] first. When New
// fails it deletes everything it made and returns the error; when it succeeds the caller must
// call [Lab.Close].
func New(ctx context.Context, opts Options) (lab *Lab, err error) {
	if opts.UDPTimeout < 0 || opts.UDPTimeout%time.Second != 0 {
		return nil, fmt.Errorf("kernelpath: UDPTimeout %s is not a whole number of seconds", opts.UDPTimeout)
	}
	if opts.ReplyWait <= 0 {
		opts.ReplyWait = 300 * time.Millisecond
	}
	l := &Lab{addrs: proxy.DefaultAddrs(), opts: opts, clients: make(map[netip.AddrPort]*netnstest.UDPClient)}
	// BuildTopology deletes what it made when it fails; from here on Close does, whatever
	// step fails.
	if l.topo, err = netnstest.BuildTopology(ctx); err != nil {
		return nil, fmt.Errorf("kernelpath: %w", err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, l.Close())
		}
	}()
	if v4 := l.topo.IPv4; v4.Client != l.addrs.Client || v4.Node != l.addrs.Node || v4.Pod != l.addrs.Pod ||
		!serviceRange.Contains(l.addrs.ClusterIP) {
		return nil, fmt.Errorf("kernelpath: the harness's addresses %+v are not the scenario's %+v", l.topo.IPv4, l.addrs)
	}
	if err := l.wire(ctx); err != nil {
		return nil, err
	}
	if l.echo, err = l.topo.Pod.ListenUDPEcho(netip.AddrPortFrom(l.addrs.Pod, proxy.PodPort)); err != nil {
		return nil, err
	}
	if err := l.openFlusher(); err != nil {
		return nil, err
	}
	l.start = time.Now()
	return l, nil
}

// wire adds to the harness's topology what the scenario needs: the ClusterIP range routed
// through the node, the chain Program replaces, and the shortened UDP timeout.
func (l *Lab) wire(ctx context.Context) error {
	t := l.topo
	steps := []struct {
		ns   *netnstest.Namespace
		args []string
	}{
		{t.Client, []string{"ip", "route", "add", serviceRange.String(), "via", l.addrs.Node.String()}},
		// Stands in for the node's default route: an unNATed ClusterIP datagram leaves the
		// node, so its conntrack entry is confirmed, as on a real node; the pod does not
		// forward it.
		{t.Node, []string{"ip", "route", "add", serviceRange.String(), "via", l.addrs.Pod.String()}},
		{t.Node, []string{"iptables", "-w", "-t", "nat", "-N", chain}},
		{t.Node, []string{"iptables", "-w", "-t", "nat", "-A", "PREROUTING", "-j", chain}},
	}
	for _, s := range steps {
		if _, err := s.ns.Run(ctx, s.args[0], s.args[1:]...); err != nil {
			return err
		}
	}
	if l.opts.UDPTimeout > 0 {
		// Per namespace since Linux 4.x: the host's timeout is not touched. The file exists
		// once conntrack is on in the namespace, which the harness's FORWARD rule ensures.
		secs := strconv.Itoa(int(l.opts.UDPTimeout / time.Second))
		if err := t.Node.WriteSysctl("net/netfilter/nf_conntrack_udp_timeout", secs); err != nil {
			return err
		}
	}
	return nil
}

// openFlusher makes the backend's Flusher act on the node's table.
func (l *Lab) openFlusher() error {
	if l.opts.Backend == Auto || l.opts.Backend == Netlink {
		// The netlink socket stays bound to the namespace it was opened in, whatever
		// thread flushes later.
		var f *ctnetlink.Flusher
		err := l.topo.Node.Do(func() error {
			var err error
			f, err = ctnetlink.New()
			return err
		})
		if err == nil {
			l.backend, l.flusher, l.closeFlusher = Netlink, f, f.Close
			return nil
		}
		if l.opts.Backend == Netlink {
			return err
		}
	}
	if l.opts.Backend != Auto && l.opts.Backend != Exec {
		return fmt.Errorf("kernelpath: unknown backend %q (want %q or %q)", l.opts.Backend, Netlink, Exec)
	}
	l.backend, l.flusher = Exec, l.topo.Node.Flusher(ctexec.New())
	return nil
}

// Backend returns the backend the Lab flushes with: Netlink or Exec, never Auto.
func (l *Lab) Backend() Backend { return l.backend }

// Namespaces returns the names of the Lab's namespaces, as `ip netns list` shows them.
func (l *Lab) Namespaces() []string {
	return []string{l.topo.Client.Name(), l.topo.Node.Name(), l.topo.Pod.Name()}
}

// Program replaces the rules of the node's chain with rules in one iptables-restore, the way
// kube-proxy installs its rules: the chain is never seen half-written.
func (l *Lab) Program(ctx context.Context, rules []packetpath.Rule) error {
	var b strings.Builder
	b.WriteString("*nat\n:" + chain + " - [0:0]\n")
	for _, r := range rules {
		b.WriteString("-A " + chain + " " + r.String() + "\n")
	}
	b.WriteString("COMMIT\n")
	// --noflush keeps every other chain; declaring the chain empties it. The command is
	// started on a thread inside the node's namespace, which it inherits.
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	return l.topo.Node.Do(func() error {
		cmd := exec.CommandContext(ctx, "iptables-restore", "-w", "--noflush")
		cmd.Stdin = strings.NewReader(b.String())
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("kernelpath: iptables-restore in %s: %w: %s", l.topo.Node.Name(), err, bytes.TrimSpace(out))
		}
		return nil
	})
}

// Flusher returns the Lab's conntrack backend, acting on the node's table.
func (l *Lab) Flusher() conntrackorder.Flusher { return l.flusher }

// Send sends one datagram from src, a socket in the client's namespace kept open across
// calls, to dst, and reports whether the answer came back within [Options.ReplyWait].
func (l *Lab) Send(ctx context.Context, src, dst netip.AddrPort) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	c, ok := l.clients[src]
	if !ok {
		var err error
		if c, err = l.topo.Client.OpenUDPClient(src); err != nil {
			return false, err
		}
		l.clients[src] = c
	}
	return c.Exchange(dst, l.opts.ReplyWait)
}

// Conntrack returns the node's table as `conntrack -L` prints it, sorted.
func (l *Lab) Conntrack(ctx context.Context) ([]string, error) {
	lines, err := l.topo.Node.Conntrack(ctx)
	if err != nil {
		return nil, err
	}
	slices.Sort(lines)
	return lines, nil
}

// Wait sleeps for d, or until ctx is done.
func (l *Lab) Wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Now returns the time since New returned.
func (l *Lab) Now() time.Duration { return time.Since(l.start) }

// Close closes the Lab's sockets, stops the pod's server, closes the backend, and deletes the
// namespaces, which removes their interfaces, rules and conntrack entries. It returns every
// failure combined. Closing twice does nothing. Close uses its own bounded context, so that it
// also cleans up after a cancelled run.
func (l *Lab) Close() error {
	if l.closed {
		return nil
	}
	l.closed = true
	var errs []error
	// Sockets first: a namespace lives on, invisibly, while a socket holds it.
	for _, c := range l.clients {
		errs = append(errs, c.Close())
	}
	if l.echo != nil {
		errs = append(errs, l.echo.Close())
	}
	if l.closeFlusher != nil {
		errs = append(errs, l.closeFlusher())
	}
	if l.topo != nil {
		ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
		defer cancel()
		errs = append(errs, l.topo.Delete(ctx))
	}
	return errors.Join(errs...)
}

// PlayOptions returns the timeline [proxy.Play] follows on a Lab: the clients send every
// 100ms (on a real kernel any gap shorter than the UDP timeout keeps an entry alive, so there
// is no need to wait a second), two rounds before the endpoint arrives and after rounds after
// it; and, when udpTimeout is not zero (pass the Lab's [Options.UDPTimeout]), a silence one
// second longer than it, after which the stale entry is gone.
func PlayOptions(after int, udpTimeout time.Duration) proxy.Options {
	opts := proxy.Options{Before: 2, After: after, Interval: 100 * time.Millisecond}
	if udpTimeout > 0 {
		opts.Pause = udpTimeout + time.Second
	}
	return opts
}
