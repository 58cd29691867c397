package releasepath_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUpstreamKubernetes97740 runs the command on the real package of kubernetes#97740,
// k8s.io/legacy-cloud-providers/gce, through the Go module proxy: v0.20.1 is flagged at
// exactly the five returns that skip the release, v0.20.2 is clean, go vet -vettool reports
// the same, and -fix turns v0.20.1 into v0.20.2. One temporary module holds v0.20.1 as a dependency and the two copies, so that the
// dependencies are loaded once.
func TestUpstreamKubernetes97740(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the real kubernetes#97740 package, which needs the module proxy and type-checks k8s.io/legacy-cloud-providers/gce")
	}
	dir := t.TempDir()
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	run := func(name string, args ...string) (string, error) {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	write(t, filepath.Join(dir, "go.mod"), "module upstreamcheck\n\ngo 1.24\n\nrequire k8s.io/legacy-cloud-providers v0.20.1\n")
	write(t, filepath.Join(dir, "main.go"), "package upstreamcheck\n\nimport _ \"k8s.io/legacy-cloud-providers/gce\"\n")
	if out, err := run("go", "mod", "tidy"); err != nil {
		t.Skipf("cannot download k8s.io/legacy-cloud-providers v0.20.1 through the module proxy: %v\n%s", err, out)
	}
	dirs := map[string]string{}
	for _, v := range []string{"v0.20.1", "v0.20.2"} {
		out, err := run("go", "mod", "download", "-json", "k8s.io/legacy-cloud-providers@"+v)
		if err != nil {
			t.Skipf("cannot download k8s.io/legacy-cloud-providers %s through the module proxy: %v\n%s", v, err, out)
		}
		var m struct{ Dir string }
		require.NoError(t, json.Unmarshal([]byte(out), &m))
		dirs[v] = m.Dir
	}
	copyPkg(t, filepath.Join(dirs["v0.20.2"], "gce"), filepath.Join(dir, "gce0202"))
	copyPkg(t, filepath.Join(dirs["v0.20.1"], "gce"), filepath.Join(dir, "gcefix"))

	bin := filepath.Join(dir, "releasepath")
	build := exec.Command("go", "build", "-o", bin, "./cmd/releasepath")
	bout, err := build.CombinedOutput()
	require.NoError(t, err, "build releasepath: %s", bout)

	const file = "gce_loadbalancer_internal.go"
	want := []int{173, 179, 205, 213, 218}

	// Standalone, -json: v0.20.1 flagged at the five returns and nowhere else; v0.20.2 clean.
	out, err := run(bin, "-test=false", "-json", "k8s.io/legacy-cloud-providers/gce", "./gce0202")
	require.NoError(t, err, out)
	diags := parseJSON(t, out)
	var lines []int
	for pkg, ds := range diags {
		for _, d := range ds {
			base, line := posn(t, d.Posn)
			require.Equal(t, "k8s.io/legacy-cloud-providers/gce", pkg, "a finding outside v0.20.1: %s %s", d.Posn, d.Message)
			require.Equal(t, file, base, "a finding outside %s: %s %s", file, d.Posn, d.Message)
			assert.Equal(t, "return may skip addrMgr.ReleaseAddress (HoldAddress at line 164)", d.Message)
			require.Len(t, d.Related, 2)
			_, acq := posn(t, d.Related[0].Posn)
			_, rel := posn(t, d.Related[1].Posn)
			assert.Equal(t, 164, acq, "related information at the acquisition")
			assert.Equal(t, 229, rel, "related information at the release")
			lines = append(lines, line)
		}
	}
	sort.Ints(lines)
	assert.Equal(t, want, lines)

	// go vet -vettool: the same five findings, on the copy of v0.20.1 before -fix changes it.
	// Twice: the second run replays go vet's cache, which must keep the findings too.
	for range 2 {
		out, err = run("go", "vet", "-vettool="+bin, "./gcefix")
		require.Error(t, err, "go vet reports findings with a non-zero exit")
		var vetLines []int
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, file+":") && strings.Contains(l, "may skip addrMgr.ReleaseAddress") {
				_, n := posn(t, strings.TrimSuffix(strings.Fields(l)[0], ":"))
				vetLines = append(vetLines, n)
			}
		}
		assert.Equal(t, want, vetLines, "go vet output:\n%s", out)
	}

	// -fix on the copy of v0.20.1 writes the v0.20.2 change: the release deferred right after
	// the hold's error check, and the release at the end of the success path deleted with its
	// nil guard. What follows that release, g.GetRegionForwardingRule and the status, mentions
	// neither the address manager nor the address, so the deferred release may run after it.
	// Three differences remain, none in what the code does: v0.20.2 has a comment on the
	// defer; it placed the defer one statement later, after the log of the reserved IP, where
	// the fix places it right after the error check; and the driver's formatting of the fixed
	// file adds a //go:build line beside the old // +build one.
	_, _ = run(bin, "-test=false", "-fix", "./gcefix")
	var fixed []string
	for _, l := range readLines(t, filepath.Join(dir, "gcefix", file)) {
		if l != "//go:build !providerless" {
			fixed = append(fixed, l)
		}
	}
	var v0202 []string
	var logLine string
	for _, l := range readLines(t, filepath.Join(dir, "gce0202", file)) {
		switch {
		case l == "// Release the address if all resources were created successfully, or if we error out.":
		case strings.Contains(l, `reserved IP %q for the forwarding rule`):
			logLine = l // moved after the defer
		default:
			v0202 = append(v0202, l)
			if logLine != "" && l == "}()" {
				v0202, logLine = append(v0202, logLine), ""
			}
		}
	}
	assert.Equal(t, v0202, fixed, "-fix on v0.20.1 writes v0.20.2's change")
	out, err = run(bin, "-test=false", "-json", "./gcefix")
	require.NoError(t, err, out)
	assert.Empty(t, parseJSON(t, out)["upstreamcheck/gcefix"], "the fixed copy is clean")
}

type jsonDiag struct {
	Posn    string `json:"posn"`
	Message string `json:"message"`
	Related []struct {
		Posn string `json:"posn"`
	} `json:"related"`
}

// parseJSON reads the -json output: package → analyzer → diagnostics.
func parseJSON(t *testing.T, out string) map[string][]jsonDiag {
	t.Helper()
	res := map[string][]jsonDiag{}
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var tree map[string]map[string]json.RawMessage
		require.NoError(t, dec.Decode(&tree), out)
		for pkg, byAnalyzer := range tree {
			raw, ok := byAnalyzer["releasepath"]
			if !ok {
				continue
			}
			var ds []jsonDiag
			require.NoError(t, json.Unmarshal(raw, &ds), string(raw))
			res[pkg] = append(res[pkg], ds...)
		}
	}
	return res
}

// posn splits "path/file.go:line:col" into the file's base name and the line.
func posn(t *testing.T, p string) (string, int) {
	t.Helper()
	parts := strings.Split(p, ":")
	require.GreaterOrEqual(t, len(parts), 3, p)
	n, err := strconv.Atoi(parts[len(parts)-2])
	require.NoError(t, err, p)
	return filepath.Base(strings.Join(parts[:len(parts)-2], ":")), n
}

func write(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

// copyPkg copies the non-test Go files of a package directory.
func copyPkg(t *testing.T, from, to string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(to, 0o755))
	ents, err := os.ReadDir(from)
	require.NoError(t, err)
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		require.NoError(t, err)
		write(t, filepath.Join(to, e.Name()), string(b))
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return out
}
