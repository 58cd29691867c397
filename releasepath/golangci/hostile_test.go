package golangci_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/releasepath/golangci"
)

// TestHostileSettings feeds the plugin the settings a .golangci.yml decodes to, good and bad.
func TestHostileSettings(t *testing.T) {
	tests := []struct {
		name    string
		give    any
		wantErr string
	}{
		{name: "nil", give: nil},
		{name: "empty", give: map[string]any{}},
		{name: "pairs and tests", give: map[string]any{
			"pairs": []any{"example.com/cloud.Client.Reserve=example.com/cloud.Client.Release"},
			"tests": true,
		}},
		{name: "bad pair", give: map[string]any{"pairs": []any{"nonsense"}}, wantErr: "releasepath: "},
		{name: "unknown field", give: map[string]any{"pair": []any{"a.B=a.C"}}, wantErr: "unknown field"},
		{name: "pairs not a list", give: map[string]any{"pairs": 3}, wantErr: "pairs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := golangci.New(tt.give)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
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

// TestHostileSettingsPrefix wants a settings decoding error to carry the package prefix, as
// every other error of the module does.
func TestHostileSettingsPrefix(t *testing.T) {
	for _, give := range []any{
		map[string]any{"pair": []any{"a.B=a.C"}},
		map[string]any{"pairs": 3},
	} {
		_, err := golangci.New(give)
		require.Error(t, err)
		assert.Regexp(t, `^releasepath: `, err.Error())
	}
}
