package releasepath_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/safereconcile/safereconcile/releasepath"
)

// TestHandoffCountsOnlyAsALineOfTheFunctionsDocComment: "//releasepath:handoff as a line of the
// doc comment of a function that returns holding the resource on purpose silences the
// function". A directive in a comment that go/ast does not attach to the function as its doc
// (detached by a blank line, above another doc comment, trailing the line above, on the func
// line) silences nothing.
func TestHandoffCountsOnlyAsALineOfTheFunctionsDocComment(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), releasepath.Analyzer, "handoffdoccomment")
}
