package releasepath_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/safereconcile/safereconcile/releasepath"
)

// TestReleaseOfAnotherFieldElementOrEntryIsNoEvidenceAndReleasesNothing: "samevalue: the same
// value or arguments are compared ... so m.ReleaseAddress(other) neither releases
// m.HoldAddress(a) nor is evidence for it". n.b is another value than n.a, s[1] than s[0],
// byName["b"] than byName["a"].
func TestReleaseOfAnotherFieldElementOrEntryIsNoEvidenceAndReleasesNothing(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), releasepath.Analyzer, "othervalueselector")
}
