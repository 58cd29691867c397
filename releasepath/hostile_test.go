package releasepath_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/safereconcile/safereconcile/releasepath"
)

// TestHostile checks the shapes of the hostile review: correct controller code releasepath
// must not report and leaks it must. The hostilefail* packages are the shapes it got wrong
// until the hostile review's fixes.
func TestHostile(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), releasepath.Analyzer, "hostilefp", "hostilemiss", "hostilehandle", "hostilesuppress", "hostilelease", "hostiletests",
		"hostilefailstrhandoff", "hostilefailvalueerr", "hostilefailswitcherr", "hostilefailselect", "hostilefaillease", "hostilefailokay")
}

// TestHostileTestsFlag checks that Config.Tests brings _test.go files in, which the default
// Analyzer leaves out (the hostiletests package above).
func TestHostileTestsFlag(t *testing.T) {
	a, err := releasepath.New(releasepath.Config{Tests: true})
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, analysistest.TestData(), a, "hostiletestsflag")
}
