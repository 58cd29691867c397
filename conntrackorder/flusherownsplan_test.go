package conntrackorder_test

// The Syncer's "nothing is lost" promises, against a Flusher or Reconciler that treats the
// plan it is handed as its own, as the Syncer now lets it (it hands over the snapshot itself,
// not a copy): it rewrites it, reorders it, appends to it, keeps it and rewrites it later. Nothing in the Flusher or Reconciler docs forbids that, and
// "Nothing collected is lost until a flush succeeds", "the snapshot stays pending together
// with whatever was collected in the meantime", and Pending's order and de-duplication must
// hold whatever the backend did with its slice.

import (
	"context"
	"errors"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/conntrackorder/conntrackordertest"
)

// junkFilter is what a scribbling backend writes: a valid filter no Tracker here collects.
var junkFilter = conntrackorder.Filter{Protocol: conntrackorder.UDP, OrigDst: netip.MustParseAddr("198.51.100.77"), DstPort: 9}

// scribbles are ways a backend may treat the plan slice it is handed.
var scribbles = []struct {
	name string
	do   func(p conntrackorder.Plan)
}{
	{"zero every filter", func(p conntrackorder.Plan) {
		for i := range p {
			p[i] = conntrackorder.Filter{}
		}
	}},
	{"overwrite with junk", func(p conntrackorder.Plan) {
		for i := range p {
			p[i] = junkFilter
		}
	}},
	{"reverse", func(p conntrackorder.Plan) {
		for i, j := 0, len(p)-1; i < j; i, j = i+1, j-1 {
			p[i], p[j] = p[j], p[i]
		}
	}},
	{"append into spare capacity", func(p conntrackorder.Plan) {
		q := p
		for len(q) < cap(q) {
			q = append(q, junkFilter)
		}
	}},
	{"reuse as a scratch buffer", func(p conntrackorder.Plan) {
		q := p[:0]
		for i := 0; i < cap(p); i++ {
			q = append(q, junkFilter)
		}
		_ = q
	}},
}

// ownerBackend is a Flusher and Reconciler that records a copy of each plan it is handed,
// runs during (changes reported while the Sync runs) on another goroutine, then scribbles on
// the plan, keeps it, and returns err.
type ownerBackend struct {
	mu       sync.Mutex
	during   func()
	scribble func(conntrackorder.Plan)
	err      error
	got      []conntrackorder.Plan
	kept     []conntrackorder.Plan
	stuck    bool // during did not return while the backend ran: the Tracker was locked
}

func (b *ownerBackend) Flush(ctx context.Context, plan conntrackorder.Plan) error {
	return b.Reconcile(ctx, plan, nil)
}

func (b *ownerBackend) Reconcile(_ context.Context, plan conntrackorder.Plan, _ *conntrackorder.Desired) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.got = append(b.got, append(conntrackorder.Plan(nil), plan...))
	if b.during != nil {
		done := make(chan struct{})
		go func() { defer close(done); b.during() }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			b.stuck = true
		}
	}
	if b.scribble != nil {
		b.scribble(plan)
	}
	b.kept = append(b.kept, plan)
	return b.err
}

// ownerPhase1 and ownerPhase2 are two batches of changes. ownerPhase2 re-collects filters
// ownerPhase1 collected (epA and epA6 go again) and collects new ones.
func ownerPhase1(t *testing.T, tr *conntrackorder.Tracker) {
	u := conntrackorder.UDP
	sp := staleUDPService()
	sp.ClusterIPs = []netip.Addr{svcIP, svcIP6}
	require.NoError(t, tr.SetService(sp))
	require.NoError(t, tr.SetEndpoints(svcName, []netip.AddrPort{epA, epB, epA6}))
	require.NoError(t, tr.SetEndpoints(svcName, []netip.AddrPort{epB}))
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "ns/sctp:p", Protocol: conntrackorder.SCTP, Port: 3868,
		ClusterIPs: []netip.Addr{netip.MustParseAddr("172.30.0.88")}, NodePort: 31868}))
	require.NoError(t, tr.SetEndpoints("ns/sctp:p", []netip.AddrPort{netip.MustParseAddrPort("10.180.9.1:3868")}))
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "ns/other:p", Protocol: u, Port: 5353,
		ClusterIPs: []netip.Addr{netip.MustParseAddr("172.30.0.99")}, NodePort: 31999}))
}

func ownerPhase2(t *testing.T, tr *conntrackorder.Tracker) {
	assert.NoError(t, tr.SetEndpoints(svcName, []netip.AddrPort{epA, epA6}))
	assert.NoError(t, tr.SetEndpoints(svcName, []netip.AddrPort{netip.MustParseAddrPort("10.180.0.3:80")}))
	tr.DeleteService("ns/sctp:p")
	assert.NoError(t, tr.SetEndpoints("ns/new:p", []netip.AddrPort{netip.MustParseAddrPort("10.180.7.1:53")}))
	assert.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "ns/new:p", Protocol: conntrackorder.UDP, Port: 53,
		ClusterIPs: []netip.Addr{netip.MustParseAddr("172.30.0.77")}, NodePort: 31777}))
	tr.DeleteService("ns/other:p")
}

// ownerReference returns the Pending plan of a Tracker that went through phase 1, was synced
// (flushed) or not, and then went through phase 2.
func ownerReference(t *testing.T, flushedBetween bool) conntrackorder.Plan {
	tr := conntrackorder.NewTracker()
	ownerPhase1(t, tr)
	if flushedBetween {
		drain(t, tr)
	}
	ownerPhase2(t, tr)
	return tr.Pending()
}

func ownerGroup(f conntrackorder.Filter) int {
	switch {
	case f.ReplySrc.IsValid():
		return 2
	case f.OrigDst.IsValid():
		return 0
	default:
		return 1
	}
}

// requirePlanShape checks what Pending promises of any plan: each filter once, the three groups
// in order, and only filters a Tracker produces.
func requirePlanShape(t *testing.T, p conntrackorder.Plan, what string) {
	t.Helper()
	seen := map[conntrackorder.Filter]bool{}
	last := 0
	for i, f := range p {
		assert.False(t, seen[f], "%s: %v appears twice", what, f)
		seen[f] = true
		g := ownerGroup(f)
		assert.GreaterOrEqual(t, g, last, "%s: filter %d (%v) is out of its group's place", what, i, f)
		last = g
		assert.NoError(t, f.Validate(), "%s: filter %d", what, i)
		assert.Contains(t, []conntrackorder.Protocol{conntrackorder.UDP, conntrackorder.SCTP}, f.Protocol, "%s: filter %d", what, i)
		assert.NotEqual(t, junkFilter, f, "%s: the backend's junk is pending", what)
	}
}

// A Flush or Reconcile that rewrites its plan while changes arrive and then fails: the
// snapshot stays pending, with the changes, each filter once and in collection order, exactly
// as if no Sync had run; the next Sync hands the backend that plan, intact.
func TestBackendScribblingOnAFailedPlanLosesNothing(t *testing.T) {
	want := ownerReference(t, false)
	for _, mode := range []string{"flush", "reconcile"} {
		for _, sc := range scribbles {
			t.Run(mode+"/"+sc.name, func(t *testing.T) {
				tr := conntrackorder.NewTracker()
				ownerPhase1(t, tr)
				snapshot := tr.Pending()
				errBackend := errors.New("netlink: no buffer space")
				b := &ownerBackend{during: func() { ownerPhase2(t, tr) }, scribble: sc.do, err: errBackend}
				s := conntrackorder.NewSyncer(tr, programNothing, b)
				if mode == "reconcile" {
					s = conntrackorder.NewReconcileSyncer(tr, programNothing, b)
				}
				require.ErrorIs(t, s.Sync(context.Background()), errBackend)
				require.False(t, b.stuck, "changes could not be reported while the backend ran")
				require.Len(t, b.got, 1)
				if mode == "flush" {
					assert.Empty(t, cmp.Diff(snapshot, b.got[0]), "Flush is handed the pending plan")
				}

				assert.Empty(t, cmp.Diff(want, tr.Pending()), "pending after a failed %s that scribbled", mode)
				requirePlanShape(t, tr.Pending(), "pending")

				// The backend scribbles again, later, on the slice it kept.
				sc.do(b.kept[0])
				assert.Empty(t, cmp.Diff(want, tr.Pending()), "pending after the backend rewrote the slice it kept")

				rec := conntrackordertest.New()
				require.NoError(t, conntrackorder.NewSyncer(tr, programNothing, rec).Sync(context.Background()))
				require.Len(t, rec.Flushed(), 1)
				assert.Empty(t, cmp.Diff(want, rec.Flushed()[0]), "the retry flushes the whole plan, intact")
				assert.Nil(t, tr.Pending())
			})
		}
	}
}

// A Flush that rewrites its plan while changes arrive and then succeeds: what arrived during
// the flush stays pending ("even a filter that is also in the snapshot"), uncorrupted.
func TestBackendScribblingOnASuccessfulPlanLosesNothing(t *testing.T) {
	want := ownerReference(t, true)
	for _, mode := range []string{"flush", "reconcile"} {
		for _, sc := range scribbles {
			t.Run(mode+"/"+sc.name, func(t *testing.T) {
				tr := conntrackorder.NewTracker()
				ownerPhase1(t, tr)
				b := &ownerBackend{during: func() { ownerPhase2(t, tr) }, scribble: sc.do}
				s := conntrackorder.NewSyncer(tr, programNothing, b)
				if mode == "reconcile" {
					s = conntrackorder.NewReconcileSyncer(tr, programNothing, b)
				}
				require.NoError(t, s.Sync(context.Background()))
				require.False(t, b.stuck, "changes could not be reported while the backend ran")

				got := tr.Pending()
				assert.ElementsMatch(t, want, got, "pending after a successful %s that scribbled: what arrived meanwhile", mode)
				requirePlanShape(t, got, "pending")

				sc.do(b.kept[0])
				assert.Empty(t, cmp.Diff(got, tr.Pending()), "pending after the backend rewrote the slice it kept")
				requirePlanShape(t, tr.Pending(), "pending")
			})
		}
	}
}

// A backend that keeps the plan of a successful or failed Sync and rewrites it after Sync
// returned, while the Tracker collects more: the Tracker's pending plan is its own.
func TestBackendRewritingAKeptPlanLaterCorruptsNothing(t *testing.T) {
	for _, fail := range []bool{false, true} {
		want := ownerReference(t, !fail)
		for _, sc := range scribbles {
			name := sc.name + "/after success"
			if fail {
				name = sc.name + "/after failure"
			}
			t.Run(name, func(t *testing.T) {
				tr := conntrackorder.NewTracker()
				ownerPhase1(t, tr)
				b := &ownerBackend{}
				if fail {
					b.err = errors.New("flush failed")
				}
				err := conntrackorder.NewSyncer(tr, programNothing, b).Sync(context.Background())
				require.Equal(t, fail, err != nil, "%v", err)
				ownerPhase2(t, tr)
				// Scribble between every change too.
				sc.do(b.kept[0])
				assert.Empty(t, cmp.Diff(want, tr.Pending()), "pending after the backend rewrote the plan it kept")
				require.NoError(t, tr.SetEndpoints("ns/new:p", nil))
				sc.do(b.kept[0])
				require.NoError(t, tr.SetEndpoints("ns/new:p", []netip.AddrPort{netip.MustParseAddrPort("10.180.7.1:53")}))
				sc.do(b.kept[0])
				requirePlanShape(t, tr.Pending(), "pending")
				assert.Contains(t, tr.Pending(), conntrackorder.Filter{Protocol: conntrackorder.UDP,
					OrigDst: netip.MustParseAddr("172.30.0.77"), DstPort: 53, ReplySrc: netip.MustParseAddr("10.180.7.1")})
				for _, f := range want {
					assert.Contains(t, tr.Pending(), f, "lost")
				}

				// The next Sync hands a clean plan, equal to Pending.
				before := tr.Pending()
				b2 := &ownerBackend{scribble: sc.do}
				require.NoError(t, conntrackorder.NewSyncer(tr, programNothing, b2).Sync(context.Background()))
				require.Len(t, b2.got, 1)
				assert.Empty(t, cmp.Diff(before, b2.got[0]))
				assert.Nil(t, tr.Pending())
			})
		}
	}
}

// A Flusher that fails several times in a row, scribbling every time, while a filter already
// in the snapshot is collected again each time: it stays once, in its first place.
func TestRepeatedFailuresWithRecollectionKeepOneCopyInPlace(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(staleUDPService()))
	require.NoError(t, tr.SetEndpoints(svcName, []netip.AddrPort{epA, epB}))
	require.NoError(t, tr.SetEndpoints(svcName, []netip.AddrPort{epB}))
	first := tr.Pending()
	require.Empty(t, cmp.Diff(concat(conntrackorder.Plan{fSvcIP, fExtIP, fLBIP, fNodePort}, endpointFilters(epA)), first))
	for i, sc := range scribbles {
		b := &ownerBackend{scribble: sc.do, err: errors.New("fail"), during: func() {
			// epA comes back and goes again: its filters, already pending, are collected again.
			assert.NoError(t, tr.SetEndpoints(svcName, []netip.AddrPort{epA, epB}))
			assert.NoError(t, tr.SetEndpoints(svcName, []netip.AddrPort{epB}))
		}}
		require.Error(t, conntrackorder.NewSyncer(tr, programNothing, b).Sync(context.Background()))
		assert.Empty(t, cmp.Diff(first, tr.Pending()), "round %d (%s)", i, sc.name)
	}
}
