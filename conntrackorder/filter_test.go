package conntrackorder_test

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/conntrackorder"
)

func TestFilterString(t *testing.T) {
	tests := []struct {
		name string
		give conntrackorder.Filter
		want string
	}{
		{name: "service IP", give: fSvcIP, want: "udp orig-dst 172.30.0.41 dport 80"},
		{name: "NodePort", give: fNodePort, want: "udp dport 31201"},
		{name: "endpoint", give: endpointFilters(epA)[0], want: "udp orig-dst 172.30.0.41 dport 80 dst-nat 10.180.0.1"},
		{name: "zero", give: conntrackorder.Filter{}, want: "protocol(0)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.give.String())
		})
	}
}

func TestFilterIs6(t *testing.T) {
	tests := []struct {
		name string
		give conntrackorder.Filter
		want bool
	}{
		{name: "IPv4", give: fSvcIP, want: false},
		{name: "no address", give: fNodePort, want: false},
		{name: "IPv6 service IP", give: conntrackorder.Filter{Protocol: conntrackorder.UDP, OrigDst: svcIP6, DstPort: 80}, want: true},
		{name: "IPv6 endpoint", give: conntrackorder.Filter{Protocol: conntrackorder.UDP, DstPort: 80, ReplySrc: epA6.Addr()}, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.give.Is6())
		})
	}
}

func TestFilterValidate(t *testing.T) {
	tests := []struct {
		name string
		give conntrackorder.Filter
		want string // empty: valid
	}{
		{name: "service IP", give: fSvcIP},
		{name: "NodePort", give: fNodePort},
		{name: "endpoint only", give: conntrackorder.Filter{Protocol: conntrackorder.SCTP, ReplySrc: epA.Addr()}},
		{name: "TCP", give: conntrackorder.Filter{Protocol: conntrackorder.TCP, DstPort: 80}},
		{
			name: "protocol only",
			give: conntrackorder.Filter{Protocol: conntrackorder.UDP},
			want: "conntrackorder: filter udp: sets no address and no port, so it would delete every flow of its protocol",
		},
		{name: "no protocol", give: conntrackorder.Filter{DstPort: 80}, want: "conntrackorder: filter protocol(0) dport 80: unknown protocol"},
		{
			name: "mixed families",
			give: conntrackorder.Filter{Protocol: conntrackorder.UDP, OrigDst: svcIP6, ReplySrc: epA.Addr()},
			want: "conntrackorder: filter udp orig-dst fd00:30::41 dst-nat 10.180.0.1: addresses of different families",
		},
		{
			name: "unspecified",
			give: conntrackorder.Filter{Protocol: conntrackorder.UDP, ReplySrc: netip.IPv6Unspecified()},
			want: "conntrackorder: filter udp dst-nat ::: address :: is unspecified",
		},
		{
			name: "IPv4-mapped",
			give: conntrackorder.Filter{Protocol: conntrackorder.UDP, OrigDst: netip.MustParseAddr("::ffff:172.30.0.41")},
			want: "conntrackorder: filter udp orig-dst ::ffff:172.30.0.41: address ::ffff:172.30.0.41 is IPv4-mapped; pass it as IPv4",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.give.Validate()
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.EqualError(t, err, tt.want)
		})
	}
}

// TestFilterWords: Filter.String "returns the filter in conntrack(8)'s words", Protocol's
// String "An unknown value gives protocol(N)", and Validate refuses a bad ReplySrc as it does a
// bad OrigDst.
func TestFilterWords(t *testing.T) {
	assert.Equal(t, "udp orig-dst 172.30.0.41 dport 80", conntrackorder.Filter{Protocol: protoUDP, OrigDst: addrOf("172.30.0.41"), DstPort: 80}.String())
	assert.Equal(t, "udp dport 31201 dst-nat 10.180.0.1", conntrackorder.Filter{Protocol: protoUDP, DstPort: 31201, ReplySrc: addrOf("10.180.0.1")}.String())
	assert.Equal(t, "protocol(9)", conntrackorder.Protocol(9).String())
	assert.Equal(t, "protocol(0)", conntrackorder.Protocol(0).String())
	assert.Equal(t, "sctp", conntrackorder.SCTP.String())
	for _, bad := range []conntrackorder.Filter{
		{Protocol: protoUDP, DstPort: 53, ReplySrc: addrOf("::ffff:10.0.0.1")},
		{Protocol: protoUDP, DstPort: 53, ReplySrc: addrOf("fe80::1%eth0")},
		{Protocol: protoUDP, DstPort: 53, ReplySrc: addrOf("0.0.0.0")},
		{Protocol: conntrackorder.SCTP, OrigDst: addrOf("2001:db8::1"), ReplySrc: addrOf("10.0.0.1")},
		{Protocol: 0, DstPort: 53},
		{Protocol: conntrackorder.TCP},
	} {
		err := bad.Validate()
		require.Error(t, err, "%v", bad)
		assert.True(t, strings.HasPrefix(err.Error(), "conntrackorder: "), "%q", err)
	}
	assert.NoError(t, conntrackorder.Filter{Protocol: conntrackorder.TCP, DstPort: 53}.Validate())
	assert.NoError(t, conntrackorder.Filter{Protocol: protoUDP, ReplySrc: addrOf("2001:db8::1")}.Validate())
	assert.True(t, conntrackorder.Filter{Protocol: protoUDP, ReplySrc: addrOf("2001:db8::1")}.Is6())
	assert.False(t, conntrackorder.Filter{Protocol: protoUDP, DstPort: 53}.Is6())
}
