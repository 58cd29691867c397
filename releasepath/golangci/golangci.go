// Package golangci registers releasepath as a golangci-lint v2 module plugin named
// "releasepath". It is a package of its own so that importing the analyzer never pulls in
// golangci-lint's plugin module.
//
// Build a custom golangci-lint with it from a .custom-gcl.yml:
//
//	version: v2.0.2 # the golangci-lint v2 release to build
//	plugins:
//	  - module: github.com/safereconcile/safereconcile/releasepath
//	    import: github.com/safereconcile/safereconcile/releasepath/golangci
//	    version: latest
//
// or, from a clone of this repository, with path: in place of version: (a path relative to
// the .custom-gcl.yml, or absolute, to the releasepath module's directory):
//
//	plugins:
//	  - module: github.com/safereconcile/safereconcile/releasepath
//	    import: github.com/safereconcile/safereconcile/releasepath/golangci
//	    path: ../safereconcile/releasepath
//
// and enable it in .golangci.yml, with its settings:
//
//	version: "2"
//	linters:
//	  enable:
//	    - releasepath
//	  settings:
//	    custom:
//	      releasepath:
//	        type: module
//	        description: reports the returns that can skip a release
//	        settings:
//	          pairs:
//	            - example.com/cloud.Client.Reserve=example.com/cloud.Client.Release
//	          broad: false # true adds the opt-in broader tier (the -broad flag)
//
// Then run golangci-lint custom to build ./custom-gcl, and ./custom-gcl run ./... as usual.
// golangci-lint's own settings apply: run.tests decides whether _test.go files are checked,
// and //nolint:releasepath is applied by golangci-lint (so nolintlint sees it used). The
// findings carry no related information, which golangci-lint would turn into issues of their
// own that --fix cannot resolve; the message names the acquisition's line.
package golangci

import (
	"fmt"
	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"

	"github.com/safereconcile/safereconcile/releasepath"
)

func init() { register.Plugin("releasepath", New) }

// Settings are the plugin's settings in .golangci.yml, those of [releasepath.Config].
type Settings struct {
	// Pairs adds acquire=release pairs in full names, as the -pairs flag does.
	Pairs []string `json:"pairs"`
	// Broad reports the broader tier as well, as the -broad flag does; off by default.
	Broad bool `json:"broad"`
}

// Plugin is the releasepath plugin; golangci-lint makes one with [New].
type Plugin struct{ a *analysis.Analyzer }

// New decodes settings (unknown fields are an error) and returns the plugin.
func New(settings any) (register.LinterPlugin, error) {
	s, err := register.DecodeSettings[Settings](settings)
	if err != nil {
		return nil, fmt.Errorf("releasepath: %w", err) // DecodeSettings says "decoding settings: …" itself
	}
	a, err := releasepath.New(releasepath.Config{Pairs: s.Pairs, GolangciLint: true, Broad: s.Broad})
	if err != nil {
		return nil, err
	}
	return &Plugin{a: a}, nil
}

// BuildAnalyzers returns the configured Analyzer.
func (p *Plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) {
	return []*analysis.Analyzer{p.a}, nil
}

// GetLoadMode says the Analyzer needs type information.
func (p *Plugin) GetLoadMode() string { return register.LoadModeTypesInfo }
