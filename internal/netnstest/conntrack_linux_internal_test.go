//go:build linux

package netnstest

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseExtended(t *testing.T) {
	ap := netip.MustParseAddrPort
	tests := []struct {
		name    string
		give    string
		want    Flow
		wantErr bool
	}{
		{
			name: "udp, NATed",
			give: "ipv4     2 udp      17 599 src=198.18.1.2 dst=198.18.1.1 sport=40001 dport=30080 [UNREPLIED] src=198.18.2.2 dst=198.18.1.2 sport=8080 dport=40001 mark=0 use=1",
			want: Flow{Protocol: "udp", Src: ap("198.18.1.2:40001"), Dst: ap("198.18.1.1:30080"), ReplySrc: ap("198.18.2.2:8080")},
		},
		{
			name: "udp, not NATed",
			give: "ipv4     2 udp      17 29 src=198.18.1.2 dst=198.18.1.1 sport=40000 dport=30080 [UNREPLIED] src=198.18.1.1 dst=198.18.1.2 sport=30080 dport=40000 mark=0 use=1",
			want: Flow{Protocol: "udp", Src: ap("198.18.1.2:40000"), Dst: ap("198.18.1.1:30080")},
		},
		{
			name: "sctp, with its state, ipv6",
			give: "ipv6     10 sctp     132 599 CLOSED src=2001:db8:1::2 dst=2001:db8:1::1 sport=40000 dport=30080 [UNREPLIED] src=2001:db8:1::1 dst=2001:db8:1::2 sport=30080 dport=40000 mark=0 zone=3 use=1",
			want: Flow{Protocol: "sctp", Src: ap("[2001:db8:1::2]:40000"), Dst: ap("[2001:db8:1::1]:30080")},
		},
		{
			name: "icmp has no ports",
			give: "ipv4     2 icmp     1 29 src=198.18.1.2 dst=198.18.1.1 type=8 code=0 id=7 src=198.18.1.1 dst=198.18.1.2 type=0 code=0 id=7 mark=0 use=1",
			want: Flow{Protocol: "icmp", Src: ap("198.18.1.2:0"), Dst: ap("198.18.1.1:0")},
		},
		{name: "one tuple", give: "ipv4 2 udp 17 29 src=198.18.1.2 dst=198.18.1.1 sport=1 dport=2", wantErr: true},
		{name: "three tuples", give: "ipv4 2 udp 17 29 src=1.1.1.1 dst=1.1.1.2 src=1.1.1.1 dst=1.1.1.2 src=1.1.1.1 dst=1.1.1.2", wantErr: true},
		{name: "bad address", give: "ipv4 2 udp 17 29 src=198.18.1 dst=198.18.1.1 src=198.18.1.1 dst=198.18.1.2", wantErr: true},
		{name: "bad port", give: "ipv4 2 udp 17 29 src=1.1.1.1 dst=1.1.1.2 sport=70000 src=1.1.1.2 dst=1.1.1.1", wantErr: true},
		{name: "too short", give: "ipv4 2", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseExtended(tt.give)
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
