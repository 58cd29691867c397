package proxy_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/conntrackorder/conntrackordertest"
	"github.com/safereconcile/safereconcile/examples/nodeport/packetpath"
	"github.com/safereconcile/safereconcile/examples/nodeport/proxy"
)

func TestPlayOnTheModel(t *testing.T) {
	model := proxy.ModelOptions()
	withAfter := func(n int, pause time.Duration) proxy.Options {
		o := model
		o.After, o.Pause = n, pause
		return o
	}
	for _, tt := range []struct {
		name  string
		shape proxy.Shape
		give  proxy.Options
		want  proxy.Result
	}{
		{
			name:  "old shape: NodePort dark while the client sends, back after a pause",
			shape: proxy.OldShape,
			give:  model,
			want: proxy.Result{
				NodePort: proxy.Tally{Sent: 60}, ClusterIP: proxy.Tally{Sent: 60, Answered: 60},
				NodePortAfterPause: true, ClusterIPAfterPause: true,
			},
		},
		{
			name:  "fixed shape: both answer from the first datagram",
			shape: proxy.FixedShape,
			give:  model,
			want: proxy.Result{
				NodePort: proxy.Tally{Sent: 60, Answered: 60}, ClusterIP: proxy.Tally{Sent: 60, Answered: 60},
				NodePortAfterPause: true, ClusterIPAfterPause: true,
			},
		},
		{
			name:  "old shape: ten minutes of sending stay dark",
			shape: proxy.OldShape,
			give:  withAfter(600, 0),
			want:  proxy.Result{NodePort: proxy.Tally{Sent: 600}, ClusterIP: proxy.Tally{Sent: 600, Answered: 600}},
		},
		{
			name:  "old shape: a pause shorter than the unreplied timeout keeps the stale entry",
			shape: proxy.OldShape,
			give:  withAfter(10, packetpath.UnrepliedTimeout-time.Second),
			want: proxy.Result{
				NodePort: proxy.Tally{Sent: 10}, ClusterIP: proxy.Tally{Sent: 10, Answered: 10},
				NodePortAfterPause: false, ClusterIPAfterPause: true,
			},
		},
		{
			name:  "old shape: a pause as long as the unreplied timeout expires it",
			shape: proxy.OldShape,
			give:  withAfter(10, packetpath.UnrepliedTimeout),
			want: proxy.Result{
				NodePort: proxy.Tally{Sent: 10}, ClusterIP: proxy.Tally{Sent: 10, Answered: 10},
				NodePortAfterPause: true, ClusterIPAfterPause: true,
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			got, err := proxy.Play(context.Background(), &out, proxy.NewModel(proxy.DefaultAddrs()), tt.shape, tt.give)
			require.NoError(t, err)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Play (-want +got):\n%s\ntimeline:\n%s", diff, &out)
			}
		})
	}
}

// A journal records, in order, the rules each program call installed and the plans flushed.
type journal struct{ calls []string }

func (j *journal) program(_ context.Context, rules []packetpath.Rule) error {
	j.calls = append(j.calls, fmt.Sprintf("program %d rules", len(rules)))
	return nil
}

func (j *journal) Flush(_ context.Context, plan conntrackorder.Plan) error {
	parts := make([]string, len(plan))
	for i, f := range plan {
		parts[i] = f.String()
	}
	j.calls = append(j.calls, "flush "+strings.Join(parts, ", "))
	return nil
}

func TestShapesOrderProgrammingAndFlushes(t *testing.T) {
	a := proxy.DefaultAddrs()
	for _, tt := range []struct {
		shape proxy.Shape
		want  []string
	}{
		{
			shape: proxy.OldShape,
			want: []string{
				// Service without endpoints: the NodePort is cleared when it is opened,
				// before anything is programmed (kubernetes#98305).
				"flush udp dport 30080",
				"program 0 rules",
				// The endpoint arrives: only the ClusterIP is cleared, after programming.
				"program 2 rules",
				"flush udp orig-dst 198.18.3.10",
				// Nothing changed: nothing cleared.
				"program 2 rules",
			},
		},
		{
			shape: proxy.FixedShape,
			want: []string{
				"program 0 rules",
				"program 2 rules",
				"flush udp orig-dst 198.18.3.10 dport 80, udp dport 30080",
				"program 2 rules",
			},
		},
	} {
		t.Run(tt.shape.Name, func(t *testing.T) {
			ctx := context.Background()
			j := &journal{}
			p := tt.shape.New(proxy.Config{NodeIP: a.Node, Program: j.program, Flusher: j})
			require.NoError(t, p.SetService(a.Service()))
			require.NoError(t, p.Sync(ctx))
			require.NoError(t, p.SetEndpointSlice(a.EndpointSlice(true)))
			require.NoError(t, p.Sync(ctx))
			require.NoError(t, p.Sync(ctx))
			if diff := cmp.Diff(tt.want, j.calls); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFixedWaitsForAReadyEndpoint: a not-ready endpoint is not an endpoint, so it neither
// gets rules nor triggers the clear that must follow them (kubernetes#105657).
func TestFixedWaitsForAReadyEndpoint(t *testing.T) {
	ctx := context.Background()
	a := proxy.DefaultAddrs()
	j := &journal{}
	p := proxy.NewFixed(proxy.Config{NodeIP: a.Node, Program: j.program, Flusher: j})
	require.NoError(t, p.SetEndpointSlice(a.EndpointSlice(false))) // before its Service
	require.NoError(t, p.SetService(a.Service()))
	require.NoError(t, p.Sync(ctx))
	require.NoError(t, p.SetEndpointSlice(a.EndpointSlice(true)))
	require.NoError(t, p.Sync(ctx))
	want := []string{"program 0 rules", "program 2 rules", "flush udp orig-dst 198.18.3.10 dport 80, udp dport 30080"}
	if diff := cmp.Diff(want, j.calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

// failing fails the flushes its recorder is told to fail and applies the others to the model.
type failing struct {
	rec   *conntrackordertest.Flusher
	model conntrackorder.Flusher
}

func (f failing) Flush(ctx context.Context, plan conntrackorder.Plan) error {
	if err := f.rec.Flush(ctx, plan); err != nil {
		return err
	}
	return f.model.Flush(ctx, plan)
}

// TestFixedRetriesAFailedFlush: when the flush after programming fails, the NodePort stays
// dark only until the next Sync, which flushes the same plan again.
func TestFixedRetriesAFailedFlush(t *testing.T) {
	ctx := context.Background()
	a := proxy.DefaultAddrs()
	model := proxy.NewModel(a)
	rec := conntrackordertest.New()
	p := proxy.NewFixed(proxy.Config{NodeIP: a.Node, Program: model.Program, Flusher: failing{rec: rec, model: model.Flusher()}})
	src, dst := a.NodePortFlow()

	require.NoError(t, p.SetService(a.Service()))
	require.NoError(t, p.Sync(ctx))
	sent, err := model.Send(ctx, src, dst)
	require.NoError(t, err)
	require.False(t, sent)

	require.NoError(t, p.SetEndpointSlice(a.EndpointSlice(true)))
	rec.FailNext(1, errors.New("conntrack: operation not permitted"))
	require.ErrorContains(t, p.Sync(ctx), "operation not permitted")
	sent, err = model.Send(ctx, src, dst)
	require.NoError(t, err)
	assert.False(t, sent, "answered although the flush failed")

	require.NoError(t, p.Sync(ctx))
	sent, err = model.Send(ctx, src, dst)
	require.NoError(t, err)
	assert.True(t, sent, "the retried flush did not clear the stale entry")
}

func TestConfigIsChecked(t *testing.T) {
	for _, shape := range []proxy.Shape{proxy.OldShape, proxy.FixedShape} {
		assert.PanicsWithValue(t, "proxy: Config needs NodeIP, Program and Flusher", func() {
			shape.New(proxy.Config{})
		}, shape.Name)
	}
}

// broken is a model whose n-th Send fails.
type broken struct {
	*proxy.Model
	n int
}

func (b *broken) Send(ctx context.Context, src, dst netip.AddrPort) (bool, error) {
	if b.n--; b.n == 0 {
		return false, errors.New("send: network is unreachable")
	}
	return b.Model.Send(ctx, src, dst)
}

func TestPlayReportsFailures(t *testing.T) {
	ctx := context.Background()
	_, err := proxy.Play(ctx, io.Discard, proxy.NewModel(proxy.DefaultAddrs()), proxy.OldShape, proxy.Options{Before: 1, After: 1, Interval: time.Second})
	require.ErrorContains(t, err, "proxy: Play needs Before >= 2")

	opts := proxy.ModelOptions()
	_, err = proxy.Play(ctx, io.Discard, &broken{Model: proxy.NewModel(proxy.DefaultAddrs()), n: 5}, proxy.FixedShape, opts)
	require.ErrorContains(t, err, "network is unreachable")

	_, err = proxy.Play(ctx, errWriter{}, proxy.NewModel(proxy.DefaultAddrs()), proxy.FixedShape, opts)
	require.ErrorContains(t, err, "disk full")
}

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestScenario(t *testing.T) {
	var out bytes.Buffer
	row, err := proxy.Scenario.Run(context.Background(), &out)
	require.NoError(t, err)
	assert.Equal(t, "nodeport", proxy.Scenario.Name)
	assert.True(t, row.Reproduced, "timeline:\n%s", &out)
	assert.Equal(t, "NodePort answered 0/60, ClusterIP 60/60", row.Old)
	assert.Equal(t, "NodePort answered 60/60, ClusterIP 60/60", row.Fixed)

	for i, l := range strings.Split(out.String(), "\n") {
		assert.LessOrEqual(t, len(l), 99, "line %d is wider than 99 columns:\n%s", i+1, l)
	}
	old, fixed := splitTimelines(t, out.String())
	// The old shape's mistakes are marked where they happen, and only there: the flush
	// before any rule, and the entry it leaves stale.
	assert.Equal(t, []string{
		"t=0.5s    proxy sync",
		"            flush udp dport 30080  <- too early: no rule for it yet",
		"t=5.5s    proxy sync",
		"              udp  29s 198.18.1.2:40000 > 198.18.1.1:30080 [UNREPLIED] not NATed  <- stale",
		"t=7s-65s  the same, 59 more times",
		"              udp  30s 198.18.1.2:40000 > 198.18.1.1:30080 [UNREPLIED] not NATed  <- stale",
	}, marked(old), "the old shape's timeline:\n%s", old)
	assert.Empty(t, marked(fixed), "the fixed shape's timeline:\n%s", fixed)
}

// TestScenarioTimelinesDiffOnlyByTheFix: with the flushes and what they change taken out
// (the entries listed and whether a datagram was answered), the two shapes' timelines are the
// same lines: the same events at the same times, the same rounds, the same programs and the
// table listed at the same points.
func TestScenarioTimelinesDiffOnlyByTheFix(t *testing.T) {
	var out bytes.Buffer
	_, err := proxy.Scenario.Run(context.Background(), &out)
	require.NoError(t, err)
	old, fixed := splitTimelines(t, out.String())
	if diff := cmp.Diff(skeleton(old), skeleton(fixed)); diff != "" {
		t.Errorf("the timelines differ beyond their flushes (-old +fixed):\n%s", diff)
	}
	assert.NotEqual(t, old, fixed)
}

// splitTimelines returns the old and the fixed shape's timelines from the scenario's output,
// each from its "---" header to its verdict.
func splitTimelines(t *testing.T, out string) (old, fixed []string) {
	t.Helper()
	_, rest, ok := strings.Cut(out, "\n--- "+proxy.OldShape.Name+":")
	require.True(t, ok, "no old shape's timeline in:\n%s", out)
	o, f, ok := strings.Cut(rest, "\n--- "+proxy.FixedShape.Name+":")
	require.True(t, ok, "no fixed shape's timeline in:\n%s", out)
	lines := func(s string) []string { return strings.Split(strings.TrimSpace(s), "\n")[1:] }
	return lines(o), lines(f)
}

// marked returns the lines that carry a mark, each after the last event line before it.
func marked(lines []string) []string {
	var out []string
	event := ""
	for _, l := range lines {
		if strings.HasPrefix(l, "t=") {
			event = l
		}
		if strings.Contains(l, "<-") {
			if event != "" {
				out = append(out, event)
				event = ""
			}
			out = append(out, l)
		}
	}
	return out
}

// skeleton drops the flushes, the entries listed and the answers from a timeline.
func skeleton(lines []string) []string {
	var out []string
	for _, l := range lines {
		text := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(text, "flush "), strings.HasPrefix(text, "udp "):
			continue
		case strings.HasPrefix(text, "conntrack: "):
			l = "conntrack"
		case strings.Contains(text, "NodePort: "):
			l, _, _ = strings.Cut(l, "NodePort: ")
		case strings.HasPrefix(text, "after the "):
			l, _, _ = strings.Cut(l, "NodePort")
		}
		out = append(out, l)
	}
	return out
}

func TestRow(t *testing.T) {
	dark := proxy.Tally{Sent: 5}
	all := proxy.Tally{Sent: 5, Answered: 5}
	some := proxy.Tally{Sent: 5, Answered: 2}
	for _, tt := range []struct {
		name       string
		old, fixed proxy.Result
		want       bool
	}{
		{name: "reproduced", old: proxy.Result{NodePort: dark, ClusterIP: all}, fixed: proxy.Result{NodePort: all, ClusterIP: all}, want: true},
		{name: "old NodePort answered some", old: proxy.Result{NodePort: some, ClusterIP: all}, fixed: proxy.Result{NodePort: all, ClusterIP: all}},
		{name: "old ClusterIP dark too", old: proxy.Result{NodePort: dark, ClusterIP: dark}, fixed: proxy.Result{NodePort: all, ClusterIP: all}},
		{name: "fixed NodePort dark", old: proxy.Result{NodePort: dark, ClusterIP: all}, fixed: proxy.Result{NodePort: dark, ClusterIP: all}},
		{name: "nothing sent", fixed: proxy.Result{NodePort: all, ClusterIP: all}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, proxy.Row(tt.old, tt.fixed).Reproduced)
		})
	}
}
