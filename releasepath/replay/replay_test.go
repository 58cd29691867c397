package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseFindingsNormalisesToModuleRelativePaths pins the normal form a verdict is matched on:
// module@version, path:line relative to the module's root, and the acquisition's name and line,
// from the standalone command's -json output; a package that did not type-check is an error,
// and a diagnostic that is not a leak is left out.
func TestParseFindingsNormalisesToModuleRelativePaths(t *testing.T) {
	out := `{
	"example.com/m/pkg": {"releasepath": [
		{"posn": "/w/m/pkg/a.go:173:3", "message": "return may skip addrMgr.ReleaseAddress (HoldAddress at line 164)"},
		{"posn": "/w/m/pkg/a.go:12:1", "message": "end of function may skip mu.Unlock (Lock at line 9)"},
		{"posn": "/w/m/pkg/a.go:5:1", "message": "//releasepath:ok needs a reason: //releasepath:ok <why no release is missing>; it silences nothing without one"}
	]}
}`
	fs, err := parseFindings([]byte(out), "/w/m", "example.com/m@v1.0.0")
	require.NoError(t, err)
	require.Len(t, fs, 2)
	assert.Equal(t, "example.com/m@v1.0.0\tpkg/a.go:12\tLock:9", fs[0].key())
	assert.Equal(t, "pkg/a.go:173", fs[1].pos())
	assert.Equal(t, "HoldAddress:164 → addrMgr.ReleaseAddress", fs[1].acq())

	_, err = parseFindings([]byte(`{"example.com/m/pkg": {"releasepath": {"error": "a.go:1:1: undefined: x"}}}`), "/w/m", "example.com/m@v1.0.0")
	assert.ErrorContains(t, err, "undefined: x")

	_, err = parseFindings([]byte(`{"p": {"releasepath": [{"posn": "/elsewhere/a.go:3:1", "message": "return may skip f.Close (Open at line 2)"}]}}`), "/w/m", "example.com/m@v1.0.0")
	assert.ErrorContains(t, err, "outside the module")
}

// TestJudgeCountsPerFindingAndPerAcquisition pins the arithmetic of the precision table: a
// finding counts under its verdict, an acquisition under the best verdict of its findings, an
// untriaged finding under neither, and a verdict nothing reported any more is lost.
func TestJudgeCountsPerFindingAndPerAcquisition(t *testing.T) {
	const mv = "example.com/m@v1.0.0"
	c := codebase{half: "heldout", modver: mv}
	f := func(line, acqLine int) finding {
		return finding{modver: mv, path: "a.go", line: line, acqName: "Lock", acqLine: acqLine, release: "mu.Unlock"}
	}
	verdicts := []verdict{
		{modver: mv, pos: "a.go:20", acq: "Lock:10 → mu.Unlock", word: "real", why: "w"},
		{modver: mv, pos: "a.go:21", acq: "Lock:10 → mu.Unlock", word: "false", why: "w"},
		{modver: mv, pos: "a.go:40", acq: "Lock:30 → mu.Unlock", word: "benign", why: "w"},
		{modver: mv, pos: "a.go:60", acq: "Lock:50 → c.mu.Unlock", word: "real", why: "no longer reported"},
		{modver: "other@v1.0.0", pos: "a.go:20", acq: "Lock:10 → mu.Unlock", word: "false", why: "another code base"},
	}
	m := measurement{findings: []finding{f(20, 10), f(21, 10), f(40, 30), f(41, 30), f(20, 10)}, wall: time.Second}
	s := judge(c, 200000, m, verdicts)
	assert.Equal(t, 4, s.findings, "the same return and acquisition twice is one finding")
	assert.Equal(t, [4]int{1, 0, 1, 1}, s.counts)
	require.Len(t, s.untriaged, 1)
	assert.Equal(t, "a.go:41", s.untriaged[0].pos())
	require.Len(t, s.lost, 1)
	assert.Equal(t, "a.go:60", s.lost[0].pos)
	assert.Equal(t, 1, s.lostReal())
	assert.Equal(t, "33% (1/3)", s.perFinding())
	assert.Equal(t, "50% (1/2)", s.perAcquisition(), "Lock:10 is real through its best finding, Lock:30 benign")
	assert.Equal(t, "0.5", s.falsePer100k())
}

// TestVerdictMatchesWhateverTheReleaseIsCalled pins that a verdict is keyed on the return and
// the acquisition, not on how the message names the release.
func TestVerdictMatchesWhateverTheReleaseIsCalled(t *testing.T) {
	v := verdict{modver: "m@v1.0.0", pos: "a.go:3", acq: "Open:2 → f.Close"}
	got := finding{modver: "m@v1.0.0", path: "a.go", line: 3, acqName: "Open", acqLine: 2, release: "file.Close"}
	assert.Equal(t, v.key(), got.key())
}

// TestFilesRejectWhatTheyCannotMean checks that each committed file is refused, with its name
// and line, when a row cannot be read one way only.
func TestFilesRejectWhatTheyCannotMean(t *testing.T) {
	tests := []struct {
		name, give, want string
		n                int
		header           string
		parse            func([][]string, string) error // the file's parser, its result dropped
	}{
		{"corpus half", "half\tfield\tmodule@version\tpatterns\nbest\tdb\tm@v1.0.0\t./...\n", "want tune or heldout", 4, corpusHeader,
			errOnly(parseCorpus)},
		{"corpus version", "half\tfield\tmodule@version\tpatterns\ntune\tdb\tm\t./...\n", "is not module@version", 4, corpusHeader,
			errOnly(parseCorpus)},
		{"corpus twice", "half\tfield\tmodule@version\tpatterns\ntune\tdb\tm@v1.0.0\t./...\nheldout\tdb\tm@v1.0.0\t./...\n", "listed twice", 4, corpusHeader,
			errOnly(parseCorpus)},
		{"verdict word", verdictsHeader + "\nm@v1.0.0\ta.go:3\tOpen:2 → f.Close\tmaybe\tw\n", "want one of real, arguable, benign, false", 5, verdictsHeader,
			errOnly(parseVerdicts)},
		{"verdict without why", verdictsHeader + "\nm@v1.0.0\ta.go:3\tOpen:2 → f.Close\treal\t\n", "needs a sentence why", 5, verdictsHeader,
			errOnly(parseVerdicts)},
		{"verdict without version", verdictsHeader + "\nexample.com/m\ta.go:3\tOpen:2 → f.Close\treal\tw\n", "is not module@version", 5, verdictsHeader,
			errOnly(parseVerdicts)},
		{"verdict position", verdictsHeader + "\nm@v1.0.0\ta.go\tOpen:2 → f.Close\treal\tw\n", "is not path:line", 5, verdictsHeader,
			errOnly(parseVerdicts)},
		{"verdict acquisition", verdictsHeader + "\nm@v1.0.0\ta.go:3\tOpen → f.Close\treal\tw\n", "is not Name:line", 5, verdictsHeader,
			errOnly(parseVerdicts)},
		{"recall lines", recallHeader + "\nR1\tm\tv1.0.0\tv1.0.1\tm/p\tp/a.go\tf\tOpen\t3,x\tfix\n", "comma-separated line numbers", 10, recallHeader,
			errOnly(parseRecall)},
		{"fields", "half\tfield\tmodule@version\tpatterns\ntune\tdb\tm@v1.0.0\n", "3 fields, want 4", 4, corpusHeader,
			func(r [][]string, n string) error { return nil }},
		{"header", "module\tversion\n", "want the header", 4, corpusHeader,
			func(r [][]string, n string) error { return nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, err := readTSV(strings.NewReader("# a comment\n\n"+tt.give), "f.tsv", tt.n, tt.header)
			if err == nil {
				err = tt.parse(rows, "f.tsv")
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.True(t, strings.HasPrefix(err.Error(), "replay: f.tsv"), err.Error())
		})
	}
}

// TestGeneratedFilesAreNotCounted pins how lines are counted: every line of a hand-written file,
// none of a file marked generated.
func TestGeneratedFilesAreNotCounted(t *testing.T) {
	dir := t.TempDir()
	hand := filepath.Join(dir, "a.go")
	gen := filepath.Join(dir, "zz_generated.go")
	require.NoError(t, os.WriteFile(hand, []byte("// Package a.\npackage a\n\nfunc f() {}"), 0o644))
	require.NoError(t, os.WriteFile(gen, []byte("// Code generated by deepcopy-gen. DO NOT EDIT.\n\npackage a\n\nfunc g() {}\n"), 0o644))
	n, err := countFile(hand)
	require.NoError(t, err)
	assert.Equal(t, 4, n)
	n, err = countFile(gen)
	require.NoError(t, err)
	assert.Equal(t, 0, n)
}

// TestFuncLinesFindsMethodsByReceiver pins how a recall case names its function.
func TestFuncLinesFindsMethodsByReceiver(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.go")
	src := "package a\n\ntype T[K any] struct{}\n\nfunc f() {}\n\nfunc (t *T[K]) f() {\n\treturn\n}\n\nfunc (T[K]) g() {}\n"
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	for name, want := range map[string][2]int{"f": {5, 5}, "(*T).f": {7, 9}, "T.g": {11, 11}} {
		from, to, err := funcLines(path, name)
		require.NoError(t, err, name)
		assert.Equal(t, want, [2]int{from, to}, name)
	}
	_, _, err := funcLines(path, "T.f")
	assert.ErrorContains(t, err, "no function T.f")
}

// TestWriteReplacesOnlyItsSection pins -write: the text between a section's markers is
// replaced, everything else is kept, and a file without the markers is an error.
func TestWriteReplacesOnlyItsSection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "PRECISION.md")
	doc := "# Title\n<!-- replay:precision -->\nold\n<!-- replay:precision:end -->\nprose\n<!-- replay:recall -->\nkept\n<!-- replay:recall:end -->\n"
	require.NoError(t, os.WriteFile(path, []byte(doc), 0o644))
	require.NoError(t, writeBetweenMarkers(path, "precision", "new table\n"))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, strings.Replace(doc, "old\n", "new table\n", 1), string(b))
	assert.ErrorContains(t, writeBetweenMarkers(path, "cost", "x"), "has no <!-- replay:cost -->")
}

// TestCheckFailsOnALostRealVerdictOnly pins what -check fails on besides an untriaged
// finding: a real verdict that nothing reports any more. A lost arguable, benign or false
// verdict is a diff in the table, not a failure.
func TestCheckFailsOnALostRealVerdictOnly(t *testing.T) {
	const mv = "example.com/m@v1.0.0"
	for _, word := range verdictWords {
		vs := []verdict{{modver: mv, pos: "a.go:20", acq: "Lock:10 → mu.Unlock", word: word, why: "w"}}
		s := judge(codebase{half: "tune", modver: mv}, 1000, measurement{}, vs)
		require.Len(t, s.lost, 1)
		p := (&report{scores: []*score{s}}).problems()
		if word == "real" {
			assert.Contains(t, p, "1 real findings no longer reported")
		} else {
			assert.Empty(t, p, word)
		}
	}
}

// TestPrecisionPageHoldsTheMeasuredFigures pins that PRECISION.md, which says every figure on
// it is written by the harness, holds each table the harness writes.
func TestPrecisionPageHoldsTheMeasuredFigures(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "PRECISION.md"))
	require.NoError(t, err)
	for _, name := range []string{"precision", "recall", "cost"} {
		start, end := "<!-- replay:"+name+" -->", "<!-- replay:"+name+":end -->"
		i, j := strings.Index(string(b), start), strings.Index(string(b), end)
		require.True(t, i >= 0 && j > i, "no %s section", name)
		assert.Contains(t, string(b[i+len(start):j]), "\n|---|", "the %s section holds no table", name)
	}
}

// TestCorpusTextListsEachHalfInOrder pins the corpus section: the counts, and each half's
// modules in the order the run scored them, without their versions.
func TestCorpusTextListsEachHalfInOrder(t *testing.T) {
	rep := &report{scores: []*score{
		{name: "example.com/a@v1.0.0", half: "tune"},
		{name: "example.com/b/v2@v2.1.0", half: "heldout"},
		{name: "example.com/c@v0.3.0", half: "tune"},
	}}
	assert.Equal(t, "3 code bases: 2 in the tune half (`example.com/a`, `example.com/c`) and 1 held out (`example.com/b/v2`).\n",
		rep.corpusText())
}

// TestPrecisionPageListsTheCorpus pins that PRECISION.md's list of the code bases is the one
// corpus.tsv has: a code base added or moved without a new precision run fails here.
func TestPrecisionPageListsTheCorpus(t *testing.T) {
	rows, err := openTSV("corpus.tsv", 4, corpusHeader)
	require.NoError(t, err)
	bases, err := parseCorpus(rows, "corpus.tsv")
	require.NoError(t, err)
	rep := &report{}
	for _, c := range bases {
		rep.scores = append(rep.scores, &score{name: c.modver, half: c.half})
	}
	b, err := os.ReadFile(filepath.Join("..", "PRECISION.md"))
	require.NoError(t, err)
	start, end := "<!-- replay:corpus -->\n", "<!-- replay:corpus:end -->"
	i, j := strings.Index(string(b), start), strings.Index(string(b), end)
	require.True(t, i >= 0 && j > i, "no corpus section")
	assert.Equal(t, rep.corpusText(), string(b[i+len(start):j]))
}

// errOnly keeps a parser's error and drops its result.
func errOnly[T any](parse func([][]string, string) (T, error)) func([][]string, string) error {
	return func(r [][]string, n string) error { _, err := parse(r, n); return err }
}

// TestDropMissingReplacesKeepsWhatTheReleaseHolds checks that a replace directive pointing to
// a directory the release does not hold is dropped, and that one to a directory it holds, or
// to a module of the proxy, stays.
func TestDropMissingReplacesKeepsWhatTheReleaseHolds(t *testing.T) {
	dir := t.TempDir()
	gomod := `module example.com/m

go 1.24

require (
	example.com/missing v1.0.0
	example.com/present v1.0.0
	example.com/other v1.0.0
)

replace example.com/missing => ./missing

replace example.com/present => ./present

replace example.com/other v1.0.0 => example.com/fork v1.1.0
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "present"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "present", "go.mod"), []byte("module example.com/present\n"), 0o644))
	r := newRunner(t.TempDir(), "", io.Discard)
	require.NoError(t, r.dropMissingReplaces(t.Context(), dir))
	got, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	require.NoError(t, err)
	assert.NotContains(t, string(got), "./missing")
	assert.Contains(t, string(got), "example.com/present => ./present")
	assert.Contains(t, string(got), "example.com/other v1.0.0 => example.com/fork v1.1.0")
	assert.Contains(t, string(got), "example.com/missing v1.0.0")
}
