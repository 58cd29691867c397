package releasepath_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/safereconcile/safereconcile/releasepath"
)

// TestMethodValueTakenBeforeTheAcquisitionReleasesWhenCalled: "a method value of the release is
// evidence too, and releases when it is called": also when the value was taken before the
// acquisition (unlock := c.mu.Unlock; c.mu.Lock(); defer unlock()).
func TestMethodValueTakenBeforeTheAcquisitionReleasesWhenCalled(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), releasepath.Analyzer, "methodvaluebeforeacquisition")
}
