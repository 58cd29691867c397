package releasepath_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/safereconcile/safereconcile/releasepath"
)

// TestNoSuggestedFixWhenTheReleasesReceiverIsReassigned: a diagnostic carries the suggested
// defer "only when it cannot change behaviour". Deferred right after the Lock, c.mu.Unlock()
// evaluates c before the function reassigns it, so it unlocks another mutex than the Unlock it
// replaces (the golden file is the source unchanged: no fix).
func TestNoSuggestedFixWhenTheReleasesReceiverIsReassigned(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), releasepath.Analyzer, "fixreceiverreassigned")
}
