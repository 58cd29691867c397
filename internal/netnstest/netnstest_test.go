//go:build linux

package netnstest_test

import (
	"context"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/internal/netnstest"
)

// replyWait is how long Exchange waits for a reply; generous, because a late reply counts
// as none.
const replyWait = 2 * time.Second

func TestTopologyForwardsOnlyThroughDNAT(t *testing.T) {
	netnstest.Require(t)
	topo := netnstest.NewTopology(t)
	ctx := context.Background()

	for _, tt := range []struct {
		name  string
		addrs netnstest.Addrs
	}{
		{name: "ipv4", addrs: topo.IPv4},
		{name: "ipv6", addrs: topo.IPv6},
	} {
		t.Run(tt.name, func(t *testing.T) {
			backend := netip.AddrPortFrom(tt.addrs.Pod, 8080)
			nodePort := netip.AddrPortFrom(tt.addrs.Node, 30080)
			topo.Pod.StartUDPEcho(t, backend)
			rule := netnstest.DNAT{Protocol: "udp", Port: 30080, To: backend}

			// The node has nothing on the port: no reply, but an entry, because the
			// harness turned conntrack on.
			dark := topo.Client.ListenUDP(t, netip.AddrPortFrom(tt.addrs.Client, 40001))
			replied, err := dark.Exchange(nodePort, 200*time.Millisecond)
			require.NoError(t, err)
			assert.False(t, replied, "reply without a DNAT rule")
			entries, err := topo.Node.Conntrack(ctx)
			require.NoError(t, err)
			assert.True(t, hasEntry(entries, "sport=40001 dport=30080", "[UNREPLIED]"),
				"no unreplied entry for the datagram; conntrack is off in the node:\n%s", strings.Join(entries, "\n"))

			// A fresh source port is not caught by that entry: the rule works.
			require.NoError(t, topo.Node.EnsureDNAT(ctx, rule))
			require.NoError(t, topo.Node.EnsureDNAT(ctx, rule), "EnsureDNAT must be idempotent")
			client := topo.Client.ListenUDP(t, netip.AddrPortFrom(tt.addrs.Client, 40002))
			replied, err = client.Exchange(nodePort, replyWait)
			require.NoError(t, err)
			assert.True(t, replied, "no reply through the DNAT rule")

			require.NoError(t, topo.Node.DeleteDNAT(ctx, rule))
			require.NoError(t, topo.Node.DeleteDNAT(ctx, rule), "DeleteDNAT of a missing rule must succeed")
		})
	}
}

func TestTableInsertAndFlush(t *testing.T) {
	netnstest.Require(t)
	ns := netnstest.New(t, "table")
	table := ns.Table(t)
	ap := func(a string, port uint16) netip.AddrPort { return netip.AddrPortFrom(netip.MustParseAddr(a), port) }
	flows := []netnstest.Flow{
		{Protocol: "udp", Src: ap("198.18.1.2", 40000), Dst: ap("198.18.1.1", 30080)},
		{Protocol: "udp", Src: ap("198.18.1.2", 40001), Dst: ap("198.18.1.1", 30080), ReplySrc: ap("198.18.2.2", 8080)},
		{Protocol: "tcp", Src: ap("198.18.1.2", 40002), Dst: ap("198.18.3.10", 80), ReplySrc: ap("198.18.2.2", 8080)},
		{Protocol: "sctp", Src: ap("2001:db8:1::2", 40000), Dst: ap("2001:db8:1::1", 30080)},
		{Protocol: "sctp", Src: ap("198.18.1.2", 40003), Dst: ap("198.18.3.10", 3868), ReplySrc: ap("198.18.2.2", 3869)},
	}

	require.NoError(t, table.Insert(flows...))

	n, err := table.Len()
	require.NoError(t, err)
	assert.Equal(t, len(flows), n)
	// List reads the table through conntrack(8), SCTP ports included, which netlink
	// v1.3.1's parser drops: Insert sets them.
	got, err := table.List()
	require.NoError(t, err)
	assert.ElementsMatch(t, flows, got)
	// The kernel DNATed the entries with a ReplySrc, as a rule would have: conntrack(8)
	// --dst-nat selects exactly those.
	nated := 0
	for _, fam := range []string{"ipv4", "ipv6"} {
		out := ns.Exec(t, "conntrack", "-L", "-f", fam, "--dst-nat")
		nated += strings.Count(out, "\n") - 1 // less the summary line
	}
	assert.Equal(t, 3, nated, "entries with a ReplySrc are DNATed")
	entries, err := ns.Conntrack(context.Background())
	require.NoError(t, err)
	assert.True(t, hasEntry(entries, "sport=40001 dport=30080", "src=198.18.2.2 dst=198.18.1.2 sport=8080"),
		"NATed entry missing:\n%s", strings.Join(entries, "\n"))
	assert.True(t, hasEntry(entries, "sctp", "sport=40000 dport=30080", "src=2001:db8:1::1"),
		"sctp entry without its ports:\n%s", strings.Join(entries, "\n"))
	assert.True(t, hasEntry(entries, "sctp", "sport=40003 dport=3868", "src=198.18.2.2 dst=198.18.1.2 sport=3869 dport=40003"),
		"NATed sctp entry without its ports:\n%s", strings.Join(entries, "\n"))

	require.NoError(t, table.Flush())
	n, err = table.Len()
	require.NoError(t, err)
	assert.Zero(t, n)

	assert.Error(t, table.Insert(netnstest.Flow{Protocol: "icmp"}))
}

func TestDoReturnsTheThreadHome(t *testing.T) {
	netnstest.Require(t)
	ns := netnstest.New(t, "do")
	home, err := os.Readlink("/proc/thread-self/ns/net")
	require.NoError(t, err)

	var inside string
	require.NoError(t, ns.Do(func() error {
		var err error
		inside, err = os.Readlink("/proc/thread-self/ns/net")
		return err
	}))
	assert.NotEqual(t, home, inside, "Do did not enter the namespace")

	// Every thread the runtime may hand this goroutine is in the test's namespace again.
	for i := 0; i < 2*runtime.GOMAXPROCS(0); i++ {
		runtime.LockOSThread()
		now, err := os.Readlink("/proc/thread-self/ns/net")
		runtime.UnlockOSThread()
		require.NoError(t, err)
		assert.Equal(t, home, now)
		runtime.Gosched()
	}

	assert.PanicsWithValue(t, "boom", func() { _ = ns.Do(func() error { panic("boom") }) })
	assert.Error(t, ns.Do(func() error { runtime.Goexit(); return nil }))
}

func TestNamesAreUniqueAndDeleted(t *testing.T) {
	netnstest.Require(t)
	var names []string
	t.Run("make", func(t *testing.T) {
		a, b := netnstest.New(t, "same"), netnstest.New(t, "same")
		assert.NotEqual(t, a.Name(), b.Name())
		names = append(names, a.Name(), b.Name())
	})
	out, err := exec.Command("ip", "netns", "list").CombinedOutput()
	require.NoError(t, err)
	for _, n := range names {
		assert.NotContains(t, string(out), n, "namespace left behind after its test ended")
	}
}

// hasEntry reports whether one conntrack line contains every part.
func hasEntry(entries []string, parts ...string) bool {
	for _, e := range entries {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(e, p)
		}
		if all {
			return true
		}
	}
	return false
}

func TestProgramFormsLeaveNothingBehind(t *testing.T) {
	netnstest.Require(t)
	require.NoError(t, netnstest.Check())
	ctx := context.Background()

	topo, err := netnstest.BuildTopology(ctx)
	require.NoError(t, err)
	echo, err := topo.Pod.ListenUDPEcho(netip.AddrPortFrom(topo.IPv4.Pod, 8080))
	require.NoError(t, err)
	client, err := topo.Client.OpenUDPClient(netip.AddrPortFrom(topo.IPv4.Client, 40000))
	require.NoError(t, err)
	table, err := topo.Node.OpenTable()
	require.NoError(t, err)
	names := []string{topo.Client.Name(), topo.Node.Name(), topo.Pod.Name()}

	require.NoError(t, table.Close())
	require.NoError(t, client.Close())
	require.NoError(t, echo.Close())
	require.NoError(t, echo.Close(), "second Close")
	require.NoError(t, topo.Delete(ctx))

	out, err := exec.Command("ip", "netns", "list").CombinedOutput()
	require.NoError(t, err)
	for _, n := range names {
		assert.NotContains(t, string(out), n)
	}
}
