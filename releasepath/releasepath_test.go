package releasepath_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/safereconcile/safereconcile/releasepath"
)

func TestAnalyzer(t *testing.T) {
	tests := []string{
		"addresshold",
	}
	for _, pkg := range tests {
		t.Run(pkg, func(t *testing.T) {
			analysistest.Run(t, analysistest.TestData(), releasepath.Analyzer, pkg)
		})
	}
}
