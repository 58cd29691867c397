package conntrackorder_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/conntrackorder/conntrackordertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Syncer: programs, then flushes or reconciles what the Tracker collected, serialized, and
// loses nothing when a step fails, panics or is cancelled.

// TestFailedProgramLosesNothing: when iptables-restore failed, kube-proxy dropped the changes
// it had collected, and nothing cleared those entries later (kubernetes#112604).
func TestFailedProgramLosesNothing(t *testing.T) {
	h := newSyncHarness()
	require.NoError(t, h.tracker.SetService(staleUDPService()))
	require.NoError(t, h.tracker.SetEndpoints(svcName, []netip.AddrPort{epA}))
	errRestore := errors.New("iptables-restore: line 7 failed")
	h.programErr = errRestore

	err := h.syncer.Sync(context.Background())
	require.ErrorIs(t, err, errRestore)
	assert.EqualError(t, err, "conntrackorder: program: iptables-restore: line 7 failed")
	assert.Equal(t, []string{"program"}, h.takeEvents(), "no flush without rules")
	want := conntrackorder.Plan{fSvcIP, fExtIP, fLBIP, fNodePort}
	if diff := cmp.Diff(want, h.tracker.Pending()); diff != "" {
		t.Errorf("Pending (-want +got):\n%s", diff)
	}

	require.NoError(t, h.syncer.Sync(context.Background()))
	assert.Equal(t, []string{"program", "flush 4"}, h.takeEvents())
	if diff := cmp.Diff([]conntrackorder.Plan{want}, h.flushed()); diff != "" {
		t.Errorf("flushed (-want +got):\n%s", diff)
	}
}

// TestFailedFlushLosesNothing: a flush that fails leaves its plan pending, merged with what
// arrived since, each filter once and in flush order.
func TestFailedFlushLosesNothing(t *testing.T) {
	h := newSyncHarness()
	require.NoError(t, h.tracker.SetService(staleUDPService()))
	require.NoError(t, h.tracker.SetEndpoints(svcName, []netip.AddrPort{epA}))
	errFlush := errors.New("conntrack: operation not permitted")
	h.flusher.FailNext(1, errFlush)

	err := h.syncer.Sync(context.Background())
	require.ErrorIs(t, err, errFlush)
	assert.EqualError(t, err, "conntrackorder: flush: conntrack: operation not permitted")

	// Meanwhile epA goes and comes back, and the service is deleted.
	require.NoError(t, h.tracker.SetEndpoints(svcName, nil))
	require.NoError(t, h.tracker.SetEndpoints(svcName, []netip.AddrPort{epA}))
	h.tracker.DeleteService(svcName)

	require.NoError(t, h.syncer.Sync(context.Background()))
	want := []conntrackorder.Plan{concat(conntrackorder.Plan{fSvcIP, fExtIP, fLBIP, fNodePort}, endpointFilters(epA))}
	if diff := cmp.Diff(want, h.flushed()); diff != "" {
		t.Errorf("flushed (-want +got):\n%s", diff)
	}
	assert.Empty(t, h.tracker.Pending())
}

func TestSyncFlushesOnlyAfterProgramming(t *testing.T) {
	h := newSyncHarness()
	require.NoError(t, h.tracker.SetService(staleUDPService()))
	require.NoError(t, h.tracker.SetEndpoints(svcName, []netip.AddrPort{epA}))
	require.NoError(t, h.syncer.Sync(context.Background()))
	assert.Equal(t, []string{"program", "flush 4"}, h.takeEvents())
}

func TestSyncEmptyPlanDoesNotFlush(t *testing.T) {
	h := newSyncHarness()
	require.NoError(t, h.tracker.SetService(staleUDPService()))
	require.NoError(t, h.syncer.Sync(context.Background()))
	assert.Equal(t, []string{"program"}, h.takeEvents(), "programs, does not flush")
	assert.Empty(t, h.flusher.Calls())
}

// TestSyncUpdatesDuringSyncAreFlushedLater covers filters collected while a Sync runs, also
// one that is in the snapshot already: it may describe a change the rules just programmed do
// not have, so it must be flushed after the next programming.
func TestSyncUpdatesDuringSyncAreFlushedLater(t *testing.T) {
	h := newSyncHarness()
	require.NoError(t, h.tracker.SetService(staleUDPService()))
	require.NoError(t, h.tracker.SetEndpoints(svcName, []netip.AddrPort{epA}))
	require.NoError(t, h.tracker.SetEndpoints(svcName, []netip.AddrPort{epB}))
	first := concat(conntrackorder.Plan{fSvcIP, fExtIP, fLBIP, fNodePort}, endpointFilters(epA))

	h.flusher.FailWith(func(context.Context, conntrackorder.Plan) error {
		// A change arrives after programming, while the flush runs: epB goes, and epA comes
		// and goes again, which collects epA's filters, already in this plan, once more.
		require.NoError(t, h.tracker.SetEndpoints(svcName, []netip.AddrPort{epA}))
		require.NoError(t, h.tracker.SetEndpoints(svcName, nil))
		return nil
	})
	require.NoError(t, h.syncer.Sync(context.Background()))
	h.flusher.FailWith(nil)
	if diff := cmp.Diff([]conntrackorder.Plan{first}, h.flushed()); diff != "" {
		t.Errorf("first flush (-want +got):\n%s", diff)
	}
	second := concat(endpointFilters(epA), endpointFilters(epB))
	if diff := cmp.Diff(second, h.tracker.Pending()); diff != "" {
		t.Errorf("pending after the first Sync (-want +got):\n%s", diff)
	}

	require.NoError(t, h.syncer.Sync(context.Background()))
	if diff := cmp.Diff([]conntrackorder.Plan{second}, h.flushed()); diff != "" {
		t.Errorf("second flush (-want +got):\n%s", diff)
	}
	assert.Empty(t, h.tracker.Pending())
}

func TestSyncProgramPanicKeepsThePlan(t *testing.T) {
	h := newSyncHarness()
	require.NoError(t, h.tracker.SetService(staleUDPService()))
	require.NoError(t, h.tracker.SetEndpoints(svcName, []netip.AddrPort{epA}))
	h.onProgram = func() { panic("boom") }
	assert.PanicsWithValue(t, "boom", func() { _ = h.syncer.Sync(context.Background()) })
	h.onProgram = nil
	assert.Len(t, h.tracker.Pending(), 4)
	require.NoError(t, h.syncer.Sync(context.Background()), "the panic released the Syncer")
	assert.Empty(t, h.tracker.Pending())
}

func TestSyncCallsAreSerialized(t *testing.T) {
	tr := conntrackorder.NewTracker()
	var running, overlaps, calls atomic.Int32
	program := func(context.Context) error {
		if running.Add(1) > 1 {
			overlaps.Add(1)
		}
		calls.Add(1)
		for i := 0; i < 100; i++ {
			_ = tr.Pending() // take a little while, without sleeping
		}
		running.Add(-1)
		return nil
	}
	s := conntrackorder.NewSyncer(tr, program, conntrackordertest.New())
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				assert.NoError(t, s.Sync(context.Background()))
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, int32(160), calls.Load())
	assert.Zero(t, overlaps.Load())
}

func TestSyncWaitingForARunningSyncHonoursTheContext(t *testing.T) {
	tr := conntrackorder.NewTracker()
	entered, release := make(chan struct{}), make(chan struct{})
	s := conntrackorder.NewSyncer(tr, func(context.Context) error {
		close(entered)
		<-release
		return nil
	}, conntrackordertest.New())
	done := make(chan error)
	go func() { done <- s.Sync(context.Background()) }()
	<-entered

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := s.Sync(ctx)
	require.ErrorIs(t, err, context.Canceled)
	assert.EqualError(t, err, "conntrackorder: sync: context canceled")

	close(release)
	require.NoError(t, <-done)
}

func TestSyncWithADoneContextDoesNothing(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "ns/dns:dns", Protocol: conntrackorder.UDP, Port: 53, NodePort: 30053}))
	require.NoError(t, tr.SetEndpoints("ns/dns:dns", []netip.AddrPort{netip.MustParseAddrPort("10.180.0.1:53")}))
	programs := 0
	f := conntrackordertest.New()
	s := conntrackorder.NewSyncer(tr, func(context.Context) error { programs++; return nil }, f)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for i := 0; i < 100; i++ { // no Sync is running: a select alone would pick at random
		require.ErrorIs(t, s.Sync(ctx), context.Canceled)
	}
	assert.Zero(t, programs)
	assert.Empty(t, f.Calls())
	assert.Len(t, tr.Pending(), 1, "the plan stays pending")
}

func TestNewSyncerPanicsOnNil(t *testing.T) {
	tr := conntrackorder.NewTracker()
	program := func(context.Context) error { return nil }
	f := conntrackordertest.New()
	const msg = "conntrackorder: NewSyncer needs a tracker, a program function and a flusher"
	assert.PanicsWithValue(t, msg, func() { conntrackorder.NewSyncer(nil, program, f) })
	assert.PanicsWithValue(t, msg, func() { conntrackorder.NewSyncer(tr, nil, f) })
	assert.PanicsWithValue(t, msg, func() { conntrackorder.NewSyncer(tr, program, nil) })
}

// TestConcurrentUpdatesDuringSync updates the Tracker from several goroutines while Syncs run,
// some of them failing. Once the updates stop and one more Sync succeeds, nothing is pending,
// and every filter the updates collected has been flushed at least once.
func TestConcurrentUpdatesDuringSync(t *testing.T) {
	tr := conntrackorder.NewTracker()
	f := conntrackordertest.New()
	var n atomic.Int32
	f.FailWith(func(context.Context, conntrackorder.Plan) error {
		if n.Add(1)%3 == 0 {
			return errors.New("conntrack: interrupted")
		}
		return nil
	})
	s := conntrackorder.NewSyncer(tr, func(context.Context) error { return nil }, f)

	const workers, rounds = 4, 200
	// Each worker owns one service, so replaying its updates alone on a fresh Tracker
	// collects the filters it is responsible for.
	ops := make([][]func(*conntrackorder.Tracker), workers)
	for w := 0; w < workers; w++ {
		rnd := rand.New(rand.NewSource(int64(w)))
		sp := staleUDPService()
		sp.Name = fmt.Sprintf("ns/svc%d:p", w)
		sp.ClusterIPs = []netip.Addr{netip.AddrFrom4([4]byte{172, 30, 1, byte(w)})}
		sp.NodePort = uint16(30000 + w)
		pool := []netip.AddrPort{epA, epB, netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 1, byte(w), 1}), 80)}
		for i := 0; i < rounds; i++ {
			switch rnd.Intn(4) {
			case 0:
				sp := sp
				sp.Port = uint16(80 + rnd.Intn(2))
				ops[w] = append(ops[w], func(tr *conntrackorder.Tracker) { _ = tr.SetService(sp) })
			case 1:
				ops[w] = append(ops[w], func(tr *conntrackorder.Tracker) { tr.DeleteService(sp.Name) })
			default:
				var eps []netip.AddrPort
				for _, e := range pool {
					if rnd.Intn(2) == 0 {
						eps = append(eps, e)
					}
				}
				ops[w] = append(ops[w], func(tr *conntrackorder.Tracker) { _ = tr.SetEndpoints(sp.Name, eps) })
			}
		}
	}

	stop := make(chan struct{})
	syncDone := make(chan struct{})
	go func() {
		defer close(syncDone)
		for {
			select {
			case <-stop:
				return
			default:
				_ = s.Sync(context.Background())
			}
		}
	}()
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for _, op := range ops[w] {
				op(tr)
				_ = tr.Pending()
			}
		}(w)
	}
	wg.Wait()
	close(stop)
	<-syncDone
	f.FailWith(nil)
	require.NoError(t, s.Sync(context.Background()))
	assert.Empty(t, tr.Pending())

	want := map[conntrackorder.Filter]bool{}
	for w := 0; w < workers; w++ {
		replay := conntrackorder.NewTracker()
		for _, op := range ops[w] {
			op(replay)
			for _, flt := range replay.Pending() {
				want[flt] = true
			}
		}
	}
	got := map[conntrackorder.Filter]bool{}
	for _, p := range f.Flushed() {
		for _, flt := range p {
			got[flt] = true
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("filters flushed at least once (-want +got):\n%s", diff)
	}
}

// TestBadInputToSyncAndNewSyncer: misuse of a Syncer is a clear error, or for a constructor
// argument a prefixed panic, never a hang or a nil dereference; nothing changes.
func TestBadInputToSyncAndNewSyncer(t *testing.T) {
	ctx := context.Background()
	t.Run("zero Syncer", func(t *testing.T) {
		var s conntrackorder.Syncer
		// It used to block forever on a nil channel.
		assert.EqualError(t, s.Sync(ctx), "conntrackorder: sync: Syncer not made by NewSyncer or NewReconcileSyncer")
		var nilSyncer *conntrackorder.Syncer
		assert.EqualError(t, nilSyncer.Sync(ctx), "conntrackorder: sync: Syncer not made by NewSyncer or NewReconcileSyncer")
	})
	t.Run("nil context", func(t *testing.T) {
		tr := conntrackorder.NewTracker()
		require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "ns/dns:dns", Protocol: conntrackorder.UDP,
			Port: 53, ClusterIPs: []netip.Addr{netip.MustParseAddr("172.30.0.10")}}))
		require.NoError(t, tr.SetEndpoints("ns/dns:dns", []netip.AddrPort{netip.MustParseAddrPort("10.180.0.7:53")}))
		before := tr.Pending()
		programmed := false
		f := conntrackordertest.New()
		for _, s := range []*conntrackorder.Syncer{
			conntrackorder.NewSyncer(tr, func(context.Context) error { programmed = true; return nil }, f),
			conntrackorder.NewReconcileSyncer(tr, func(context.Context) error { programmed = true; return nil }, f),
		} {
			var noContext context.Context // the bad input under test
			assert.EqualError(t, s.Sync(noContext), "conntrackorder: sync: nil context")
		}
		assert.False(t, programmed, "program ran")
		assert.Empty(t, f.Calls())
		assert.Equal(t, before, tr.Pending())
	})
	t.Run("typed nil backend", func(t *testing.T) {
		tr := conntrackorder.NewTracker()
		program := func(context.Context) error { return nil }
		var f *conntrackordertest.Flusher
		assert.PanicsWithValue(t, "conntrackorder: NewSyncer needs a tracker, a program function and a flusher",
			func() { conntrackorder.NewSyncer(tr, program, f) })
		assert.PanicsWithValue(t, "conntrackorder: NewReconcileSyncer needs a tracker, a program function and a reconciler",
			func() { conntrackorder.NewReconcileSyncer(tr, program, f) })
	})
}

// TestChangesDuringFlushAreClearedLater: "Changes reported to the Tracker while Sync
// runs are cleared by a later Sync, even a filter that is also in the snapshot", here while
// Flush itself runs, and in reconcile mode.
func TestChangesDuringFlushAreClearedLater(t *testing.T) {
	for _, reconcile := range []bool{false, true} {
		t.Run(map[bool]string{false: "flush", true: "reconcile"}[reconcile], func(t *testing.T) {
			tr := conntrackorder.NewTracker()
			// SCTP, so that reconcile mode hands the filters over too.
			sp := conntrackorder.ServicePort{Name: "a", Protocol: conntrackorder.SCTP, Port: 53, ClusterIPs: []netip.Addr{addrOf("198.18.30.10")}}
			require.NoError(t, tr.SetService(sp))
			require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{addrPortOf("198.18.2.10:53")}))
			snapshot := tr.Pending()
			require.NotEmpty(t, snapshot)
			rec := conntrackordertest.New()
			var once sync.Once
			rec.FailWith(func(ctx context.Context, plan conntrackorder.Plan) error {
				once.Do(func() {
					// The endpoint goes and comes back while the flush runs: the same
					// service-IP filter is collected again.
					require.NoError(t, tr.SetEndpoints("a", nil))
					require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{addrPortOf("198.18.2.10:53")}))
				})
				return nil
			})
			var s *conntrackorder.Syncer
			if reconcile {
				s = conntrackorder.NewReconcileSyncer(tr, programNothing, rec)
			} else {
				s = conntrackorder.NewSyncer(tr, programNothing, rec)
			}
			require.NoError(t, s.Sync(context.Background()))
			assert.Contains(t, tr.Pending(), snapshot[0], "a filter collected during the flush was dropped")
			assert.Contains(t, tr.Pending(), conntrackorder.Filter{Protocol: conntrackorder.SCTP, OrigDst: addrOf("198.18.30.10"), DstPort: 53, ReplySrc: addrOf("198.18.2.10")})
		})
	}
}

// TestFailuresLoseNothingAndKeepOrder: a failed program, then a failed Flush, each
// with new changes in between: "the snapshot stays pending together with whatever was
// collected in the meantime", in Pending's order, each filter once, errors wrapped.
func TestFailuresLoseNothingAndKeepOrder(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: protoUDP, Port: 53, ClusterIPs: []netip.Addr{addrOf("198.18.30.10")}, NodePort: 31000}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{addrPortOf("198.18.2.10:53"), addrPortOf("198.18.2.11:53")}))
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

	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{addrPortOf("198.18.2.10:53")}))
	failProgram = false
	rec.FailNext(1, errFlush)
	require.ErrorIs(t, s.Sync(context.Background()), errFlush)

	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: protoUDP, Port: 53, ClusterIPs: []netip.Addr{addrOf("198.18.30.10")}}))
	want := conntrackorder.Plan{
		{Protocol: protoUDP, OrigDst: addrOf("198.18.30.10"), DstPort: 53},
		{Protocol: protoUDP, DstPort: 31000},
		{Protocol: protoUDP, OrigDst: addrOf("198.18.30.10"), DstPort: 53, ReplySrc: addrOf("198.18.2.11")},
		{Protocol: protoUDP, DstPort: 31000, ReplySrc: addrOf("198.18.2.11")},
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

// TestSyncSerializedUnderConcurrentUpdates: "Sync calls run one at a time" while the
// Tracker is updated concurrently, and every filter collected is flushed by some Sync.
func TestSyncSerializedUnderConcurrentUpdates(t *testing.T) {
	tr := conntrackorder.NewTracker()
	const services = 20
	for i := 0; i < services; i++ {
		require.NoError(t, tr.SetService(conntrackorder.ServicePort{
			Name: string(rune('a' + i)), Protocol: protoUDP, Port: 53,
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
		f := conntrackorder.Filter{Protocol: protoUDP, OrigDst: netip.AddrFrom4([4]byte{198, 18, 30, byte(i + 1)}), DstPort: 53}
		assert.True(t, flushed[f], "filter %v was never flushed", f)
	}
}

// TestWaitingSyncHonoursItsContext: "Sync waits for a running Sync to return first; if
// ctx is done before then, it returns ctx's error and does nothing."
func TestWaitingSyncHonoursItsContext(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: protoUDP, Port: 53, ClusterIPs: []netip.Addr{addrOf("198.18.30.10")}}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{addrPortOf("198.18.2.10:53")}))
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

// TestCancelledContextReachesTheBackend: "ctx is passed to program, Flush and
// Reconcile", and a Flush that fails with ctx's error keeps the plan pending.
func TestCancelledContextReachesTheBackend(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: protoUDP, Port: 53, ClusterIPs: []netip.Addr{addrOf("198.18.30.10")}}))
	require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{addrPortOf("198.18.2.10:53")}))
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

// TestReconcileCallsEverySyncOnlyWhenThereIsUDP: "It calls Reconcile on every Sync,
// unless no filter is left and the desired state holds no UDP service address or NodePort."
func TestReconcileCallsEverySyncOnlyWhenThereIsUDP(t *testing.T) {
	tr := conntrackorder.NewTracker()
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "t", Protocol: conntrackorder.TCP, Port: 53, ClusterIPs: []netip.Addr{addrOf("198.18.30.1")}, NodePort: 31000}))
	require.NoError(t, tr.SetEndpoints("t", []netip.AddrPort{addrPortOf("198.18.2.1:53")}))
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "s", Protocol: conntrackorder.SCTP, Port: 53, ClusterIPs: []netip.Addr{addrOf("198.18.30.1")}}))
	require.NoError(t, tr.SetEndpoints("s", []netip.AddrPort{addrPortOf("198.18.2.1:53")}))
	rec := conntrackordertest.New()
	s := conntrackorder.NewReconcileSyncer(tr, programNothing, rec)
	require.NoError(t, s.Sync(context.Background()))
	require.NoError(t, s.Sync(context.Background()))
	calls := rec.Calls()
	require.Len(t, calls, 1, "only the SCTP filters call Reconcile; TCP and SCTP are not in the desired state")
	assert.Empty(t, cmp.Diff(conntrackorder.Plan{{Protocol: conntrackorder.SCTP, OrigDst: addrOf("198.18.30.1"), DstPort: 53}}, calls[0].Plan),
		"an SCTP filter on a UDP-free address is handed over whole; TCP gives none")
	fam4, fam6 := calls[0].Desired.Families()
	assert.False(t, fam4 || fam6)

	// A UDP port with no endpoints: every Sync reconciles, for the flows that contradict it.
	require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "u", Protocol: protoUDP, Port: 53, ClusterIPs: []netip.Addr{addrOf("198.18.30.1")}}))
	require.NoError(t, s.Sync(context.Background()))
	require.NoError(t, s.Sync(context.Background()))
	assert.Len(t, rec.Calls(), 3)
	assert.True(t, rec.Calls()[2].Desired.Contradicts(udpFlowTo("198.18.30.1:53", "198.18.2.1:53")))
}

// TestPanickingFlushLosesNothing: "Nothing collected is lost until a flush succeeds."
// A Flush or Reconcile that panics (the caller recovers) must leave the plan pending and the
// Syncer usable: the next Sync must run and flush it.
func TestPanickingFlushLosesNothing(t *testing.T) {
	for _, reconcile := range []bool{false, true} {
		t.Run(map[bool]string{false: "flush", true: "reconcile"}[reconcile], func(t *testing.T) {
			tr := conntrackorder.NewTracker()
			require.NoError(t, tr.SetService(conntrackorder.ServicePort{Name: "a", Protocol: conntrackorder.SCTP, Port: 53, ClusterIPs: []netip.Addr{addrOf("198.18.30.10")}}))
			require.NoError(t, tr.SetEndpoints("a", []netip.AddrPort{addrPortOf("198.18.2.10:53")}))
			want := tr.Pending()
			rec := conntrackordertest.New()
			var panicked atomic.Bool
			rec.FailWith(func(context.Context, conntrackorder.Plan) error {
				if panicked.CompareAndSwap(false, true) {
					panic("backend bug")
				}
				return nil
			})
			s := conntrackorder.NewSyncer(tr, programNothing, rec)
			if reconcile {
				s = conntrackorder.NewReconcileSyncer(tr, programNothing, rec)
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
