package releasepath_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/safereconcile/safereconcile/releasepath"
)

func TestAnalyzer(t *testing.T) {
	tests := []string{
		"addresshold",
		"cniipam",
		"condefer",
		"handoff",
		"leasescope",
		"mutex",
		"osfile",
		"rollback",
		"suppress",
		"wrapper",
	}
	for _, pkg := range tests {
		t.Run(pkg, func(t *testing.T) {
			analysistest.Run(t, analysistest.TestData(), releasepath.Analyzer, pkg)
		})
	}
}

// TestSuggestedFix checks the #97740 fix on the addresshold shape against its golden file.
func TestSuggestedFix(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), releasepath.Analyzer, "addresshold")
}
