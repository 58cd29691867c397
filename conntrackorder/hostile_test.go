package conntrackorder_test

// Hostile tests: each one attacks a sentence of the package documentation, read without the
// implementation. A test that fails today starts with t.Skip("hostile: fails today: ...").

import (
	"context"
	"errors"
	"net/netip"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/conntrackorder/conntrackordertest"
	"github.com/safereconcile/safereconcile/conntrackorder/ctexec"
)

var (
	hA   = netip.MustParseAddr
	hAP  = netip.MustParseAddrPort
	hUDP = conntrackorder.UDP
)

func hFlow(dst, replySrc string) conntrackorder.Flow {
	return conntrackorder.Flow{Protocol: conntrackorder.UDP, OrigDst: hAP(dst), ReplySrc: hAP(replySrc)}
}

func hNoProgram(context.Context) error { return nil }

// TestHostileLostNodePortIsAnotherServicesPortAndExternalIP is issue 11 item 1 through B's
// ExternalIP and LoadBalancerIP as well as its ClusterIP: "It never deletes ... a UDP flow to a
// service IP and port NATed to one of its serving endpoints, even when a filter selects it".
func TestHostileLostNodePortIsAnotherServicesPortAndExternalIP(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{
		Name: "a", Protocol: hUDP, Port: 53, ClusterIPs: []netip.Addr{hA("198.18.30.10")}, NodePort: 31000,
	}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{hAP("198.18.2.10:53")}))
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{
		Name: "b", Protocol: hUDP, Port: 31000,
		ClusterIPs:      []netip.Addr{hA("198.18.30.20"), hA("2001:db8:30::20")},
		ExternalIPs:     []netip.Addr{hA("198.18.40.20")},
		LoadBalancerIPs: []netip.Addr{hA("198.18.50.20")},
	}))
	require.NoError(t, tr.SetEndpoints("b", []netip.AddrPort{hAP("198.18.2.20:31000"), hAP("[2001:db8:2::20]:31000")}))
	rec := conntrackordertest.New()
	s := conntrackorder.NewReconcileSyncer(tr, hNoProgram, rec)
	require.NoError(t, s.Sync(context.Background()))

	tr.DeleteService("a")
	require.NoError(t, s.Sync(context.Background()))
	calls := rec.Calls()
	require.Len(t, calls, 2)
	last := calls[1]
	assert.Contains(t, last.Plan, conntrackorder.Filter{Protocol: hUDP, DstPort: 31000}, "A's lost NodePort must be cleared")
	for _, f := range []conntrackorder.Flow{
		hFlow("198.18.30.20:31000", "198.18.2.20:31000"),
		hFlow("198.18.40.20:31000", "198.18.2.20:31000"),
		hFlow("198.18.50.20:31000", "198.18.2.20:31000"),
		hFlow("[2001:db8:30::20]:31000", "[2001:db8:2::20]:31000"),
	} {
		assert.True(t, last.Desired.Keeps(f), "B's healthy flow %v must be kept", f)
		assert.False(t, last.Desired.Contradicts(f), "B's healthy flow %v must not contradict", f)
	}
	// A's own old flow to the node's address on 31000 is not kept.
	assert.False(t, last.Desired.Keeps(hFlow("198.18.1.1:31000", "198.18.2.10:53")))
}

// TestHostileNodePortReusedByANewService: A is deleted and C takes its NodePort. "filters for
// addresses, ports and NodePorts no current UDP service port has" are handed over, so the lost
// NodePort's filter is covered by C; A's old flow to the NodePort contradicts C, C's does not.
func TestHostileNodePortReusedByANewService(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{
		Name: "a", Protocol: hUDP, Port: 53, ClusterIPs: []netip.Addr{hA("198.18.30.10")}, NodePort: 31000,
	}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{hAP("198.18.2.10:53")}))
	rec := conntrackordertest.New()
	s := conntrackorder.NewReconcileSyncer(tr, hNoProgram, rec)
	require.NoError(t, s.Sync(context.Background()))

	tr.DeleteService("a")
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{
		Name: "c", Protocol: hUDP, Port: 54, ClusterIPs: []netip.Addr{hA("198.18.30.30")}, NodePort: 31000,
	}))
	require.NoError(t, tr.SetEndpoints("c", []netip.AddrPort{hAP("198.18.2.30:54")}))
	require.NoError(t, s.Sync(context.Background()))
	last := rec.Calls()[len(rec.Calls())-1]
	assert.NotContains(t, last.Plan, conntrackorder.Filter{Protocol: hUDP, DstPort: 31000}, "C's NodePort is covered by the desired state")
	assert.Contains(t, last.Plan, conntrackorder.Filter{Protocol: hUDP, OrigDst: hA("198.18.30.10"), DstPort: 53})
	assert.True(t, last.Desired.Contradicts(hFlow("198.18.1.1:31000", "198.18.2.10:53")), "A's flow to the reused NodePort must go")
	assert.False(t, last.Desired.Contradicts(hFlow("198.18.1.1:31000", "198.18.2.30:54")), "C's flow stays")
	assert.Nil(t, tr.Pending())
}

// TestHostileServiceIPJudgedByItsServicePortAlone: "A destination that is a service IP and port
// is judged by that service port alone, even if the port is also a NodePort".
func TestHostileServiceIPJudgedByItsServicePortAlone(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: hUDP, Port: 31000, ClusterIPs: []netip.Addr{hA("198.18.30.10")}}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{hAP("198.18.2.10:31000")}))
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "b", Protocol: hUDP, Port: 80, ClusterIPs: []netip.Addr{hA("198.18.30.20")}, NodePort: 31000}))
	require.NoError(t, tr.SetEndpoints("b", []netip.AddrPort{hAP("198.18.2.20:80")}))
	d := tr.Desired()
	tests := []struct {
		give        conntrackorder.Flow
		contradicts bool
		keeps       bool
	}{
		{give: hFlow("198.18.30.10:31000", "198.18.2.10:31000"), keeps: true},
		{give: hFlow("198.18.30.10:31000", "198.18.2.20:80"), contradicts: true},
		{give: hFlow("198.18.1.1:31000", "198.18.2.20:80")},
		{give: hFlow("198.18.1.1:31000", "198.18.2.10:31000"), contradicts: true},
		{give: hFlow("[2001:db8:1::1]:31000", "[2001:db8:1::1]:31000"), contradicts: true}, // un-NATed v6 to the NodePort
		{give: hFlow("198.18.30.10:31000", "198.18.30.10:31000"), contradicts: true},       // [UNREPLIED]
		{give: conntrackorder.Flow{Protocol: conntrackorder.TCP, OrigDst: hAP("198.18.30.10:31000"), ReplySrc: hAP("198.18.30.10:31000")}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.contradicts, d.Contradicts(tt.give), "Contradicts(%v)", tt.give)
		assert.Equal(t, tt.keeps, d.Keeps(tt.give), "Keeps(%v)", tt.give)
	}
}

// TestHostileBadInputChangesNothing: "SetService returns an error and changes nothing" and "When
// nothing changed since the last call, Desired returns the same snapshot": a refused update
// must leave Pending and the very same Desired snapshot.
func TestHostileBadInputChangesNothing(t *testing.T) {
	good := conntrackorder.ServicePort{
		Name: "a", Protocol: hUDP, Port: 53, ClusterIPs: []netip.Addr{hA("198.18.30.10")},
		ExternalIPs: []netip.Addr{hA("198.18.40.10")}, NodePort: 31000,
	}
	badServices := map[string]func(sp *conntrackorder.ServicePort){
		"mapped external IP": func(sp *conntrackorder.ServicePort) {
			sp.ExternalIPs = append(sp.ExternalIPs, hA("::ffff:198.18.40.11"))
		},
		"zoned LB IP":        func(sp *conntrackorder.ServicePort) { sp.LoadBalancerIPs = []netip.Addr{hA("fe80::1%eth0")} },
		"invalid cluster IP": func(sp *conntrackorder.ServicePort) { sp.ClusterIPs = append(sp.ClusterIPs, netip.Addr{}) },
		"unspecified v6":     func(sp *conntrackorder.ServicePort) { sp.ClusterIPs = []netip.Addr{hA("::")} },
		"port 0":             func(sp *conntrackorder.ServicePort) { sp.Port = 0; sp.ClusterIPs = nil },
		"protocol 0":         func(sp *conntrackorder.ServicePort) { sp.Protocol = 0 },
		"protocol 4":         func(sp *conntrackorder.ServicePort) { sp.Protocol = 4 },
		"empty name":         func(sp *conntrackorder.ServicePort) { sp.Name = "" },
	}
	for name, mutate := range badServices {
		t.Run("SetService/"+name, func(t *testing.T) {
			tr := conntrackorder.NewTracker()
			require.NoError(t, tr.SetService(good))
			require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{hAP("198.18.2.10:53")}))
			wantPending, wantDesired := tr.Pending(), tr.Desired()
			sp := good
			sp.ClusterIPs = append([]netip.Addr(nil), good.ClusterIPs...)
			sp.ExternalIPs = append([]netip.Addr(nil), good.ExternalIPs...)
			sp.NodePort = 0 // would collect a lost NodePort if applied
			mutate(&sp)
			err := tr.SetService(sp)
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), "conntrackorder: "), "error %q is not package-prefixed", err)
			assert.Empty(t, cmp.Diff(wantPending, tr.Pending()))
			assert.Same(t, wantDesired, tr.Desired(), "a refused SetService changed the desired state")
		})
	}
	badEndpoints := map[string][]netip.AddrPort{
		"port 0":       {hAP("198.18.2.11:53"), netip.AddrPortFrom(hA("198.18.2.12"), 0)},
		"mapped":       {hAP("[::ffff:198.18.2.11]:53")},
		"zoned":        {netip.AddrPortFrom(hA("fe80::1%eth0"), 53)},
		"unspecified":  {hAP("0.0.0.0:53")},
		"invalid addr": {netip.AddrPortFrom(netip.Addr{}, 53)},
	}
	for name, eps := range badEndpoints {
		t.Run("SetEndpoints/"+name, func(t *testing.T) {
			tr := conntrackorder.NewTracker()
			require.NoError(t, tr.SetService(good))
			require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{hAP("198.18.2.10:53")}))
			wantPending, wantDesired := tr.Pending(), tr.Desired()
			err := tr.SetEndpoints("a", eps) // would make 198.18.2.10 gone if applied
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), "conntrackorder: "), "error %q is not package-prefixed", err)
			assert.Empty(t, cmp.Diff(wantPending, tr.Pending()))
			assert.Same(t, wantDesired, tr.Desired())
			assert.False(t, tr.Desired().Contradicts(hFlow("198.18.30.10:53", "198.18.2.10:53")))

			// Refused endpoints for a name not known yet are not kept for later either.
			require.Error(t, tr.SetEndpoints("later", eps))
			require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "later", Protocol: hUDP, Port: 54, ClusterIPs: []netip.Addr{hA("198.18.30.11")}}))
			assert.Empty(t, cmp.Diff(wantPending, tr.Pending()), "refused endpoints reached a later service")
		})
	}
	t.Run("DeleteService unknown", func(t *testing.T) {
		tr := conntrackorder.NewTracker()
		require.NoError(t, tr.SetService(good))
		d := tr.Desired()
		tr.DeleteService("nope")
		tr.DeleteService("")
		assert.Nil(t, tr.Pending())
		assert.Same(t, d, tr.Desired())
	})
}

// TestHostilePendingOrder: "first the service-IP filters ..., then the NodePort filters ...,
// then the endpoint filters ... Within each group, filters keep the order in which they were
// first collected; ... gone endpoints in ascending address order. Each filter appears once."
func TestHostilePendingOrder(t *testing.T) {
	tr := conntrackorder.NewTracker()
	// b first, then a: collection order, not name order, decides.
	require.NoError(t, tr.SetEndpoints("b", []netip.AddrPort{hAP("198.18.2.23:80"), hAP("198.18.2.21:80"), hAP("198.18.2.22:80")}))
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{
		Name: "b", Protocol: hUDP, Port: 80,
		ClusterIPs: []netip.Addr{hA("198.18.30.20")}, ExternalIPs: []netip.Addr{hA("198.18.40.20")},
		LoadBalancerIPs: []netip.Addr{hA("198.18.50.20")}, NodePort: 31002,
	}))
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: conntrackorder.SCTP, Port: 90, ClusterIPs: []netip.Addr{hA("198.18.30.10")}, NodePort: 31001}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{hAP("198.18.2.10:90")}))
	require.NoError(t, tr.SetEndpoints("b", nil)) // all three gone
	// Re-collecting a pending filter does not move it.
	require.NoError(t, tr.SetEndpoints("b", []netip.AddrPort{hAP("198.18.2.21:80")}))

	u, sc := conntrackorder.UDP, conntrackorder.SCTP
	want := conntrackorder.Plan{
		{Protocol: u, OrigDst: hA("198.18.30.20"), DstPort: 80},
		{Protocol: u, OrigDst: hA("198.18.40.20"), DstPort: 80},
		{Protocol: u, OrigDst: hA("198.18.50.20"), DstPort: 80},
		{Protocol: sc, OrigDst: hA("198.18.30.10"), DstPort: 90},
		{Protocol: u, DstPort: 31002},
		{Protocol: sc, DstPort: 31001},
	}
	for _, ep := range []string{"198.18.2.21", "198.18.2.22", "198.18.2.23"} {
		want = append(want,
			conntrackorder.Filter{Protocol: u, OrigDst: hA("198.18.30.20"), DstPort: 80, ReplySrc: hA(ep)},
			conntrackorder.Filter{Protocol: u, OrigDst: hA("198.18.40.20"), DstPort: 80, ReplySrc: hA(ep)},
			conntrackorder.Filter{Protocol: u, OrigDst: hA("198.18.50.20"), DstPort: 80, ReplySrc: hA(ep)},
			conntrackorder.Filter{Protocol: u, DstPort: 31002, ReplySrc: hA(ep)},
		)
	}
	assert.Empty(t, cmp.Diff(want, tr.Pending()))
}

// TestHostileDualStackEndpointFamilies: "when the first endpoints of a family arrive, the
// service IPs of that family and the NodePort are cleared again", and a gone endpoint collects
// "for every service IP of the endpoint's family".
func TestHostileDualStackEndpointFamilies(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{
		Name: "a", Protocol: hUDP, Port: 53,
		ClusterIPs: []netip.Addr{hA("198.18.30.10"), hA("2001:db8:30::10")}, NodePort: 31000,
	}))
	rec := conntrackordertest.New()
	s := conntrackorder.NewSyncer(tr, hNoProgram, rec)
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{hAP("198.18.2.10:53")}))
	require.NoError(t, s.Sync(context.Background()))

	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{hAP("198.18.2.10:53"), hAP("[2001:db8:2::10]:53")}))
	assert.Empty(t, cmp.Diff(conntrackorder.Plan{
		{Protocol: hUDP, OrigDst: hA("2001:db8:30::10"), DstPort: 53},
		{Protocol: hUDP, DstPort: 31000},
	}, tr.Pending()))
	require.NoError(t, s.Sync(context.Background()))

	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{hAP("198.18.2.10:53")}))
	assert.Empty(t, cmp.Diff(conntrackorder.Plan{
		{Protocol: hUDP, OrigDst: hA("2001:db8:30::10"), DstPort: 53, ReplySrc: hA("2001:db8:2::10")},
		{Protocol: hUDP, DstPort: 31000, ReplySrc: hA("2001:db8:2::10")},
	}, tr.Pending()))
	for _, f := range tr.Pending() {
		require.NoError(t, f.Validate(), "the Tracker never produces a filter Validate refuses")
	}
}

// TestHostileChangesDuringFlushAreClearedLater: "Changes reported to the Tracker while Sync
// runs are cleared by a later Sync, even a filter that is also in the snapshot", here while
// Flush itself runs, and in reconcile mode.
func TestHostileChangesDuringFlushAreClearedLater(t *testing.T) {
	for _, reconcile := range []bool{false, true} {
		t.Run(map[bool]string{false: "flush", true: "reconcile"}[reconcile], func(t *testing.T) {
			tr := conntrackorder.NewTracker()
			// SCTP, so that reconcile mode hands the filters over too.
			sp := conntrackorder.ServicePort{Name: "a", Protocol: conntrackorder.SCTP, Port: 53, ClusterIPs: []netip.Addr{hA("198.18.30.10")}}
			require.NoError(t, tr.SetService(sp))
			require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{hAP("198.18.2.10:53")}))
			snapshot := tr.Pending()
			require.NotEmpty(t, snapshot)
			rec := conntrackordertest.New()
			var once sync.Once
			rec.FailWith(func(ctx context.Context, plan conntrackorder.Plan) error {
				once.Do(func() {
					// The endpoint goes and comes back while the flush runs: the same
					// service-IP filter is collected again.
					require.NoError(t, tr.SetEndpoints("a", nil))
					require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{hAP("198.18.2.10:53")}))
				})
				return nil
			})
			var s *conntrackorder.Syncer
			if reconcile {
				s = conntrackorder.NewReconcileSyncer(tr, hNoProgram, rec)
			} else {
				s = conntrackorder.NewSyncer(tr, hNoProgram, rec)
			}
			require.NoError(t, s.Sync(context.Background()))
			assert.Contains(t, tr.Pending(), snapshot[0], "a filter collected during the flush was dropped")
			assert.Contains(t, tr.Pending(), conntrackorder.Filter{Protocol: conntrackorder.SCTP, OrigDst: hA("198.18.30.10"), DstPort: 53, ReplySrc: hA("198.18.2.10")})
		})
	}
}

// TestHostileFailuresLoseNothingAndKeepOrder: a failed program, then a failed Flush, each
// with new changes in between: "the snapshot stays pending together with whatever was
// collected in the meantime", in Pending's order, each filter once, errors wrapped.
func TestHostileFailuresLoseNothingAndKeepOrder(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: hUDP, Port: 53, ClusterIPs: []netip.Addr{hA("198.18.30.10")}, NodePort: 31000}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{hAP("198.18.2.10:53"), hAP("198.18.2.11:53")}))
	errProgram, errFlush := errors.New("iptables-restore: exit status 4"), errors.New("conntrack: boom")
	failProgram := true
	program := func(context.Context) error {
		if failProgram {
			return errProgram
		}
		return nil
	}
	rec := conntrackordertest.New()
	s := conntrackorder.NewSyncer(tr, program, rec)
	err := s.Sync(context.Background())
	require.ErrorIs(t, err, errProgram)
	assert.Empty(t, rec.Calls(), "Flush ran although program failed")

	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{hAP("198.18.2.10:53")}))
	failProgram = false
	rec.FailNext(1, errFlush)
	require.ErrorIs(t, s.Sync(context.Background()), errFlush)

	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: hUDP, Port: 53, ClusterIPs: []netip.Addr{hA("198.18.30.10")}}))
	want := conntrackorder.Plan{
		{Protocol: hUDP, OrigDst: hA("198.18.30.10"), DstPort: 53},
		{Protocol: hUDP, DstPort: 31000},
		{Protocol: hUDP, OrigDst: hA("198.18.30.10"), DstPort: 53, ReplySrc: hA("198.18.2.11")},
		{Protocol: hUDP, DstPort: 31000, ReplySrc: hA("198.18.2.11")},
	}
	assert.Empty(t, cmp.Diff(want, tr.Pending()))
	require.NoError(t, s.Sync(context.Background()))
	flushed := rec.Flushed()
	require.Len(t, flushed, 1)
	assert.Empty(t, cmp.Diff(want, flushed[0]))
	assert.Nil(t, tr.Pending())
	require.NoError(t, s.Sync(context.Background()))
	assert.Len(t, rec.Calls(), 2, "an empty plan must not be flushed")
}

// TestHostileSyncSerializedUnderConcurrentUpdates: "Sync calls run one at a time" while the
// Tracker is updated concurrently, and every filter collected is flushed by some Sync.
func TestHostileSyncSerializedUnderConcurrentUpdates(t *testing.T) {
	tr := conntrackorder.NewTracker()
	const services = 20
	for i := 0; i < services; i++ {
		require.NoError(t, tr.SetService(conntrackorder.ServicePort{
			Name: string(rune('a' + i)), Protocol: hUDP, Port: 53,
			ClusterIPs: []netip.Addr{netip.AddrFrom4([4]byte{198, 18, 30, byte(i + 1)})},
		}))
	}
	var inProgram, inFlush, overlaps atomic.Int32
	program := func(context.Context) error {
		if inProgram.Add(1) != 1 || inFlush.Load() != 0 {
			overlaps.Add(1)
		}
		defer inProgram.Add(-1)
		return nil
	}
	var mu sync.Mutex
	flushed := map[conntrackorder.Filter]bool{}
	rec := conntrackordertest.New()
	rec.FailWith(func(_ context.Context, plan conntrackorder.Plan) error {
		if inFlush.Add(1) != 1 || inProgram.Load() != 0 {
			overlaps.Add(1)
		}
		defer inFlush.Add(-1)
		mu.Lock()
		defer mu.Unlock()
		for _, f := range plan {
			flushed[f] = true
		}
		return nil
	})
	s := conntrackorder.NewSyncer(tr, program, rec)
	var wg sync.WaitGroup
	for i := 0; i < services; i++ {
		wg.Add(2)
		go func(i int) {
			defer wg.Done()
			assert.NoError(t, tr.SetEndpoints(string(rune('a'+i)), []netip.AddrPort{netip.AddrPortFrom(netip.AddrFrom4([4]byte{198, 18, 2, byte(i + 1)}), 53)}))
		}(i)
		go func() {
			defer wg.Done()
			assert.NoError(t, s.Sync(context.Background()))
		}()
	}
	wg.Wait()
	require.NoError(t, s.Sync(context.Background()))
	assert.Zero(t, overlaps.Load(), "program or Flush ran concurrently with another Sync")
	assert.Nil(t, tr.Pending())
	for i := 0; i < services; i++ {
		f := conntrackorder.Filter{Protocol: hUDP, OrigDst: netip.AddrFrom4([4]byte{198, 18, 30, byte(i + 1)}), DstPort: 53}
		assert.True(t, flushed[f], "filter %v was never flushed", f)
	}
}

// TestHostileWaitingSyncHonoursItsContext: "Sync waits for a running Sync to return first; if
// ctx is done before then, it returns ctx's error and does nothing."
func TestHostileWaitingSyncHonoursItsContext(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: hUDP, Port: 53, ClusterIPs: []netip.Addr{hA("198.18.30.10")}}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{hAP("198.18.2.10:53")}))
	entered, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	program := func(context.Context) error {
		if calls.Add(1) == 1 {
			close(entered)
			<-release
		}
		return nil
	}
	rec := conntrackordertest.New()
	s := conntrackorder.NewSyncer(tr, program, rec)
	done := make(chan error, 1)
	go func() { done <- s.Sync(context.Background()) }()
	<-entered
	ctx, cancel := context.WithCancel(context.Background())
	waited := make(chan error, 1)
	go func() { waited <- s.Sync(ctx) }()
	cancel()
	err := <-waited
	assert.ErrorIs(t, err, context.Canceled)
	close(release)
	require.NoError(t, <-done)
	assert.EqualValues(t, 1, calls.Load(), "the cancelled Sync ran program")
	assert.Len(t, rec.Calls(), 1)
}

// TestHostileCancelledContextReachesTheBackend: "ctx is passed to program, Flush and
// Reconcile", and a Flush that fails with ctx's error keeps the plan pending.
func TestHostileCancelledContextReachesTheBackend(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: hUDP, Port: 53, ClusterIPs: []netip.Addr{hA("198.18.30.10")}}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{hAP("198.18.2.10:53")}))
	want := tr.Pending()
	ctx, cancel := context.WithCancel(context.Background())
	program := func(context.Context) error { cancel(); return nil } // the deadline passes while programming
	rec := conntrackordertest.New()
	s := conntrackorder.NewReconcileSyncer(tr, program, rec)
	err := s.Sync(ctx)
	require.ErrorIs(t, err, context.Canceled)
	assert.True(t, strings.HasPrefix(err.Error(), "conntrackorder: "), "error %q is not wrapped", err)
	assert.Empty(t, cmp.Diff(want, tr.Pending()), "the plan must stay pending after a cancelled reconcile")
}

// TestHostileReconcileCallsEverySyncOnlyWhenThereIsUDP: "It calls Reconcile on every Sync,
// unless no filter is left and the desired state holds no UDP service address or NodePort."
func TestHostileReconcileCallsEverySyncOnlyWhenThereIsUDP(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "t", Protocol: conntrackorder.TCP, Port: 53, ClusterIPs: []netip.Addr{hA("198.18.30.1")}, NodePort: 31000}))
	require.NoError(t, tr.SetEndpoints("t", []netip.AddrPort{hAP("198.18.2.1:53")}))
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "s", Protocol: conntrackorder.SCTP, Port: 53, ClusterIPs: []netip.Addr{hA("198.18.30.1")}}))
	require.NoError(t, tr.SetEndpoints("s", []netip.AddrPort{hAP("198.18.2.1:53")}))
	rec := conntrackordertest.New()
	s := conntrackorder.NewReconcileSyncer(tr, hNoProgram, rec)
	require.NoError(t, s.Sync(context.Background()))
	require.NoError(t, s.Sync(context.Background()))
	calls := rec.Calls()
	require.Len(t, calls, 1, "only the SCTP filters call Reconcile; TCP and SCTP are not in the desired state")
	assert.Empty(t, cmp.Diff(conntrackorder.Plan{{Protocol: conntrackorder.SCTP, OrigDst: hA("198.18.30.1"), DstPort: 53}}, calls[0].Plan),
		"an SCTP filter on a UDP-free address is handed over whole; TCP gives none")
	fam4, fam6 := calls[0].Desired.Families()
	assert.False(t, fam4 || fam6)

	// A UDP port with no endpoints: every Sync reconciles, for the flows that contradict it.
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "u", Protocol: hUDP, Port: 53, ClusterIPs: []netip.Addr{hA("198.18.30.1")}}))
	require.NoError(t, s.Sync(context.Background()))
	require.NoError(t, s.Sync(context.Background()))
	assert.Len(t, rec.Calls(), 3)
	assert.True(t, rec.Calls()[2].Desired.Contradicts(hFlow("198.18.30.1:53", "198.18.2.1:53")))
}

// TestHostileProtocolChangeIsNotCovered: a UDP service port that becomes SCTP on the same
// address and port "collects {OrigDst: IP, DstPort: old port} ... (also when its protocol
// changed)"; the desired state no longer has that UDP destination, so reconcile mode must
// hand the UDP filter over rather than drop it as covered.
func TestHostileProtocolChangeIsNotCovered(t *testing.T) {
	tr := conntrackorder.NewTracker()
	sp := conntrackorder.ServicePort{Name: "a", Protocol: hUDP, Port: 53, ClusterIPs: []netip.Addr{hA("198.18.30.10")}, NodePort: 31000}
	require.NoError(t, tr.SetService(sp))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{hAP("198.18.2.10:53")}))
	rec := conntrackordertest.New()
	s := conntrackorder.NewReconcileSyncer(tr, hNoProgram, rec)
	require.NoError(t, s.Sync(context.Background()))
	sp.Protocol = conntrackorder.SCTP
	require.NoError(t, tr.SetService(sp))
	assert.Subset(t, tr.Pending(), conntrackorder.Plan{
		{Protocol: hUDP, OrigDst: hA("198.18.30.10"), DstPort: 53},
		{Protocol: hUDP, DstPort: 31000},
	})
	require.NoError(t, s.Sync(context.Background()))
	last := rec.Calls()[len(rec.Calls())-1]
	assert.Subset(t, last.Plan, conntrackorder.Plan{
		{Protocol: hUDP, OrigDst: hA("198.18.30.10"), DstPort: 53},
		{Protocol: hUDP, DstPort: 31000},
	}, "the lost UDP destination must be cleared")
	assert.False(t, last.Desired.Keeps(hFlow("198.18.30.10:53", "198.18.2.10:53")), "an SCTP port must not keep UDP flows")
}

// TestHostileMisuseIsRefusedWithAPrefix: the zero or nil Syncer and a nil context return a
// prefixed error and do nothing; typed-nil backends panic in the constructor with a prefix.
func TestHostileMisuseIsRefusedWithAPrefix(t *testing.T) {
	var zero conntrackorder.Syncer
	var nilSyncer *conntrackorder.Syncer
	for name, s := range map[string]*conntrackorder.Syncer{"zero": &zero, "nil": nilSyncer} {
		for _, ctx := range []context.Context{context.Background(), nil} {
			err := s.Sync(ctx) //nolint:staticcheck // a nil context is the point
			require.Error(t, err, name)
			assert.True(t, strings.HasPrefix(err.Error(), "conntrackorder: "), "%s: %q", name, err)
		}
	}
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: hUDP, Port: 53, ClusterIPs: []netip.Addr{hA("198.18.30.10")}}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{hAP("198.18.2.10:53")}))
	var programmed atomic.Int32
	rec := conntrackordertest.New()
	s := conntrackorder.NewSyncer(tr, func(context.Context) error { programmed.Add(1); return nil }, rec)
	err := s.Sync(nil) //nolint:staticcheck // a nil context is the point
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "conntrackorder: "), "%q", err)
	assert.Zero(t, programmed.Load())
	assert.Empty(t, rec.Calls())
	assert.NotEmpty(t, tr.Pending())

	panicsWithPrefix := func(name string, fn func()) {
		t.Helper()
		defer func() {
			r := recover()
			require.NotNil(t, r, "%s did not panic", name)
			msg, _ := r.(string)
			if e, ok := r.(error); ok {
				msg = e.Error()
			}
			assert.True(t, strings.HasPrefix(msg, "conntrackorder: "), "%s panicked with %v", name, r)
		}()
		fn()
	}
	var nilRec *conntrackordertest.Flusher
	var nilExec *ctexec.Flusher
	panicsWithPrefix("NewSyncer(typed nil ctexec)", func() { conntrackorder.NewSyncer(tr, hNoProgram, nilExec) })
	panicsWithPrefix("NewSyncer(typed nil rec)", func() { conntrackorder.NewSyncer(tr, hNoProgram, nilRec) })
	panicsWithPrefix("NewReconcileSyncer(typed nil rec)", func() { conntrackorder.NewReconcileSyncer(tr, hNoProgram, nilRec) })
	panicsWithPrefix("NewSyncer(nil tracker)", func() { conntrackorder.NewSyncer(nil, hNoProgram, rec) })
	panicsWithPrefix("NewReconcileSyncer(nil program)", func() { conntrackorder.NewReconcileSyncer(tr, nil, rec) })
}

// TestHostileZeroTrackerAndNilDesired: "The zero value is an empty Tracker, ready to use" and
// "The zero value and a nil *Desired hold no service and contradict nothing."
func TestHostileZeroTrackerAndNilDesired(t *testing.T) {
	var tr conntrackorder.Tracker
	assert.Nil(t, tr.Pending())
	d := tr.Desired()
	f := hFlow("198.18.30.10:53", "198.18.30.10:53")
	assert.False(t, d.Contradicts(f))
	var nilD *conntrackorder.Desired
	assert.False(t, nilD.Contradicts(f))
	assert.False(t, nilD.Keeps(f))
	var zeroD conntrackorder.Desired
	assert.False(t, zeroD.Contradicts(f))
	v4, v6 := nilD.Families()
	assert.False(t, v4 || v6)
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: hUDP, Port: 53, ClusterIPs: []netip.Addr{hA("2001:db8:30::10")}, NodePort: 31000}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{hAP("[2001:db8:2::10]:53")}))
	v4, v6 = tr.Desired().Families()
	assert.True(t, v4 && v6, "a NodePort counts for both families")
	assert.NotEmpty(t, tr.Pending())
}

// TestHostileTrackerCopiesWhatItIsGiven: "A snapshot reflects every change reported before the
// call, and never a later one": a caller that reuses its slices after SetService and
// SetEndpoints must not change the Tracker's state behind its back.
func TestHostileTrackerCopiesWhatItIsGiven(t *testing.T) {
	tr := conntrackorder.NewTracker()
	ips := []netip.Addr{hA("198.18.30.10")}
	eps := []netip.AddrPort{hAP("198.18.2.10:53")}
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: hUDP, Port: 53, ClusterIPs: ips, NodePort: 31000}))
	require.NoError(t, tr.SetEndpoints("a", eps))
	pending := tr.Pending()
	ips[0], eps[0] = hA("198.18.30.99"), hAP("198.18.2.99:53")
	assert.Empty(t, cmp.Diff(pending, tr.Pending()))
	d := tr.Desired()
	assert.True(t, d.Keeps(hFlow("198.18.30.10:53", "198.18.2.10:53")))
	assert.False(t, d.Keeps(hFlow("198.18.30.99:53", "198.18.2.99:53")))
	// Endpoints given for a name that is not known yet are copied too.
	later := []netip.AddrPort{hAP("198.18.2.20:54")}
	require.NoError(t, tr.SetEndpoints("b", later))
	later[0] = hAP("198.18.2.98:54")
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "b", Protocol: hUDP, Port: 54, ClusterIPs: []netip.Addr{hA("198.18.30.20")}}))
	assert.True(t, tr.Desired().Keeps(hFlow("198.18.30.20:54", "198.18.2.20:54")))
}

// TestHostileReorderedAndDuplicatedInputCollectsNothing: "Duplicates are ignored", "The order
// of the addresses matters only for the order of the filters", "Setting a service port to the
// state it already has collects nothing", and "Each filter appears once".
func TestHostileReorderedAndDuplicatedInputCollectsNothing(t *testing.T) {
	tr := conntrackorder.NewTracker()
	sp := conntrackorder.ServicePort{
		Name: "a", Protocol: hUDP, Port: 53,
		ClusterIPs:      []netip.Addr{hA("198.18.30.10"), hA("2001:db8:30::10")},
		ExternalIPs:     []netip.Addr{hA("198.18.40.10"), hA("198.18.30.10")}, // also a ClusterIP
		LoadBalancerIPs: []netip.Addr{hA("198.18.40.10")},
		NodePort:        31000,
	}
	require.NoError(t, tr.SetService(sp))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{hAP("198.18.2.10:53"), hAP("198.18.2.10:53"), hAP("[2001:db8:2::10]:53")}))
	assert.Empty(t, cmp.Diff(conntrackorder.Plan{
		{Protocol: hUDP, OrigDst: hA("198.18.30.10"), DstPort: 53},
		{Protocol: hUDP, OrigDst: hA("2001:db8:30::10"), DstPort: 53},
		{Protocol: hUDP, OrigDst: hA("198.18.40.10"), DstPort: 53},
		{Protocol: hUDP, DstPort: 31000},
	}, tr.Pending()))
	require.NoError(t, conntrackorder.NewSyncer(tr, hNoProgram, conntrackordertest.New()).Sync(context.Background()))

	re := sp
	re.ClusterIPs = []netip.Addr{hA("2001:db8:30::10"), hA("198.18.30.10"), hA("2001:db8:30::10")}
	re.ExternalIPs = []netip.Addr{hA("198.18.40.10")}
	re.LoadBalancerIPs = []netip.Addr{hA("198.18.40.10"), hA("198.18.40.10")}
	require.NoError(t, tr.SetService(re))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{hAP("[2001:db8:2::10]:53"), hAP("198.18.2.10:53")}))
	assert.Nil(t, tr.Pending(), "the same state, reordered and with duplicates, collected filters")
}

// TestHostileEndpointPortChange: "An endpoint is its address and port; one whose port changed
// has gone." Reconcile mode deletes the flows NATed to the old port and keeps the new ones.
func TestHostileEndpointPortChange(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: hUDP, Port: 53, ClusterIPs: []netip.Addr{hA("198.18.30.10")}, NodePort: 31000}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{hAP("198.18.2.10:53")}))
	require.NoError(t, conntrackorder.NewSyncer(tr, hNoProgram, conntrackordertest.New()).Sync(context.Background()))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{hAP("198.18.2.10:5353")}))
	assert.Empty(t, cmp.Diff(conntrackorder.Plan{
		{Protocol: hUDP, OrigDst: hA("198.18.30.10"), DstPort: 53, ReplySrc: hA("198.18.2.10")},
		{Protocol: hUDP, DstPort: 31000, ReplySrc: hA("198.18.2.10")},
	}, tr.Pending()))
	d := tr.Desired()
	assert.True(t, d.Contradicts(hFlow("198.18.30.10:53", "198.18.2.10:53")))
	assert.True(t, d.Contradicts(hFlow("198.18.1.1:31000", "198.18.2.10:53")))
	assert.True(t, d.Keeps(hFlow("198.18.30.10:53", "198.18.2.10:5353")))
	assert.False(t, d.Contradicts(hFlow("198.18.1.1:31000", "198.18.2.10:5353")))
}

// TestHostileEndpointsBeforeServiceAndRecreation: endpoints may arrive first, may be withdrawn
// before the service arrives, and survive DeleteService ("a service re-created under the same
// name starts with them").
func TestHostileEndpointsBeforeServiceAndRecreation(t *testing.T) {
	sp := conntrackorder.ServicePort{Name: "a", Protocol: hUDP, Port: 53, ClusterIPs: []netip.Addr{hA("198.18.30.10")}, NodePort: 31000}
	t.Run("withdrawn before the service", func(t *testing.T) {
		tr := conntrackorder.NewTracker()
		require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{hAP("198.18.2.10:53")}))
		require.NoError(t, tr.SetEndpoints("a", nil))
		require.NoError(t, tr.SetService(sp))
		assert.Nil(t, tr.Pending())
		assert.True(t, tr.Desired().Contradicts(hFlow("198.18.30.10:53", "198.18.2.10:53")), "the service has no endpoints")
	})
	t.Run("re-created", func(t *testing.T) {
		tr := conntrackorder.NewTracker()
		require.NoError(t, tr.SetService(sp))
		require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{hAP("198.18.2.10:53")}))
		require.NoError(t, conntrackorder.NewSyncer(tr, hNoProgram, conntrackordertest.New()).Sync(context.Background()))
		tr.DeleteService("a")
		assert.Empty(t, cmp.Diff(conntrackorder.Plan{
			{Protocol: hUDP, OrigDst: hA("198.18.30.10"), DstPort: 53},
			{Protocol: hUDP, DstPort: 31000},
		}, tr.Pending()))
		assert.False(t, tr.Desired().Keeps(hFlow("198.18.30.10:53", "198.18.2.10:53")))
		re := sp
		re.ClusterIPs = []netip.Addr{hA("198.18.30.11")}
		require.NoError(t, tr.SetService(re))
		assert.Empty(t, cmp.Diff(conntrackorder.Plan{
			{Protocol: hUDP, OrigDst: hA("198.18.30.10"), DstPort: 53},
			{Protocol: hUDP, OrigDst: hA("198.18.30.11"), DstPort: 53},
			{Protocol: hUDP, DstPort: 31000},
		}, tr.Pending()))
		assert.True(t, tr.Desired().Keeps(hFlow("198.18.30.11:53", "198.18.2.10:53")))
	})
}

// TestHostileSharedExternalIP: "When two service ports claim the same destination, for
// example one external IP given to two services, a flow to it contradicts only if it serves
// neither", also when one of them has no endpoints, and Keeps agrees.
func TestHostileSharedExternalIP(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: hUDP, Port: 53, ExternalIPs: []netip.Addr{hA("198.18.40.1")}}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{hAP("198.18.2.10:53")}))
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "b", Protocol: hUDP, Port: 53, ExternalIPs: []netip.Addr{hA("198.18.40.1")}}))
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "c", Protocol: hUDP, Port: 53, LoadBalancerIPs: []netip.Addr{hA("198.18.40.1")}}))
	require.NoError(t, tr.SetEndpoints("c", []netip.AddrPort{hAP("198.18.2.30:53")}))
	d := tr.Desired()
	for _, ep := range []string{"198.18.2.10:53", "198.18.2.30:53"} {
		f := hFlow("198.18.40.1:53", ep)
		assert.False(t, d.Contradicts(f), "%v", f)
		assert.True(t, d.Keeps(f), "%v", f)
	}
	assert.True(t, d.Contradicts(hFlow("198.18.40.1:53", "198.18.2.99:53")))
	assert.True(t, d.Contradicts(hFlow("198.18.40.1:53", "198.18.40.1:53")))

	// A's deletion collects {198.18.40.1, 53}; the destination is still b's and c's, so
	// reconcile mode judges it by the desired state: c's flow stays, a's goes.
	rec := conntrackordertest.New()
	s := conntrackorder.NewReconcileSyncer(tr, hNoProgram, rec)
	require.NoError(t, s.Sync(context.Background()))
	tr.DeleteService("a")
	require.NoError(t, s.Sync(context.Background()))
	last := rec.Calls()[len(rec.Calls())-1]
	assert.True(t, last.Desired.Contradicts(hFlow("198.18.40.1:53", "198.18.2.10:53")))
	assert.True(t, last.Desired.Keeps(hFlow("198.18.40.1:53", "198.18.2.30:53")))
}

// TestHostilePanickingFlushLosesNothing: "Nothing collected is lost until a flush succeeds."
// A Flush or Reconcile that panics (the caller recovers) must leave the plan pending and the
// Syncer usable: the next Sync must run and flush it.
func TestHostilePanickingFlushLosesNothing(t *testing.T) {
	for _, reconcile := range []bool{false, true} {
		t.Run(map[bool]string{false: "flush", true: "reconcile"}[reconcile], func(t *testing.T) {
			tr := conntrackorder.NewTracker()
			require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: conntrackorder.SCTP, Port: 53, ClusterIPs: []netip.Addr{hA("198.18.30.10")}}))
			require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{hAP("198.18.2.10:53")}))
			want := tr.Pending()
			rec := conntrackordertest.New()
			var panicked atomic.Bool
			rec.FailWith(func(context.Context, conntrackorder.Plan) error {
				if panicked.CompareAndSwap(false, true) {
					panic("backend bug")
				}
				return nil
			})
			s := conntrackorder.NewSyncer(tr, hNoProgram, rec)
			if reconcile {
				s = conntrackorder.NewReconcileSyncer(tr, hNoProgram, rec)
			}
			func() {
				defer func() { assert.Equal(t, "backend bug", recover()) }()
				_ = s.Sync(context.Background())
			}()
			assert.Empty(t, cmp.Diff(want, tr.Pending()), "the plan of a panicking flush was lost")
			require.NoError(t, s.Sync(context.Background()), "the Syncer must still work")
			assert.Nil(t, tr.Pending())
		})
	}
}

// TestHostileMultiProtocolServiceOnOneAddress: a UDP and an SCTP service port on the same
// ClusterIP and port. Reconcile mode hands over "every SCTP filter": the UDP port's presence in
// the desired state must not make the SCTP filters look covered.
func TestHostileMultiProtocolServiceOnOneAddress(t *testing.T) {
	tr := conntrackorder.NewTracker()
	ip := []netip.Addr{hA("198.18.30.10")}
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "ns/a:udp", Protocol: hUDP, Port: 53, ClusterIPs: ip, NodePort: 31000}))
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "ns/a:sctp", Protocol: conntrackorder.SCTP, Port: 53, ClusterIPs: ip, NodePort: 31001}))
	eps := []netip.AddrPort{hAP("198.18.2.10:53")}
	require.NoError(t, tr.SetEndpoints("ns/a:udp", eps))
	require.NoError(t, tr.SetEndpoints("ns/a:sctp", eps))
	rec := conntrackordertest.New()
	s := conntrackorder.NewReconcileSyncer(tr, hNoProgram, rec)
	require.NoError(t, s.Sync(context.Background()))
	require.NoError(t, tr.SetEndpoints("ns/a:sctp", nil))
	d1 := tr.Desired()
	require.NoError(t, s.Sync(context.Background()))
	last := rec.Calls()[len(rec.Calls())-1]
	sc := conntrackorder.SCTP
	assert.Empty(t, cmp.Diff(conntrackorder.Plan{
		{Protocol: sc, OrigDst: hA("198.18.30.10"), DstPort: 53, ReplySrc: hA("198.18.2.10")},
		{Protocol: sc, DstPort: 31001, ReplySrc: hA("198.18.2.10")},
	}, last.Plan))
	assert.Nil(t, tr.Pending())
	assert.Same(t, d1, tr.Desired(), "a Sync changes no desired state")
}

// TestHostileDesiredAllocatesNothing: "Contradicts costs at most three map lookups and
// allocates nothing", "Keeps ... allocates nothing".
func TestHostileDesiredAllocatesNothing(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: hUDP, Port: 53, ClusterIPs: []netip.Addr{hA("198.18.30.10"), hA("2001:db8:30::10")}, NodePort: 31000}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{hAP("198.18.2.10:53"), hAP("[2001:db8:2::10]:53")}))
	d := tr.Desired()
	flows := []conntrackorder.Flow{
		hFlow("198.18.30.10:53", "198.18.2.10:53"),
		hFlow("[2001:db8:30::10]:53", "[2001:db8:30::10]:53"),
		hFlow("198.18.1.1:31000", "198.18.2.99:53"),
		hFlow("198.18.99.1:9", "198.18.99.1:9"),
	}
	var sink bool
	allocs := testing.AllocsPerRun(100, func() {
		for _, f := range flows {
			sink = sink != d.Contradicts(f)
			sink = sink != d.Keeps(f)
		}
	})
	assert.Zero(t, allocs)
}

// TestHostileFilterWords: Filter.String "returns the filter in conntrack(8)'s words", Protocol's
// String "An unknown value gives protocol(N)", and Validate refuses a bad ReplySrc as it does a
// bad OrigDst.
func TestHostileFilterWords(t *testing.T) {
	assert.Equal(t, "udp orig-dst 172.30.0.41 dport 80", conntrackorder.Filter{Protocol: hUDP, OrigDst: hA("172.30.0.41"), DstPort: 80}.String())
	assert.Equal(t, "udp dport 31201 dst-nat 10.180.0.1", conntrackorder.Filter{Protocol: hUDP, DstPort: 31201, ReplySrc: hA("10.180.0.1")}.String())
	assert.Equal(t, "protocol(9)", conntrackorder.Protocol(9).String())
	assert.Equal(t, "protocol(0)", conntrackorder.Protocol(0).String())
	assert.Equal(t, "sctp", conntrackorder.SCTP.String())
	for _, bad := range []conntrackorder.Filter{
		{Protocol: hUDP, DstPort: 53, ReplySrc: hA("::ffff:10.0.0.1")},
		{Protocol: hUDP, DstPort: 53, ReplySrc: hA("fe80::1%eth0")},
		{Protocol: hUDP, DstPort: 53, ReplySrc: hA("0.0.0.0")},
		{Protocol: conntrackorder.SCTP, OrigDst: hA("2001:db8::1"), ReplySrc: hA("10.0.0.1")},
		{Protocol: 0, DstPort: 53},
		{Protocol: conntrackorder.TCP},
	} {
		err := bad.Validate()
		require.Error(t, err, "%v", bad)
		assert.True(t, strings.HasPrefix(err.Error(), "conntrackorder: "), "%q", err)
	}
	assert.NoError(t, conntrackorder.Filter{Protocol: conntrackorder.TCP, DstPort: 53}.Validate())
	assert.NoError(t, conntrackorder.Filter{Protocol: hUDP, ReplySrc: hA("2001:db8::1")}.Validate())
	assert.True(t, conntrackorder.Filter{Protocol: hUDP, ReplySrc: hA("2001:db8::1")}.Is6())
	assert.False(t, conntrackorder.Filter{Protocol: hUDP, DstPort: 53}.Is6())
}

// TestHostileUpdateCostDoesNotFollowTheServices: "The cost of an update follows the size of the
// change, and the cost of Tracker.Pending the number of pending filters, not the number of
// services held." One service's endpoints flapping, and Pending, allocate as much with 5,000
// other services held as with 10.
func TestHostileUpdateCostDoesNotFollowTheServices(t *testing.T) {
	measure := func(services int) float64 {
		tr := conntrackorder.NewTracker()
		for i := 0; i < services; i++ {
			ip := netip.AddrFrom4([4]byte{198, 18, byte(30 + i/250), byte(1 + i%250)})
			name := "svc" + string(rune('A'+i%26)) + netip.AddrPortFrom(ip, 0).String()
			if i == 0 {
				name = "flapping"
			}
			require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: name, Protocol: hUDP, Port: 53, ClusterIPs: []netip.Addr{ip}, NodePort: uint16(30000 + i%2000)}))
			require.NoError(t, tr.SetEndpoints(name, []netip.AddrPort{netip.AddrPortFrom(netip.AddrFrom4([4]byte{198, 19, byte(i / 250), byte(1 + i%250)}), 53)}))
		}
		require.NoError(t, conntrackorder.NewSyncer(tr, hNoProgram, conntrackordertest.New()).Sync(context.Background()))
		a := []netip.AddrPort{hAP("198.18.2.1:53")}
		b := []netip.AddrPort{hAP("198.18.2.2:53")}
		flap := func() {
			require.NoError(t, tr.SetEndpoints("flapping", a))
			require.NoError(t, tr.SetEndpoints("flapping", b))
			_ = tr.Pending()
		}
		flap()
		var before, after runtime.MemStats
		const runs = 20
		runtime.ReadMemStats(&before)
		for i := 0; i < runs; i++ {
			flap()
		}
		runtime.ReadMemStats(&after)
		return float64(after.TotalAlloc-before.TotalAlloc) / runs
	}
	small, big := measure(10), measure(5000)
	t.Logf("bytes per flap and Pending: %v with 10 services, %v with 5000", small, big)
	assert.Less(t, big, 2*small+4096, "an update's cost grows with the services held: %v bytes with 10, %v with 5000", small, big)
}

// TestHostileGoneEndpointsInAddressOrderAcrossFamilies: "gone endpoints in ascending address
// order", each with "every service IP of the endpoint's family, then {DstPort: NodePort,
// ReplySrc: endpoint IP}", also when the last endpoints of both families go at once.
func TestHostileGoneEndpointsInAddressOrderAcrossFamilies(t *testing.T) {
	tr := conntrackorder.NewTracker()
	v4, v6 := hA("198.18.30.10"), hA("2001:db8:30::10")
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: hUDP, Port: 53, ClusterIPs: []netip.Addr{v6, v4}, NodePort: 31000}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{hAP("[2001:db8:2::1]:53"), hAP("198.18.2.20:53"), hAP("198.18.2.3:53")}))
	require.NoError(t, conntrackorder.NewSyncer(tr, hNoProgram, conntrackordertest.New()).Sync(context.Background()))
	require.NoError(t, tr.SetEndpoints("a", nil))
	f := func(dst netip.Addr, port uint16, ep string) conntrackorder.Filter {
		return conntrackorder.Filter{Protocol: hUDP, OrigDst: dst, DstPort: port, ReplySrc: hA(ep)}
	}
	assert.Empty(t, cmp.Diff(conntrackorder.Plan{
		f(v4, 53, "198.18.2.3"), f(netip.Addr{}, 31000, "198.18.2.3"),
		f(v4, 53, "198.18.2.20"), f(netip.Addr{}, 31000, "198.18.2.20"),
		f(v6, 53, "2001:db8:2::1"), f(netip.Addr{}, 31000, "2001:db8:2::1"),
	}, tr.Pending()))
}

// TestHostileLossWithoutEndpoints: a service port that never had endpoints still collects its
// lost addresses, port and NodePort ("whether or not it had endpoints"), and DeleteService
// collects for each of its addresses: an un-NATed entry left while it had no endpoints would
// otherwise catch the next service on that address. TCP collects nothing.
func TestHostileLossWithoutEndpoints(t *testing.T) {
	tr := conntrackorder.NewTracker()
	sp := conntrackorder.ServicePort{Name: "a", Protocol: hUDP, Port: 53, ClusterIPs: []netip.Addr{hA("198.18.30.10")}, ExternalIPs: []netip.Addr{hA("198.18.40.10")}, NodePort: 31000}
	require.NoError(t, tr.SetService(sp))
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "t", Protocol: conntrackorder.TCP, Port: 53, ClusterIPs: []netip.Addr{hA("198.18.30.11")}, NodePort: 31001}))
	assert.Nil(t, tr.Pending())
	changed := sp
	changed.ExternalIPs, changed.NodePort, changed.Port = nil, 31002, 54
	require.NoError(t, tr.SetService(changed))
	assert.Empty(t, cmp.Diff(conntrackorder.Plan{
		{Protocol: hUDP, OrigDst: hA("198.18.30.10"), DstPort: 53},
		{Protocol: hUDP, OrigDst: hA("198.18.40.10"), DstPort: 53},
		{Protocol: hUDP, DstPort: 31000},
	}, tr.Pending()))
	tr.DeleteService("a")
	tr.DeleteService("t")
	assert.Empty(t, cmp.Diff(conntrackorder.Plan{
		{Protocol: hUDP, OrigDst: hA("198.18.30.10"), DstPort: 53},
		{Protocol: hUDP, OrigDst: hA("198.18.40.10"), DstPort: 53},
		{Protocol: hUDP, OrigDst: hA("198.18.30.10"), DstPort: 54},
		{Protocol: hUDP, DstPort: 31000},
		{Protocol: hUDP, DstPort: 31002},
	}, tr.Pending()))
}
