package golangci_test

import (
	"testing"

	"github.com/golangci/plugin-module-register/register"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	_ "github.com/safereconcile/safereconcile/releasepath/golangci"
)

func TestPlugin(t *testing.T) {
	newPlugin, err := register.GetPlugin("releasepath")
	require.NoError(t, err)

	p, err := newPlugin(map[string]any{"pairs": []string{"example.com/cloud.Client.Reserve=example.com/cloud.Client.Release"}, "tests": true})
	require.NoError(t, err)
	as, err := p.BuildAnalyzers()
	require.NoError(t, err)
	require.Len(t, as, 1)
	assert.Equal(t, "releasepath", as[0].Name)
	assert.Equal(t, register.LoadModeTypesInfo, p.GetLoadMode())

	tests := []struct {
		name string
		give map[string]any
	}{
		{"malformed pair", map[string]any{"pairs": []string{"Reserve"}}},
		{"unknown setting", map[string]any{"pair": []string{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newPlugin(tt.give)
			assert.Error(t, err)
		})
	}
}
