//go:build linux

package netnstest_test

import (
	"context"
	"net/netip"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/internal/netnstest"
)

// Insert fills a table in batches: many batches' worth of entries arrive whole, TCP entries
// ESTABLISHED, and Count reads them back by family and, through the kernel's filter, by
// protocol.
func TestInsertInBatches(t *testing.T) {
	netnstest.Require(t)
	ns := netnstest.New(t, "batch")
	table := ns.Table(t)
	var flows []netnstest.Flow
	for i := 0; i < 6000; i++ {
		proto, dst := "tcp", netip.MustParseAddrPort("198.18.30.1:443")
		if i%3 == 0 {
			proto, dst = "udp", netip.MustParseAddrPort("198.18.30.2:53")
		}
		src := netip.AddrPortFrom(netip.AddrFrom4([4]byte{198, 18, 100, byte(i / 250)}), uint16(10000+i))
		flows = append(flows, netnstest.Flow{Protocol: proto, Src: src, Dst: dst, ReplySrc: netip.MustParseAddrPort("198.18.2.2:8443")})
	}
	flows = append(flows, netnstest.Flow{Protocol: "udp",
		Src: netip.MustParseAddrPort("[2001:db8:1::2]:40000"), Dst: netip.MustParseAddrPort("[2001:db8:1::1]:30080")})
	require.NoError(t, table.Insert(flows...))

	n, err := table.Len()
	require.NoError(t, err)
	assert.Equal(t, len(flows), n)
	for _, tt := range []struct {
		ipv6     bool
		protocol string
		want     int
	}{
		{false, "", 6000}, {false, "udp", 2000}, {false, "tcp", 4000}, {true, "", 1}, {true, "tcp", 0},
	} {
		got, err := table.Count(tt.ipv6, tt.protocol)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, "ipv6=%v protocol=%q", tt.ipv6, tt.protocol)
	}
	lines, err := ns.Conntrack(context.Background())
	require.NoError(t, err)
	for _, l := range lines {
		if strings.HasPrefix(l, "tcp") {
			assert.Contains(t, l, "ESTABLISHED")
		}
	}
}

// An entry that cannot be created fails Insert with an error that names its flow; the entries
// before it exist.
func TestInsertNamesTheFlowItCouldNotCreate(t *testing.T) {
	netnstest.Require(t)
	ns := netnstest.New(t, "batcherr")
	table := ns.Table(t)
	a := netnstest.Flow{Protocol: "udp", Src: netip.MustParseAddrPort("198.18.1.2:40000"), Dst: netip.MustParseAddrPort("198.18.1.1:30080")}
	b := netnstest.Flow{Protocol: "udp", Src: netip.MustParseAddrPort("198.18.1.2:40001"), Dst: netip.MustParseAddrPort("198.18.1.1:30080")}

	err := table.Insert(a, b, a)

	require.ErrorIs(t, err, syscall.EEXIST)
	assert.Contains(t, err.Error(), "198.18.1.2:40000")
	n, err := table.Len()
	require.NoError(t, err)
	assert.Equal(t, 2, n)
}
