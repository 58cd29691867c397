package proxy

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/safereconcile/safereconcile/examples/internal/scenario"
	"github.com/safereconcile/safereconcile/examples/nodeport/packetpath"
)

// Scenario plays kubernetes#98305 on the model for the examples command: [Play] with
// [ModelOptions], once with [OldShape] and once with [FixedShape], each on a fresh [Model]. Its
// row is computed from the two Results.
var Scenario = scenario.Scenario{Name: "nodeport", Run: run}

// ModelOptions returns the timeline Scenario plays: the clients send every second, six rounds
// before the endpoint arrives and sixty after it, then fall silent for one second longer than
// the unreplied UDP timeout and send once more.
func ModelOptions() Options {
	return Options{
		Before:   6,
		After:    60,
		Interval: time.Second,
		Pause:    packetpath.UnrepliedTimeout + time.Second,
	}
}

func run(ctx context.Context, w io.Writer) (scenario.Row, error) {
	opts := ModelOptions()
	if err := Intro(w, DefaultAddrs()); err != nil {
		return scenario.Row{}, err
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return scenario.Row{}, err
	}
	old, err := Play(ctx, w, NewModel(DefaultAddrs()), OldShape, opts)
	if err != nil {
		return scenario.Row{}, err
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return scenario.Row{}, err
	}
	fixed, err := Play(ctx, w, NewModel(DefaultAddrs()), FixedShape, opts)
	if err != nil {
		return scenario.Row{}, err
	}
	return Row(old, fixed), nil
}

// Row returns the summary row for the results of the old and the fixed shape. The bug is
// reproduced when, after the endpoint arrived, the old shape's NodePort answered nothing while
// its ClusterIP answered everything, and the fixed shape answered everything on both. Whether
// the old shape's NodePort came back after a pause shows why the bug was intermittent, not
// whether it happened: the timeline reports it, the row does not.
func Row(old, fixed Result) scenario.Row {
	all := func(t Tally) bool { return t.Sent > 0 && t.Answered == t.Sent }
	return scenario.Row{
		Bug:   "#98305 UDP NodePort blackhole",
		Old:   describe(old),
		Fixed: describe(fixed),
		Reproduced: old.NodePort.Sent > 0 && old.NodePort.Answered == 0 && all(old.ClusterIP) &&
			all(fixed.NodePort) && all(fixed.ClusterIP),
	}
}

func describe(r Result) string {
	return fmt.Sprintf("NodePort answered %d/%d, ClusterIP %d/%d",
		r.NodePort.Answered, r.NodePort.Sent, r.ClusterIP.Answered, r.ClusterIP.Sent)
}
