//go:build linux

package kubeproxybench

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vishvananda/netlink"
	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/proxy"
	kpconntrack "k8s.io/kubernetes/pkg/proxy/conntrack"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/conntrackorder/ctnetlink"
	"github.com/safereconcile/safereconcile/internal/netnstest"
)

// The tables: a busy node's (mostly TCP, 1% of the UDP entries stale) of each stack, IPv4-only
// and IPv6-only as most clusters run and dual-stack, at the size of the issue and, with
// KUBEPROXYBENCH_1M=1, five times as large. Names are <stack>-<size>: "ipv4-220k".
var (
	stacks = []netnstest.Stack{netnstest.IPv4Only, netnstest.IPv6Only, netnstest.DualStack}
	shapes = map[string]netnstest.NodeTableSpec{
		"220k": {Services: 500, TCP: 200000, UDP: 20000, Stale: 200},
		"1M":   {Services: 500, TCP: 900000, UDP: 100000, Stale: 1000},
	}
)

// tables returns the names of the tables to run, and their specs.
func tables() ([]string, map[string]netnstest.NodeTableSpec) {
	sizes := []string{"220k"}
	if os.Getenv("KUBEPROXYBENCH_1M") != "" {
		sizes = append(sizes, "1M")
	}
	var names []string
	specs := map[string]netnstest.NodeTableSpec{}
	for _, size := range sizes {
		for _, st := range stacks {
			name := st.String() + "-" + size
			spec := shapes[size]
			spec.Stack = st
			names = append(names, name)
			specs[name] = spec
		}
	}
	return names, specs
}

// deletesByEntry reports whether kube-proxy's conntrack package is the one of v1.37, which
// deletes the entries it lists one by one, where v1.34 built a filter per entry. The two
// releases' cleanups also differ in what they clear (see kubeProxyClears). Test binaries
// carry no module versions to read, so the release is told by its Interface.
var deletesByEntry = func() bool {
	_, ok := kpconntrack.New().(interface {
		DeleteEntries(uint8, []*netlink.ConntrackFlow) (int, error)
	})
	return ok
}()

// kubernetesVersion names the release line of kube-proxy this binary was built with.
func kubernetesVersion() string {
	if deletesByEntry {
		return "v1.37 (go.v137.mod)"
	}
	return "v1.34 (go.mod)"
}

// kubeProxyClears reports whether kube-proxy's CleanStaleEntries of this version deletes an
// entry that is stale for the reason why. Where it does not, this module's reconcile does, and
// is right (see the package doc).
func kubeProxyClears(why netnstest.Staleness) bool {
	switch why {
	case netnstest.EndpointRemoved, netnstest.EndpointNotServing, netnstest.NotNATed:
		return true
	case netnstest.NoServingEndpoint:
		// v1.37 clears the service-IP flows of a service without serving endpoints; v1.34
		// skipped the service (kubernetes#139629).
		return deletesByEntry
	}
	return false // a deleted service, a changed NodePort: kube-proxy knows only the current ones
}

// A bench is one node table in a network namespace, and the two sides' views of its state.
type bench struct {
	nt      *netnstest.NodeTable
	ns      *netnstest.Namespace
	table   *netnstest.Table
	flusher *ctnetlink.Flusher
	// families are the node's, IPv4 first: kube-proxy runs one proxier per family, and the
	// bare dumps read those tables.
	families []v1.IPFamily
	// kube-proxy's maps, per family, from the Services and EndpointSlices of the state after.
	svcMaps map[v1.IPFamily]proxy.ServicePortMap
	epMaps  map[v1.IPFamily]proxy.EndpointsMap
	// this module's plan and desired state, from a Tracker that saw the changes.
	plan    conntrackorder.Plan
	desired *conntrackorder.Desired
	// missing are the entries the latest operation deleted, made again before the next.
	missing []netnstest.Flow
}

func newBench(tb testing.TB, spec netnstest.NodeTableSpec) *bench {
	tb.Helper()
	netnstest.Require(tb)
	nt, err := netnstest.NewNodeTable(spec)
	require.NoError(tb, err)
	b := &bench{nt: nt, ns: netnstest.New(tb, "kpbench"), svcMaps: map[v1.IPFamily]proxy.ServicePortMap{}, epMaps: map[v1.IPFamily]proxy.EndpointsMap{}}
	b.table = b.ns.Table(tb)
	require.NoError(tb, b.ns.Do(func() error {
		var err error
		b.flusher, err = ctnetlink.New()
		return err
	}))
	tb.Cleanup(func() { _ = b.flusher.Close() })
	require.NoError(tb, b.table.Insert(nt.Flows...))

	v4, v6 := spec.Stack.Families()
	if v4 {
		b.families = append(b.families, v1.IPv4Protocol)
	}
	if v6 {
		b.families = append(b.families, v1.IPv6Protocol)
	}
	svcs, slices := Objects(nt.After)
	for _, fam := range b.families {
		b.svcMaps[fam], b.epMaps[fam] = Maps(svcs, slices, fam)
	}
	tr := conntrackorder.NewTracker()
	// A proxy knows its node's families, as kube-proxy does.
	require.NoError(tb, tr.SetNodeFamilies(v4, v6))
	require.NoError(tb, nt.TrackBefore(tr))
	// The syncs that ran before the table was filled: programmed, and flushed what they had.
	require.NoError(tb, conntrackorder.NewSyncer(tr, func(context.Context) error { return nil }, discard{}).Sync(context.Background()))
	require.NoError(tb, nt.TrackAfter(tr))
	b.plan, b.desired = tr.Pending(), tr.Desired()
	return b
}

type discard struct{}

func (discard) Flush(context.Context, conntrackorder.Plan) error { return nil }

// sides are the implementations measured: the two that clean, and the two bare dumps that are
// the least any reader of the table does.
var sides = []struct {
	name string
	run  func(b *bench) error
	// clears reports whether the side deletes an entry stale for why; nil: it deletes nothing.
	clears func(why netnstest.Staleness) bool
}{
	{"kube-proxy", func(b *bench) error {
		// conntrack.New() is a netlink.Handle that opens its sockets in the calling thread's
		// namespace: run it there.
		return b.ns.Do(func() error {
			for _, fam := range b.families { // one proxier per family of the node
				kpconntrack.CleanStaleEntries(kpconntrack.New(), fam, b.svcMaps[fam], b.epMaps[fam])
			}
			return nil
		})
	}, kubeProxyClears},
	{"ctnetlink", func(b *bench) error {
		return b.flusher.Reconcile(context.Background(), b.plan, b.desired)
	}, func(netnstest.Staleness) bool { return true }},
	{"bare-dump-udp", func(b *bench) error { return b.dump("udp") }, nil},
	{"bare-dump-all", func(b *bench) error { return b.dump("") }, nil},
}

func (b *bench) dump(protocol string) error {
	for _, fam := range b.families {
		if _, err := b.table.Count(fam == v1.IPv6Protocol, protocol); err != nil {
			return err
		}
	}
	return nil
}

// deleted returns the entries a side deletes.
func (b *bench) deleted(clears func(netnstest.Staleness) bool) []netnstest.Flow {
	var out []netnstest.Flow
	if clears == nil {
		return nil
	}
	for f, why := range b.nt.Stale {
		if clears(why) {
			out = append(out, f)
		}
	}
	return out
}

// TestSameDeletions runs each side once on a fresh table and compares what is left, entry by
// entry (read back through conntrack(8)), with what its semantics say: kube-proxy deletes the
// entries both agree are stale, this module's reconcile every stale entry.
func TestSameDeletions(t *testing.T) {
	names, specs := tables()
	for _, name := range names {
		for _, side := range sides[:2] {
			t.Run(name+"/"+side.name, func(t *testing.T) {
				b := newBench(t, specs[name])
				require.NoError(t, side.run(b))
				gone := map[netnstest.Flow]bool{}
				for _, f := range b.deleted(side.clears) {
					gone[f] = true
				}
				got, err := b.table.List()
				require.NoError(t, err)
				left := map[netnstest.Flow]bool{}
				for _, f := range got {
					left[f] = true
				}
				var wrong []string
				for _, f := range b.nt.Flows {
					if left[f] == gone[f] {
						wrong = append(wrong, fmt.Sprintf("%+v (stale: %q) left=%v", f, b.nt.Stale[f], left[f]))
					}
				}
				assert.Empty(t, wrong, "kubernetes %s", kubernetesVersion())
				assert.Len(t, got, len(b.nt.Flows)-len(gone))
				t.Logf("kubernetes %s: %s deleted %d of %d stale entries", kubernetesVersion(), side.name, len(gone), len(b.nt.Stale))
			})
		}
	}
}

// BenchmarkNodeTable runs each side on a node's table, per operation. Before each operation
// the entries the previous one deleted are made again, and after it the table is counted, so
// that every operation finds the same table. Besides time and allocations it reports the
// table's entries, the CPU time of the operation (user and system: the kernel works for a dump
// in the reader's system calls), and the rise of the process's peak resident memory during the
// operation (VmHWM, reset before it), in MB:
//
//	cd internal/kubeproxybench
//	GOWORK=off go test -run '^$' -bench 'NodeTable/node-220k/kube-proxy' -benchtime 1x -benchmem            # v1.34.2
//	GOWORK=off go test -modfile=go.v137.mod -run '^$' -bench 'NodeTable/node-220k/kube-proxy' -benchtime 1x -benchmem
//
// and the same for ctnetlink, bare-dump-udp and bare-dump-all, interleaved, each in its own
// process so that each peak is its own (kube-proxy -benchtime 1x, the others 3x; with
// KUBEPROXYBENCH_1M=1 and node-1M for the larger table, after raising
// net.netfilter.nf_conntrack_max to 1500000 and the nf_conntrack hashsize to 1048576).
//
// Measured on Linux 6.18, 2 vCPUs (AMD EPYC), 24 GiB, load 0.9-1.5, 5 interleaved rounds,
// medians; ratios against kube-proxy v1.34 / v1.37:
//
//	node-220k           wall ms        cpu ms   peak-MB  allocated       ratio (wall)
//	kube-proxy v1.34    2927           3210     103      452 MB, 35.1M
//	kube-proxy v1.37    2734           3027     103      501 MB, 37.9M
//	ctnetlink           181            190      0.01     52 KB, 298      0.062× / 0.066×
//	bare-dump-udp       172            178      0.01     19 KB, 284      0.059× / 0.063×
//	bare-dump-all       648            724      0.01     241 KB, 3546
//
//	node-1M             wall ms        cpu ms   peak-MB  allocated       ratio (wall)
//	kube-proxy v1.34    13504          14733    342      2.08 GB, 159M
//	kube-proxy v1.37    13611          14855    296      2.30 GB, 172M
//	ctnetlink           892            931      0.01     235 KB, 1383    0.066× / 0.066×
//	bare-dump-udp       798            826      0.01     91 KB, 1348
//	bare-dump-all       3005           3353     0.01     1.09 MB, 16042
//
// ctnetlink costs 1.05× (220k) and 1.12× (1M) a bare dump of the same UDP entries, which is
// the floor for any reader that asks the kernel for them: the kernel walks the whole table
// for each family's dump whatever it sends, and that walk is most of both sides' time. The
// bare filtered dump alone is 0.059× kube-proxy's cleanup, so no reader of the table reaches
// 0.05×. Both kube-proxy releases parse every entry of the table into a ConntrackFlow.
func BenchmarkNodeTable(b *testing.B) {
	names, specs := tables()
	for _, name := range names {
		b.Run(name, func(b *testing.B) {
			// Built once, by the parent, which runs once: its cleanup runs after every side's.
			bb := newBench(b, specs[name])
			for _, side := range sides {
				b.Run(side.name, func(b *testing.B) {
					deleted := bb.deleted(side.clears)
					want := len(bb.nt.Flows) - len(deleted)
					b.ReportAllocs()
					var peak float64
					var user, sys time.Duration
					for i := 0; i < b.N; i++ {
						b.StopTimer()
						require.NoError(b, bb.table.Insert(bb.missing...))
						bb.missing = deleted
						runtime.GC()
						base := resetPeak(b)
						user0, sys0 := cpuTime(b)
						b.StartTimer()
						require.NoError(b, side.run(bb))
						b.StopTimer()
						user1, sys1 := cpuTime(b)
						user, sys = user+user1-user0, sys+sys1-sys0
						peak = max(peak, (float64(hwm(b))-float64(base))/(1<<20))
						n, err := bb.table.Len()
						require.NoError(b, err)
						require.Equal(b, want, n, "entries left after %s", side.name)
						b.StartTimer()
					}
					b.ReportMetric(float64(len(bb.nt.Flows)), "entries")
					b.ReportMetric(peak, "peak-MB")
					b.ReportMetric(float64((user+sys).Milliseconds())/float64(b.N), "cpu-ms/op")
					// System time is mostly the kernel's walk of the table for the dump;
					// user time is the reader's parsing and judging.
					b.ReportMetric(float64(sys.Milliseconds())/float64(b.N), "sys-ms/op")
				})
			}
		})
	}
}

// resetPeak resets the process's peak resident memory to its current one and returns it, in
// bytes.
func resetPeak(tb testing.TB) uint64 {
	tb.Helper()
	require.NoError(tb, os.WriteFile("/proc/self/clear_refs", []byte("5"), 0))
	return hwm(tb)
}

// cpuTime returns the CPU time the process has used, in user space and in the kernel: the
// kernel's work for a dump is done in the reading process's system calls.
func cpuTime(tb testing.TB) (user, sys time.Duration) {
	var ru syscall.Rusage
	require.NoError(tb, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

// hwm returns the process's peak resident memory since the last reset, in bytes.
func hwm(tb testing.TB) uint64 { return status(tb, "VmHWM") }

func status(tb testing.TB, field string) uint64 {
	tb.Helper()
	b, err := os.ReadFile("/proc/self/status")
	require.NoError(tb, err)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			require.NoError(tb, err)
			return kb << 10
		}
	}
	tb.Fatalf("no %s in /proc/self/status", field)
	return 0
}
