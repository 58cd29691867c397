package releasepath_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/safereconcile/safereconcile/releasepath"
)

// TestAnalyzer checks every rule and every false-positive guard on the testdata packages:
// a "// want" on each return that leaks, and clean after-versions beside them. The packages
// are loaded in one go.
func TestAnalyzer(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), releasepath.Analyzer,
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
	)
}

// TestSuggestedFix checks the #97740 fix on the addresshold shape against its golden file.
func TestSuggestedFix(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), releasepath.Analyzer, "addresshold")
}
