//go:build linux

package netnstest

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os/exec"
	"strconv"
	"testing"
)

// The topology's MAC addresses: locally administered, and only ever on links inside the
// topology's namespaces.
const (
	macClient       = "02:53:52:54:01:02"
	macNodeToClient = "02:53:52:54:01:01"
	macNodeToPod    = "02:53:52:54:02:01"
	macPod          = "02:53:52:54:02:02"
)

// Addrs are the addresses of one family in a [Topology].
type Addrs struct {
	Client netip.Addr // the client, on the client–node link
	Node   netip.Addr // the node on the client–node link: where NodePorts are reached
	Pod    netip.Addr // the pod, on the node–pod link; its default route is the node
	// Gateway is the node's address on the node–pod link.
	Gateway netip.Addr
}

// A Topology is three namespaces, client — node — pod, joined by two veth pairs, dual-stack:
//
//	client 198.18.1.2  ── 198.18.1.1  node  198.18.2.1 ── 198.18.2.2  pod
//	       2001:db8:1::2 ── 2001:db8:1::1   2001:db8:2::1 ── 2001:db8:2::2
//
// The node forwards IPv4 and IPv6 and tracks connections; the pod routes through the node;
// the client reaches only the node. MAC addresses and neighbor entries are static, so the
// first datagram goes out at once instead of waiting for ARP or neighbor discovery. There is no masquerading: the pod sees the client's
// address, and the node's conntrack entry undoes a DNAT on the way back, as on a Kubernetes
// node with externalTrafficPolicy Local.
type Topology struct {
	Client, Node, Pod *Namespace
	IPv4, IPv6        Addrs
}

// NewTopology is [BuildTopology] for a test: it deletes the namespaces when tb ends (also when
// it fails), skips tb when namespaces are unavailable, and fails it on any other error. Call
// [Require] first.
func NewTopology(tb testing.TB) *Topology {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	t, err := BuildTopology(ctx)
	if errors.Is(err, ErrUnsupported) {
		tb.Skipf("skipping: %v", err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	// Registered before anything the test makes in the namespaces, so that it runs last.
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
		defer cancel()
		if err := t.Delete(ctx); err != nil {
			tb.Error(err)
		}
	})
	return t
}

// BuildTopology creates and wires the three namespaces of a [Topology]. On error it deletes
// whatever it created; on success the caller must [Topology.Delete] it.
//
// The node gets `iptables -A FORWARD -m conntrack --ctstate INVALID -j DROP` and the same for
// ip6tables, so that conntrack is on from the first packet; the nat table is left empty for
// the caller to program.
func BuildTopology(ctx context.Context) (*Topology, error) {
	t := &Topology{
		IPv4: Addrs{
			Client:  netip.MustParseAddr("198.18.1.2"),
			Node:    netip.MustParseAddr("198.18.1.1"),
			Gateway: netip.MustParseAddr("198.18.2.1"),
			Pod:     netip.MustParseAddr("198.18.2.2"),
		},
		IPv6: Addrs{
			Client:  netip.MustParseAddr("2001:db8:1::2"),
			Node:    netip.MustParseAddr("2001:db8:1::1"),
			Gateway: netip.MustParseAddr("2001:db8:2::1"),
			Pod:     netip.MustParseAddr("2001:db8:2::2"),
		},
	}
	if err := t.build(ctx); err != nil {
		// Even when ctx is what failed: the namespaces made so far must go.
		return nil, errors.Join(err, t.Delete(context.WithoutCancel(ctx)))
	}
	return t, nil
}

// build creates the namespaces one by one into t, so that Delete finds those that exist, and
// wires them.
func (t *Topology) build(ctx context.Context) error {
	for _, n := range []struct {
		ns   **Namespace
		role string
	}{{&t.Client, "client"}, {&t.Node, "node"}, {&t.Pod, "pod"}} {
		ns, err := Create(ctx, n.role)
		if err != nil {
			return err
		}
		*n.ns = ns
	}
	var steps []step
	// Interface names are per namespace, so fixed names cannot collide between tests.
	// Each pair is created in the node and its peer moved straight into the other namespace.
	// The MAC addresses are fixed too, so that neighbors can be static (below).
	steps = append(steps,
		step{t.Node, []string{"ip", "link", "add", "to-client", "address", macNodeToClient, "type", "veth",
			"peer", "name", "to-node", "address", macClient, "netns", t.Client.Name()}},
		step{t.Node, []string{"ip", "link", "add", "to-pod", "address", macNodeToPod, "type", "veth",
			"peer", "name", "to-node", "address", macPod, "netns", t.Pod.Name()}},
	)
	for _, a := range []struct {
		ns   *Namespace
		dev  string
		addr netip.Addr
		bits int
	}{
		{t.Client, "to-node", t.IPv4.Client, 24},
		{t.Client, "to-node", t.IPv6.Client, 64},
		{t.Node, "to-client", t.IPv4.Node, 24},
		{t.Node, "to-client", t.IPv6.Node, 64},
		{t.Node, "to-pod", t.IPv4.Gateway, 24},
		{t.Node, "to-pod", t.IPv6.Gateway, 64},
		{t.Pod, "to-node", t.IPv4.Pod, 24},
		{t.Pod, "to-node", t.IPv6.Pod, 64},
	} {
		prefix := netip.PrefixFrom(a.addr, a.bits).String()
		if a.addr.Is4() {
			steps = append(steps, step{a.ns, []string{"ip", "addr", "add", prefix, "dev", a.dev}})
		} else {
			// nodad: duplicate address detection would keep the address tentative, and
			// unusable, for a second or two.
			steps = append(steps, step{a.ns, []string{"ip", "-6", "addr", "add", prefix, "dev", a.dev, "nodad"}})
		}
	}
	// Static neighbors: with ARP and neighbor discovery, the first datagrams wait in a queue
	// until resolution, which a lost first solicitation delays by a second (seen for IPv6
	// right after the links come up). A test that asserts "no reply within 300 ms" would
	// then see silence for that reason and not for the one it tests.
	for _, n := range []struct {
		ns   *Namespace
		dev  string
		addr netip.Addr
		mac  string
	}{
		{t.Client, "to-node", t.IPv4.Node, macNodeToClient},
		{t.Client, "to-node", t.IPv6.Node, macNodeToClient},
		{t.Node, "to-client", t.IPv4.Client, macClient},
		{t.Node, "to-client", t.IPv6.Client, macClient},
		{t.Node, "to-pod", t.IPv4.Pod, macPod},
		{t.Node, "to-pod", t.IPv6.Pod, macPod},
		{t.Pod, "to-node", t.IPv4.Gateway, macNodeToPod},
		{t.Pod, "to-node", t.IPv6.Gateway, macNodeToPod},
	} {
		steps = append(steps, step{n.ns, []string{"ip", "neigh", "replace", n.addr.String(), "lladdr", n.mac, "dev", n.dev, "nud", "permanent"}})
	}
	steps = append(steps,
		step{t.Client, []string{"ip", "link", "set", "to-node", "up"}},
		step{t.Node, []string{"ip", "link", "set", "to-client", "up"}},
		step{t.Node, []string{"ip", "link", "set", "to-pod", "up"}},
		step{t.Pod, []string{"ip", "link", "set", "to-node", "up"}},
		step{t.Pod, []string{"ip", "route", "add", "default", "via", t.IPv4.Gateway.String()}},
		step{t.Pod, []string{"ip", "-6", "route", "add", "default", "via", t.IPv6.Gateway.String()}},
	)
	// The kernel registers conntrack's hooks in a namespace only once a rule needs them.
	// Without this rule the datagram sent before the DNAT rule exists would leave no entry
	// behind, and a stale-entry test would pass for the wrong reason.
	for _, cmd := range []string{"iptables", "ip6tables"} {
		steps = append(steps, step{t.Node, []string{cmd, "-w", "-A", "FORWARD", "-m", "conntrack", "--ctstate", "INVALID", "-j", "DROP"}})
	}
	for _, st := range steps {
		if _, err := st.ns.Run(ctx, st.argv[0], st.argv[1:]...); err != nil {
			return err
		}
	}
	for _, sysctl := range []string{"net/ipv4/ip_forward", "net/ipv6/conf/all/forwarding"} {
		if err := t.Node.WriteSysctl(sysctl, "1"); err != nil {
			return err
		}
	}
	return nil
}

// step is one command run in one namespace while building a topology.
type step struct {
	ns   *Namespace
	argv []string
}

// Delete deletes the topology's namespaces, those that exist, and returns every error.
func (t *Topology) Delete(ctx context.Context) error {
	var errs []error
	for _, ns := range []*Namespace{t.Pod, t.Node, t.Client} {
		if ns != nil {
			errs = append(errs, ns.Delete(ctx))
		}
	}
	return errors.Join(errs...)
}

// A DNAT is one destination NAT rule in the nat table's PREROUTING chain, the way kube-proxy
// programs a NodePort: `-p <Protocol> --dport <Port> -j DNAT --to-destination <To>`.
type DNAT struct {
	Protocol string         // "udp", "tcp" or "sctp"
	Port     uint16         // the destination port the rule catches, e.g. a NodePort
	To       netip.AddrPort // the backend; its family picks iptables or ip6tables
}

// args returns the rule's iptables command and its rule specification.
func (r DNAT) args() (string, []string, error) {
	if r.Protocol == "" || r.Port == 0 || !r.To.IsValid() || r.To.Port() == 0 {
		return "", nil, fmt.Errorf("netnstest: incomplete DNAT rule %+v", r)
	}
	cmd := "iptables"
	if r.To.Addr().Is6() {
		cmd = "ip6tables"
	}
	// AddrPort.String brackets IPv6 addresses, which is the form ip6tables expects.
	return cmd, []string{"PREROUTING", "-p", r.Protocol, "--dport", strconv.Itoa(int(r.Port)),
		"-j", "DNAT", "--to-destination", r.To.String()}, nil
}

// EnsureDNAT adds the rule to the namespace unless it is already there, so that it can be
// called on every sync of a program function.
func (ns *Namespace) EnsureDNAT(ctx context.Context, r DNAT) error {
	cmd, spec, err := r.args()
	if err != nil {
		return err
	}
	ok, err := ns.hasRule(ctx, cmd, spec)
	if err != nil || ok {
		return err
	}
	_, err = ns.Run(ctx, cmd, append([]string{"-w", "-t", "nat", "-A"}, spec...)...)
	return err
}

// DeleteDNAT removes the rule from the namespace; a rule that is not there is no error.
func (ns *Namespace) DeleteDNAT(ctx context.Context, r DNAT) error {
	cmd, spec, err := r.args()
	if err != nil {
		return err
	}
	ok, err := ns.hasRule(ctx, cmd, spec)
	if err != nil || !ok {
		return err
	}
	_, err = ns.Run(ctx, cmd, append([]string{"-w", "-t", "nat", "-D"}, spec...)...)
	return err
}

// hasRule reports whether the nat table holds the rule (`iptables -C`, which exits 1 when
// the rule is missing).
func (ns *Namespace) hasRule(ctx context.Context, cmd string, spec []string) (bool, error) {
	_, err := ns.Run(ctx, cmd, append([]string{"-w", "-t", "nat", "-C"}, spec...)...)
	var exit *exec.ExitError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		return false, nil
	}
	return false, err
}
