package proxy

import (
	"bytes"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/examples/nodeport/packetpath"
)

func TestParseEntry(t *testing.T) {
	ap := netip.MustParseAddrPort
	for _, tt := range []struct {
		name   string
		give   string
		want   entry
		wantOK bool
		wantS  string
	}{
		{
			name: "the model's unNATed entry",
			give: "udp      17 29 src=198.18.1.2 dst=198.18.1.1 sport=40000 dport=30080 [UNREPLIED] src=198.18.1.1 dst=198.18.1.2 sport=30080 dport=40000",
			want: entry{
				proto: "udp", timeout: "29", origSrc: ap("198.18.1.2:40000"), origDst: ap("198.18.1.1:30080"),
				replySrc: ap("198.18.1.1:30080"), unreplied: true,
			},
			wantOK: true,
			wantS:  "udp  29s 198.18.1.2:40000 > 198.18.1.1:30080 [UNREPLIED] not NATed",
		},
		{
			name: "the kernel's NATed, assured entry, with mark and use",
			give: "udp      17 119 src=198.18.1.2 dst=198.18.3.10 sport=40001 dport=80 src=198.18.2.2 dst=198.18.1.2 sport=8080 dport=40001 [ASSURED] mark=0 use=1",
			want: entry{
				proto: "udp", timeout: "119", origSrc: ap("198.18.1.2:40001"), origDst: ap("198.18.3.10:80"),
				replySrc: ap("198.18.2.2:8080"), assured: true,
			},
			wantOK: true,
			wantS:  "udp 119s 198.18.1.2:40001 > 198.18.3.10:80   [ASSURED]   to 198.18.2.2:8080",
		},
		{
			name: "a TCP entry with its state",
			give: "tcp      6 431999 ESTABLISHED src=10.0.0.1 dst=10.0.0.2 sport=5000 dport=443 src=10.0.0.2 dst=10.0.0.1 sport=443 dport=5000 [ASSURED] mark=0 zone=3 use=1",
			want: entry{
				proto: "tcp", timeout: "431999", origSrc: ap("10.0.0.1:5000"), origDst: ap("10.0.0.2:443"),
				replySrc: ap("10.0.0.2:443"), assured: true,
			},
			wantOK: true,
			wantS:  "tcp 431999s 10.0.0.1:5000 > 10.0.0.2:443        [ASSURED]   not NATed",
		},
		{name: "empty", give: ""},
		{name: "conntrack's summary line", give: "conntrack v1.4.7 (conntrack-tools): 2 flow entries have been shown."},
		{name: "one direction only", give: "udp 17 29 src=198.18.1.2 dst=198.18.1.1 sport=40000 dport=30080"},
		{name: "three directions", give: "udp 17 29 src=1.1.1.1 dst=2.2.2.2 src=2.2.2.2 dst=1.1.1.1 src=3.3.3.3"},
		{name: "a bad address", give: "udp 17 29 src=198.18.1.x dst=198.18.1.1 src=198.18.1.1 dst=198.18.1.2"},
		{name: "a bad port", give: "udp 17 29 src=1.1.1.1 dst=2.2.2.2 sport=70000 src=2.2.2.2 dst=1.1.1.1"},
		{name: "a port before any address", give: "udp 17 29 sport=1 src=1.1.1.1 dst=2.2.2.2 src=2.2.2.2 dst=1.1.1.1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseEntry(tt.give)
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.want, got) // comparable: == is the comparison that matters
			if ok {
				assert.Equal(t, tt.wantS, got.String())
			}
		})
	}
}

func TestTimelineMarks(t *testing.T) {
	a := DefaultAddrs()
	nodePortRule := packetpath.Rule{
		Protocol: conntrackorder.UDP, Dst: netip.AddrPortFrom(a.Node, NodePort), To: netip.AddrPortFrom(a.Pod, PodPort),
	}
	byPort := conntrackorder.Filter{Protocol: conntrackorder.UDP, DstPort: NodePort}
	byIP := conntrackorder.Filter{Protocol: conntrackorder.UDP, OrigDst: a.ClusterIP, DstPort: ServicePort}
	byBackend := conntrackorder.Filter{Protocol: conntrackorder.UDP, ReplySrc: a.Pod}
	for _, tt := range []struct {
		name  string
		rules []packetpath.Rule
		give  conntrackorder.Plan
		want  string
	}{
		{name: "no rules", give: conntrackorder.Plan{byPort}, want: "  <- too early: no rule for it yet"},
		{name: "after its rule", rules: []packetpath.Rule{nodePortRule}, give: conntrackorder.Plan{byPort}},
		{
			name: "one filter of two before its rule", rules: []packetpath.Rule{nodePortRule},
			give: conntrackorder.Plan{byIP, byPort},
			want: "  <- too early: no rule yet for udp orig-dst 198.18.3.10 dport 80",
		},
		{name: "a removed backend's flows have no rule, rightly", give: conntrackorder.Plan{byBackend}},
		{
			name: "another protocol's rule does not count",
			rules: []packetpath.Rule{{
				Protocol: conntrackorder.TCP, Dst: nodePortRule.Dst, To: nodePortRule.To,
			}},
			give: conntrackorder.Plan{byPort}, want: "  <- too early: no rule for it yet",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tl := &timeline{w: &bytes.Buffer{}, rules: tt.rules}
			assert.Equal(t, tt.want, tl.tooEarly(tt.give))
		})
	}
}

func TestTimelineStale(t *testing.T) {
	ap := netip.MustParseAddrPort
	rule := packetpath.Rule{Protocol: conntrackorder.UDP, Dst: ap("198.18.1.1:30080"), To: ap("198.18.2.2:8080")}
	unNATed := entry{proto: "udp", origDst: ap("198.18.1.1:30080"), replySrc: ap("198.18.1.1:30080")}
	natted := entry{proto: "udp", origDst: ap("198.18.1.1:30080"), replySrc: ap("198.18.2.2:8080")}
	otherPort := entry{proto: "udp", origDst: ap("198.18.1.1:30081"), replySrc: ap("198.18.1.1:30081")}
	tcp := entry{proto: "tcp", origDst: ap("198.18.1.1:30080"), replySrc: ap("198.18.1.1:30080")}

	with := &timeline{rules: []packetpath.Rule{rule}}
	assert.True(t, with.stale(unNATed), "unNATed, its rule exists")
	assert.False(t, with.stale(natted), "NATed")
	assert.False(t, with.stale(otherPort), "no rule for its destination")
	assert.False(t, with.stale(tcp), "a rule for another protocol")
	assert.False(t, (&timeline{}).stale(unNATed), "no rules yet: not stale, only early")
}
