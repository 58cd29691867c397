package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/examples/internal/scenario"
)

// TestEveryScenarioReproduces runs what `go run ./examples` runs: every scenario must reproduce
// its bug in the old shape and not in the fixed shape, and have a row in the summary.
func TestEveryScenarioReproduces(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, scenarios), out.String())
	summary := out.String()[strings.LastIndex(out.String(), "=== summary"):]
	for _, sc := range scenarios {
		assert.Contains(t, out.String(), "=== "+sc.Name)
	}
	assert.Equal(t, len(scenarios)+2, strings.Count(summary, "\n"), "a header and a row per scenario:\n%s", summary)
}

// TestRunFailsWhenNotReproduced keeps a rotten reproduction loud.
func TestRunFailsWhenNotReproduced(t *testing.T) {
	rotten := scenario.Scenario{Name: "rotten", Run: func(context.Context, io.Writer) (scenario.Row, error) {
		return scenario.Row{Bug: "bug", Old: "fine", Fixed: "fine"}, nil
	}}
	var out bytes.Buffer
	err := run(context.Background(), &out, []scenario.Scenario{rotten})
	require.EqualError(t, err, "examples: 1 scenario(s) did not reproduce their bug")
	assert.Contains(t, out.String(), "bug  fine       fine         NO")
}
