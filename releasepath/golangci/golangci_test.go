package golangci_test

import (
	"testing"

	"github.com/golangci/plugin-module-register/register"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/safereconcile/safereconcile/releasepath/golangci"
)

func TestPluginIsRegistered(t *testing.T) {
	newPlugin, err := register.GetPlugin("releasepath")
	require.NoError(t, err)
	p, err := newPlugin(map[string]any{"pairs": []string{"example.com/cloud.Client.Reserve=example.com/cloud.Client.Release"}})
	require.NoError(t, err)
	as, err := p.BuildAnalyzers()
	require.NoError(t, err)
	require.Len(t, as, 1)
	assert.Equal(t, "releasepath", as[0].Name)
	assert.Equal(t, register.LoadModeTypesInfo, p.GetLoadMode())
}

// TestNewDecodesSettings feeds New the settings a .golangci.yml decodes to, good and bad;
// every error carries the package prefix.
func TestNewDecodesSettings(t *testing.T) {
	tests := []struct {
		name    string
		give    any
		wantErr string
	}{
		{name: "nil", give: nil},
		{name: "empty", give: map[string]any{}},
		{name: "pairs", give: map[string]any{
			"pairs": []any{"example.com/cloud.Client.Reserve=example.com/cloud.Client.Release"},
		}},
		{name: "malformed pair", give: map[string]any{"pairs": []any{"nonsense"}}, wantErr: "releasepath: pair"},
		{name: "unknown field", give: map[string]any{"pair": []any{"a.B=a.C"}}, wantErr: "unknown field"},
		{name: "tests is golangci-lint's run.tests", give: map[string]any{"tests": true}, wantErr: "unknown field"},
		{name: "pairs not a list", give: map[string]any{"pairs": 3}, wantErr: "pairs"},
		{name: "broad", give: map[string]any{"broad": true}},
		{name: "broad not a bool", give: map[string]any{"broad": "yes"}, wantErr: "broad"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := golangci.New(tt.give)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.Regexp(t, `^releasepath: `, err.Error())
				return
			}
			require.NoError(t, err)
			as, err := p.BuildAnalyzers()
			require.NoError(t, err)
			require.Len(t, as, 1)
			assert.Equal(t, "releasepath", as[0].Name)
		})
	}
}

// TestPluginLeavesNolintAndRelatedToGolangciLint checks that under golangci-lint the
// Analyzer reports the findings a //nolint:releasepath covers (golangci-lint filters them,
// and its nolintlint then sees the directive used) and attaches no related information
// (golangci-lint reports each related position as an issue of its own, which --fix cannot
// resolve).
func TestPluginLeavesNolintAndRelatedToGolangciLint(t *testing.T) {
	p, err := golangci.New(nil)
	require.NoError(t, err)
	as, err := p.BuildAnalyzers()
	require.NoError(t, err)
	results := analysistest.Run(t, analysistest.TestData(), as[0], "nolint")
	n := 0
	for _, r := range results {
		for _, d := range r.Diagnostics {
			assert.Empty(t, d.Related, "%s", d.Message)
			n++
		}
	}
	assert.Equal(t, 2, n)
}
