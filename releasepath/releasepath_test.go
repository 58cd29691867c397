package releasepath_test

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/safereconcile/safereconcile/releasepath"
)

// TestFactsSummarizeWhatExportedFunctionsRelease checks the facts the summaries travel in:
// one for each exported function that releases something of a parameter or its receiver,
// none for one that only reads it or cannot be called from outside.
func TestFactsSummarizeWhatExportedFunctionsRelease(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), releasepath.FactsAnalyzer, "wrapper/closers", "holdcallers/store")
}

// TestBroadTierReportsWhatTheDefaultKeepsSilent checks the opt-in tier on package broad:
// an error return of a command whose caller exits, a value passed to a function value, a
// rollback at an error return no test settled.
func TestBroadTierReportsWhatTheDefaultKeepsSilent(t *testing.T) {
	a, err := releasepath.New(releasepath.Config{Broad: true})
	require.NoError(t, err)
	analysistest.Run(t, analysistest.TestData(), a, "broad")
}

// TestAnalyzer checks every rule on its testdata package: a "// want" on each return that
// leaks, and clean code beside it that the rule must not report. The packages are loaded in
// one go.
func TestAnalyzer(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), releasepath.Analyzer,
		"addresshold",
		"aliasrelease",
		"calledliteral",
		"callerexits",
		"callerexits/lib",
		"cliaction",
		"cliaction/commands",
		"cliaction/legacy",
		"cliaction/plugin",
		"cniipam",
		"closurevar",
		"commandends",
		"commandends/deferred",
		"commandends/elsebranch",
		"commandends/fatal",
		"commandends/goeson",
		"commandends/table",
		"commandends/tableforms",
		"commandends/tablegoeson",
		"compositehandoff",
		"condefer",
		"correlated",
		"deferguard",
		"deferredbefore",
		"etcdsession",
		"enteredholding",
		"errorevidence",
		"handoff",
		"receiverowned",
		"rangerelease",
		"receiverstate",
		"holdsonsuccess",
		"holdcallers",
		"holderrelease",
		"releaseflag",
		"resultholds",
		"failurebranch",
		"funcvar",
		"leadingverb",
		"leaks",
		"leasehandoff",
		"leasescope",
		"lockmode",
		"loopinstance",
		"sureassertion",
		"methodvalue",
		"mutex",
		"netconn",
		"neverreturns",
		"nilguard",
		"notaleak",
		"osfile",
		"paramrelease",
		"reasonless",
		"receiverfield",
		"releasemethodvalue",
		"rollback",
		"samevalue",
		"selectend",
		"stringhandoff",
		"structholder",
		"suppress",
		"switcherr",
		"testfiles",
		"transaction",
		"valuehandoff",
		"valuewitherror",
		"wrapper",
	)
}

// TestSuggestedFix checks the suggested defer against the golden files: the #97740 shape
// with the release last (addresshold), and for each resource class the shapes where moving
// the release would change what the success path does, which keep their finding and get no
// fix (suggestedfix).
func TestSuggestedFix(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), releasepath.Analyzer, "addresshold", "suggestedfix", "linedirective")
}

// TestNewRejectsMalformedPairs checks that New refuses each malformed pair with an error
// that names it, and accepts full names of functions and methods.
func TestNewRejectsMalformedPairs(t *testing.T) {
	tests := []struct {
		name    string
		give    string
		wantErr bool
	}{
		{name: "function", give: "example.com/ipam.ExecAdd=example.com/ipam.ExecDel"},
		{name: "method", give: "example.com/cloud.Client.Reserve=example.com/cloud.Client.Release"},
		{name: "two releases", give: "example.com/cloud.Client.Reserve=example.com/cloud.Client.Release|example.com/cloud.Client.Free"},
		{name: "standard library", give: "os.Open=os.File.Close"},
		{name: "major version", give: "go.etcd.io/etcd/client/v3.Lease.Grant=go.etcd.io/etcd/client/v3.Lease.Revoke"},
		{name: "no release", give: "example.com/ipam.ExecAdd", wantErr: true},
		{name: "no package", give: "Reserve=Release", wantErr: true},
		{name: "three names", give: "example.com/ipam.ExecAdd=example.com/ipam.ExecDel=example.com/ipam.ExecCheck", wantErr: true},
		{name: "leading star", give: "*example.com/cloud.Client.Reserve=example.com/cloud.Client.Release", wantErr: true},
		{name: "leading star on the release", give: "example.com/cloud.Client.Reserve=*example.com/cloud.Client.Release", wantErr: true},
		{name: "parenthesized receiver", give: "example.com/cloud.(*Client).Reserve=example.com/cloud.Client.Release", wantErr: true},
		{name: "four parts", give: "example.com/cloud.Client.Reserve.Now=example.com/cloud.Client.Release", wantErr: true},
		{name: "space inside", give: "example.com/cloud.Client.Re serve=example.com/cloud.Client.Release", wantErr: true},
		{name: "empty release", give: "example.com/cloud.Client.Reserve=", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := releasepath.New(releasepath.Config{Pairs: []string{tt.give}})
			if tt.wantErr {
				require.Error(t, err)
				assert.Regexp(t, `^releasepath: pair "`, err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "releasepath", a.Name)
		})
	}
}

// TestMessageIsDeterministic runs a configured pair whose release both the client and the
// reserved address have: each run names the same one, the client, declared first.
func TestMessageIsDeterministic(t *testing.T) {
	a, err := releasepath.New(releasepath.Config{Pairs: []string{"message.Client.Reserve=message.Client.Release"}})
	require.NoError(t, err)
	for range 8 {
		analysistest.Run(t, analysistest.TestData(), a, "message")
	}
}

// TestDocIsThePackageCommentSection checks that the Analyzer's Doc, read from doc.go's lines
// without a parser, is the text go/doc gives: the package comment from its "# Analyzer
// releasepath" heading on, without the "releasepath:" prefix.
func TestDocIsThePackageCommentSection(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	require.NoError(t, err)
	text := f.Doc.Text()
	_, section, ok := strings.Cut(text, "# Analyzer releasepath\n")
	require.True(t, ok, "doc.go has no # Analyzer releasepath section")
	want := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(section), "releasepath:"))
	assert.Equal(t, want, releasepath.Analyzer.Doc)
	assert.True(t, strings.HasPrefix(releasepath.Analyzer.Doc, "check that every return"), "Doc starts with the summary line")
}
