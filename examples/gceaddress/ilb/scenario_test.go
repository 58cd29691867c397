package ilb_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/examples/gceaddress/ilb"
	"github.com/safereconcile/safereconcile/examples/internal/scenario"
)

func TestScenario(t *testing.T) {
	var out bytes.Buffer
	row, err := ilb.Scenario.Run(t.Context(), &out)
	require.NoError(t, err)
	assert.Equal(t, "gceaddress", ilb.Scenario.Name)
	assert.Equal(t, scenario.Row{
		Bug:        "#97740 ILB address reservation",
		Old:        "5 of 11 failed syncs leaked it, as real v1.20.1 does",
		Fixed:      "0 of 11; failed release reported",
		Reproduced: true,
	}, row)

	text := out.String()
	for _, want := range []string{
		"FAILURE                    v1.20.1               v1.20.2               acquire\n",
		"firewalls.insert #1        LEAKED                clean                 clean\n",
		"addresses.delete #1        LEAKED, said ok       LEAKED, said ok       orphan reported x1\n",
		"ctx cancelled mid-ensure   LEAKED                LEAKED                clean\n",
		"3 failing syncs, then ok   left 3/3, then clean  left 0/3, then clean  left 0/3, then clean\n",
		"IP the user reserved       user's kept, clean    user's kept, clean    user's kept, clean\n",
		"TestUpstreamConformance (examples/gceaddress/upstream) runs k8s.io/legacy-cloud-providers\n",
	} {
		assert.Contains(t, text, want)
	}

	// Deterministic: a second run prints the same, byte for byte.
	var again bytes.Buffer
	_, err = ilb.Scenario.Run(t.Context(), &again)
	require.NoError(t, err)
	assert.Equal(t, text, again.String())
}
