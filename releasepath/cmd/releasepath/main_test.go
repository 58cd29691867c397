package main

import (
	"encoding/json"
	"errors"
	"go/format"
	"go/token"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/go/analysis"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/releasepath"
)

// TestMain runs the command itself when the test binary is started with RELEASEPATH_MAIN=1,
// so that the tests below see its exit status and output without building it.
func TestMain(m *testing.M) {
	if os.Getenv("RELEASEPATH_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// TestMalformedPairsExitTwo checks that every malformed -pairs value stops the command with
// a message naming the value and exit status 2, before any package is loaded.
func TestMalformedPairsExitTwo(t *testing.T) {
	tests := []struct {
		name string
		give string
	}{
		{"no release", "example.com/ipam.ExecAdd"},
		{"no package", "Reserve=Release"},
		{"three names", "example.com/ipam.ExecAdd=example.com/ipam.ExecDel=example.com/ipam.ExecCheck"},
		{"leading star", "*example.com/cloud.Client.Reserve=example.com/cloud.Client.Release"},
		{"leading star on the release", "example.com/cloud.Client.Reserve=*example.com/cloud.Client.Release"},
		{"parenthesized receiver", "example.com/cloud.(*Client).Reserve=example.com/cloud.Client.Release"},
		{"four parts", "example.com/cloud.Client.Reserve.Now=example.com/cloud.Client.Release"},
		{"empty release", "example.com/cloud.Client.Reserve=example.com/cloud.Client.Release|"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-pairs="+tt.give, "example.invalid/nothing")
			cmd.Env = append(os.Environ(), "RELEASEPATH_MAIN=1")
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			require.True(t, errors.As(err, &exit), "want an exit status, got %v\n%s", err, out)
			assert.Equal(t, 2, exit.ExitCode(), "%s", out)
			assert.Contains(t, string(out), "releasepath: pair")
		})
	}
}

// module writes a module of three packages into a fresh directory and returns it: util,
// whose CloseQuietly closes its argument; app, which releases one file through it and
// leaks another on an early return; broken, which does not type-check; and usesbroken,
// which imports it.
func module(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.24\n",
		"util/util.go": `package util

import "io"

// CloseQuietly closes c and drops the error.
func CloseQuietly(c io.Closer) { _ = c.Close() }
`,
		"app/app.go": `package app

import (
	"os"

	"example.com/m/util"
)

func Wrapped(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer util.CloseQuietly(f)
	return use(f)
}

func Leak(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	if err := use(f); err != nil {
		return err
	}
	f.Close()
	return nil
}

func use(f *os.File) error { return nil }
`,
		"app/app_test.go": `package app

import "testing"

func TestUse(t *testing.T) { _ = use(nil) }
`,
		"broken/broken.go": "package broken\n\nvar X int = \"not an int\"\n",
		"usesbroken/usesbroken.go": `package usesbroken

import (
	"os"

	"example.com/m/broken"
)

func Leak(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	if broken.X > 0 {
		return nil
	}
	return f.Close()
}
`,
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	return dir
}

// command runs the command in dir and returns its standard output, its standard error and
// its exit status.
func command(t *testing.T, dir string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "RELEASEPATH_MAIN=1", "GOWORK=off", "GOFLAGS=-mod=mod")
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("releasepath %v: %v", args, err)
	}
	return o.String(), e.String(), cmd.ProcessState.ExitCode()
}

// leakLine is the finding at the early return in app.Leak.
const leakLine = "app/app.go:24:3: return may skip f.Close (Open at line 19)"

// TestStandaloneReadsFactsOfImportedPackages checks that the one-package-at-a-time driver
// carries the facts of an imported package to its importers: the file closed through
// util.CloseQuietly is released, and only the leak is reported, with exit status 3.
func TestStandaloneReadsFactsOfImportedPackages(t *testing.T) {
	dir := module(t)
	_, stderr, status := command(t, dir, "-test=false", "./app")
	assert.Equal(t, 3, status, stderr)
	assert.Equal(t, []string{leakLine}, findingLines(stderr, dir))
}

// TestFindingInTestVariantPrintedOnce checks that a finding in a file that is part of both
// app and its test variant is printed once.
func TestFindingInTestVariantPrintedOnce(t *testing.T) {
	dir := module(t)
	_, stderr, status := command(t, dir, "./app")
	assert.Equal(t, 3, status, stderr)
	assert.Equal(t, []string{leakLine}, findingLines(stderr, dir))
}

// TestJSONHasEveryVariantAndExitsZero pins the -json output: the x/tools drivers' tree of
// package ID, analyzer and findings, one entry per package variant, with the finding's end,
// related positions and fix, and exit status 0.
func TestJSONHasEveryVariantAndExitsZero(t *testing.T) {
	dir := module(t)
	stdout, stderr, status := command(t, dir, "-json", "./app")
	assert.Equal(t, 0, status, stderr)
	var tree map[string]map[string][]struct {
		Posn, End, Message string
		Related            []struct{ Posn, End, Message string }
		SuggestedFixes     []struct {
			Message string
			Edits   []struct {
				Filename   string
				Start, End int
				New        string
			}
		} `json:"suggested_fixes"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &tree), stdout)
	assert.ElementsMatch(t, []string{"example.com/m/app", "example.com/m/app [example.com/m/app.test]"}, slices.Collect(maps.Keys(tree)))
	for id, byAnalyzer := range tree {
		ds := byAnalyzer["releasepath"]
		require.Len(t, ds, 1, id)
		d := ds[0]
		assert.Equal(t, filepath.Join(dir, "app/app.go")+":24:3", d.Posn)
		assert.Equal(t, filepath.Join(dir, "app/app.go")+":24:13", d.End)
		assert.Equal(t, "return may skip f.Close (Open at line 19)", d.Message)
		require.Len(t, d.Related, 2)
		require.Len(t, d.SuggestedFixes, 1)
		assert.Len(t, d.SuggestedFixes[0].Edits, 2)
	}
}

// TestFixAppliesTheFixOnceAndFormats checks -fix: the fix reported for app and for its test
// variant is applied once, the file is formatted, the command exits 0, and the fixed package
// is clean.
func TestFixAppliesTheFixOnceAndFormats(t *testing.T) {
	dir := module(t)
	_, stderr, status := command(t, dir, "-fix", "./app")
	require.Equal(t, 0, status, stderr)
	got, err := os.ReadFile(filepath.Join(dir, "app/app.go"))
	require.NoError(t, err)
	assert.Equal(t, `func Leak(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := use(f); err != nil {
		return err
	}
	return nil
}`, funcText(string(got), "func Leak"))
	formatted, err := format.Source(got)
	require.NoError(t, err)
	assert.Equal(t, string(formatted), string(got))
	_, stderr, status = command(t, dir, "./app")
	assert.Equal(t, 0, status, stderr)
}

// TestTypeErrorExitsOneAndOtherPackagesAreStillChecked checks a package that does not
// type-check: its error is printed with its position, its analysis is skipped and says so,
// the other packages are still checked, and the command exits 1.
func TestTypeErrorExitsOneAndOtherPackagesAreStillChecked(t *testing.T) {
	dir := module(t)
	_, stderr, status := command(t, dir, "-test=false", "./...")
	assert.Equal(t, 1, status, stderr)
	assert.Contains(t, stderr, filepath.Join(dir, "broken/broken.go")+":3:13: cannot use \"not an int\"")
	assert.Contains(t, stderr, "ctrlflow: analysis skipped due to errors in package")
	assert.Contains(t, stderr, "releasepath: failed prerequisites: ")
	assert.Equal(t, []string{leakLine}, findingLines(stderr, dir))
}

// TestImporterOfIllTypedPackageIsNotAnalyzed checks that a package whose import does not
// type-check is not analyzed, and says why, word for word as the x/tools driver does: the
// facts of the import are missing, so its leak is not reported.
func TestImporterOfIllTypedPackageIsNotAnalyzed(t *testing.T) {
	dir := module(t)
	_, stderr, status := command(t, dir, "-test=false", "./usesbroken")
	assert.Equal(t, 1, status, stderr)
	assert.Empty(t, findingLines(stderr, dir))
	stdout, stderr, _ := command(t, dir, "-json", "-test=false", "./usesbroken")
	var tree map[string]map[string]struct{ Error string }
	require.NoError(t, json.Unmarshal([]byte(stdout), &tree), stdout+stderr)
	errs := map[string]string{}
	for id, byAnalyzer := range tree {
		for name, v := range byAnalyzer {
			errs[name+"@"+strings.TrimPrefix(id, "example.com/m/")] = v.Error
		}
	}
	assert.Equal(t, map[string]string{
		"ctrlflow@broken":         "analysis skipped due to errors in package",
		"releasefacts@broken":     "failed prerequisites: ctrlflow@example.com/m/broken",
		"ctrlflow@usesbroken":     "failed prerequisites: ctrlflow@example.com/m/broken",
		"releasefacts@usesbroken": "failed prerequisites: ctrlflow@example.com/m/usesbroken, releasefacts@example.com/m/broken",
		"releasepath@usesbroken":  "failed prerequisites: ctrlflow@example.com/m/usesbroken, releasefacts@example.com/m/usesbroken",
	}, errs)
}

// TestNoPackagesExitsOne checks that a pattern matching nothing is an error.
func TestNoPackagesExitsOne(t *testing.T) {
	dir := module(t)
	_, stderr, status := command(t, dir, "./nothing/...")
	assert.Equal(t, 1, status, stderr)
	assert.Contains(t, stderr, "releasepath: ")
}

// TestGoVetRunsTheCommandAsAVetTool checks that go vet -vettool reaches the vet-tool driver
// (-V=full, -flags and the .cfg files) and reports the leak, and only it: the file closed
// through util.CloseQuietly is released by the fact util's facts-only run exported.
func TestGoVetRunsTheCommandAsAVetTool(t *testing.T) {
	dir := module(t)
	cmd := exec.Command("go", "vet", "-vettool="+os.Args[0], "./app")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "RELEASEPATH_MAIN=1", "GOWORK=off", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "go vet exits non-zero on a finding")
	assert.Contains(t, string(out), "app.go:24:3: return may skip f.Close (Open at line 19)")
	assert.Equal(t, 1, strings.Count(string(out), "may skip"), "%s", out)
}

// TestFactsOnlyReadsVetxOnlyFromTheConfig checks which vet-tool runs are for facts alone: a
// .cfg file, last, that says VetxOnly; not one that does not, cannot be read or parsed, nor
// a run without a .cfg file.
func TestFactsOnlyReadsVetxOnlyFromTheConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	dep := write("dep.cfg", `{"ID": "fmt", "VetxOnly": true}`)
	root := write("root.cfg", `{"ID": "example.com/m/app", "VetxOnly": false}`)
	bad := write("bad.cfg", `{"VetxOnly": tru`)
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{[]string{dep}, true},
		{[]string{"-pairs=a.B=a.C", dep}, true},
		{[]string{root}, false},
		{[]string{bad}, false},
		{[]string{filepath.Join(dir, "missing.cfg")}, false},
		{[]string{dep, "./..."}, false},
		{[]string{"-V=full"}, false},
		{nil, false},
	} {
		assert.Equal(t, tt.want, factsOnly(tt.args), "%q", tt.args)
	}
}

// TestWithoutDiagnosticsKeepsTheAnalyzersNameFlagsAndFacts checks that the facts-only copy
// differs from the analyzer by its run alone, which reports nothing.
func TestWithoutDiagnosticsKeepsTheAnalyzersNameFlagsAndFacts(t *testing.T) {
	a := releasepath.Analyzer
	c := withoutDiagnostics(a)
	assert.Equal(t, a.Name, c.Name)
	assert.Equal(t, a.Requires, c.Requires)
	assert.NotNil(t, c.Flags.Lookup("pairs"))
	reported := false
	res, err := c.Run(&analysis.Pass{Report: func(analysis.Diagnostic) { reported = true }})
	assert.NoError(t, err)
	assert.Nil(t, res)
	assert.False(t, reported)
	assert.NotNil(t, a.Run, "the analyzer itself keeps its run")
}

func TestVetInvocation(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{[]string{"-V=full"}, true},
		{[]string{"--V=full"}, true},
		{[]string{"-flags"}, true},
		{[]string{"-broad", "/tmp/go-build1/b001/vet.cfg"}, true},
		{[]string{"./..."}, false},
		{[]string{"-json", "-test=false", "./..."}, false},
		{[]string{"-pairs=a.B=a.C", "example.com/V"}, false},
		{nil, false},
	} {
		assert.Equal(t, tt.want, vetInvocation(tt.args), "%q", tt.args)
	}
}

// TestApplyFixesSkipsAnOverlappingFix checks that of two fixes that edit the same bytes the
// first is applied and the second skipped, with an error that says to run again, and that a
// fix reported twice is applied once.
func TestApplyFixesSkipsAnOverlappingFix(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "a.go")
	src := "package a\n\nvar x = 1\n"
	require.NoError(t, os.WriteFile(name, []byte(src), 0o644))
	fset := token.NewFileSet()
	tf := fset.AddFile(name, -1, len(src))
	tf.SetLinesForContent([]byte(src))
	pos := func(off int) token.Pos { return tf.Pos(off) }
	one := strings.Index(src, "1")
	fix := func(text string) analysis.Diagnostic {
		return analysis.Diagnostic{Pos: pos(one), SuggestedFixes: []analysis.SuggestedFix{{
			Message: "set " + text, TextEdits: []analysis.TextEdit{{Pos: pos(one), End: pos(one + 1), NewText: []byte(text)}},
		}}}
	}
	roots := []*unit{{diags: []analysis.Diagnostic{fix("2"), fix("2")}}, {diags: []analysis.Diagnostic{fix("3")}}}
	err := applyFixes(fset, roots)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "1 of 2 fixes were skipped")
	got, rerr := os.ReadFile(name)
	require.NoError(t, rerr)
	assert.Equal(t, "package a\n\nvar x = 2\n", string(got))
}

// findingLines returns the finding lines of the command's standard error, relative to dir.
func findingLines(stderr, dir string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "return may skip") {
			out = append(out, strings.TrimPrefix(l, dir+string(filepath.Separator)))
		}
	}
	return out
}

// funcText returns the function of src that starts with prefix, to its closing brace.
func funcText(src, prefix string) string {
	i := strings.Index(src, prefix)
	if i < 0 {
		return ""
	}
	j := strings.Index(src[i:], "\n}")
	return src[i : i+j+2]
}

// TestNoPackageNamedExitsOne checks that, as under the x/tools driver, the command run
// without a package prints its usage and exits 1.
func TestNoPackageNamedExitsOne(t *testing.T) {
	dir := module(t)
	_, stderr, status := command(t, dir)
	assert.Equal(t, 1, status, stderr)
	assert.Contains(t, stderr, "Usage: releasepath [-flag] [package]")
}

// TestLegacyVetFlagsAreAccepted checks that the flags the x/tools drivers accept and ignore
// for old vet scripts are accepted and ignored.
func TestLegacyVetFlagsAreAccepted(t *testing.T) {
	dir := module(t)
	for _, flag := range []string{"-tags=foo", "-v", "-all", "-source"} {
		_, stderr, status := command(t, dir, flag, "-test=false", "./app")
		assert.Equal(t, 3, status, "%s: %s", flag, stderr)
		assert.Equal(t, []string{leakLine}, findingLines(stderr, dir), flag)
	}
}

// TestParseErrorsPrintedEachAtItsPosition checks that every syntax error of a file is
// printed at its own position, as go/packages records them, not the first one alone.
func TestParseErrorsPrintedEachAtItsPosition(t *testing.T) {
	dir := module(t)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "syn"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "syn/syn.go"), []byte("package syn\n\nfunc F( {\n"), 0o644))
	_, stderr, status := command(t, dir, "./syn")
	assert.Equal(t, 1, status, stderr)
	var errs []string
	for _, l := range strings.Split(stderr, "\n") {
		if rel, ok := strings.CutPrefix(l, dir+string(filepath.Separator)); ok {
			errs = append(errs, rel)
		}
	}
	assert.Equal(t, []string{
		"syn/syn.go:3:9: expected ')', found '{'",
		"syn/syn.go:3:11: expected ')', found 'EOF'",
		"syn/syn.go:3:11: expected ';', found 'EOF'",
		"syn/syn.go:3:11: missing ',' in parameter list",
	}, errs)
}

// TestFixLeavesALineWithAnotherStatement checks that a release sharing its line with another
// statement (g.Close(); f.Close(), as code gofmt never saw has it) gets no fix: deleting the
// line would delete f.Close() too, and nothing would close f on the success path.
func TestFixLeavesALineWithAnotherStatement(t *testing.T) {
	dir := module(t)
	src := `package two

import "os"

func both(a, b string) error {
	f, err := os.Open(a)
	if err != nil {
		return err
	}
	g, err := os.Open(b)
	if err != nil {
		f.Close()
		return err
	}
	if _, err := g.Stat(); err != nil {
		return err
	}
	g.Close(); f.Close()
	return nil
}
`
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "two"), 0o755))
	name := filepath.Join(dir, "two/two.go")
	require.NoError(t, os.WriteFile(name, []byte(src), 0o644))
	_, stderr, status := command(t, dir, "./two")
	require.Equal(t, 3, status, stderr)
	assert.Contains(t, stderr, "return may skip g.Close (Open at line 10)")
	_, stderr, status = command(t, dir, "-fix", "./two")
	require.Equal(t, 0, status, stderr)
	got, err := os.ReadFile(name)
	require.NoError(t, err)
	assert.Equal(t, src, string(got), "no fix applies")
}

// TestStartHeapDefersTheFirstCollectionThenRestoresTheDefaults checks the vet tool's start
// heap: no collection by GOGC until the heap reaches startHeapBytes, and after the first
// collection the default GOGC and no memory limit, so that a large package's peak is what it
// would have been. A GOGC or GOMEMLIMIT of the user's leaves both alone.
func TestStartHeapDefersTheFirstCollectionThenRestoresTheDefaults(t *testing.T) {
	read := func() (gogc, limit int64) {
		s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
		metrics.Read(s)
		return int64(s[0].Value.Uint64()), int64(s[1].Value.Uint64())
	}
	oldGOGC, oldLimit := read()
	t.Cleanup(func() {
		debug.SetGCPercent(int(oldGOGC))
		debug.SetMemoryLimit(oldLimit)
	})

	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		set := func(k string) string {
			if k == env {
				return "200"
			}
			return ""
		}
		assert.False(t, startHeap(set), "with %s set", env)
		gogc, limit := read()
		assert.Equal(t, oldGOGC, gogc, "with %s set, GOGC is left alone", env)
		assert.Equal(t, oldLimit, limit, "with %s set, the limit is left alone", env)
	}

	require.True(t, startHeap(func(string) string { return "" }))
	gogc, limit := read()
	assert.Equal(t, int64(-1), gogc, "no collection by GOGC at the start") // off
	assert.Equal(t, int64(startHeapBytes), limit)

	runtime.GC()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if gogc, limit = read(); gogc == 100 && limit == math.MaxInt64 {
			break
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	assert.Equal(t, int64(100), gogc, "the default GOGC after the first collection")
	assert.Equal(t, int64(math.MaxInt64), limit, "no limit after the first collection")
}
