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
		Old:        "5 of 11 failed syncs leaked the IP",
		Fixed:      "0 of 11; failed release reported",
		Reproduced: true,
	}, row)

	text := out.String()
	for _, want := range []string{
		"firewalls.insert #1                           LEAKED 10.128.0.2                  clean\n",
		"addresses.delete #1                           LEAKED 10.128.0.2, ensure said ok  left 10.128.0.2, orphan error, OnOrphan x1\n",
		"ctx cancelled before firewalls.get            LEAKED 10.128.0.2                  clean\n",
		"3 syncs failing at firewalls.insert, then ok  left after 3 of 3, then clean      left after 0 of 3, then clean\n",
		"IP reserved by the user; fail, ok, delete     user's kept, none of ours left     user's kept, none of ours left\n",
	} {
		assert.Contains(t, text, want)
	}

	// Deterministic: a second run prints the same, byte for byte.
	var again bytes.Buffer
	_, err = ilb.Scenario.Run(t.Context(), &again)
	require.NoError(t, err)
	assert.Equal(t, text, again.String())
}
