package ilb

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// upstreamGolden is the replica's per-call table. The conformance test of each module under
// ../upstream requires the real upstream code to produce it, row for row.
const upstreamGolden = "testdata/upstream.json"

var update = flag.Bool("update", false, "rewrite "+upstreamGolden+" from the replica")

// upstreamTable is the golden file's schema; ../upstream reads the same JSON.
type upstreamTable struct {
	Service string        `json:"service"` // namespace/name of the Service every row ensures
	Rows    []upstreamRow `json:"rows"`    // in the order a successful v1.20.1 makes the calls
	// Calls lists, per version, the calls a successful ensure makes ("addresses.get #1"),
	// in order.
	Calls map[string][]string `json:"calls"`
}

// An upstreamRow is one failing call: the nth call of Op, counted per Op as the fake counts.
type upstreamRow struct {
	Op    string          `json:"op"`
	Nth   int             `json:"nth"`
	V1201 upstreamOutcome `json:"v1.20.1"`
	V1202 upstreamOutcome `json:"v1.20.2"`
}

// An upstreamOutcome is what an ensure reported and what it left.
type upstreamOutcome struct {
	Err  bool `json:"err"`  // the ensure returned an error
	Left bool `json:"left"` // the reservation named after the load balancer still exists
}

func toUpstream(o outcome) upstreamOutcome {
	return upstreamOutcome{Err: o.err != nil, Left: o.left != nil}
}

// TestUpstreamGolden keeps testdata/upstream.json equal to what the replicas of v1.20.1 and
// v1.20.2 do; run it with -update after a deliberate change to them.
func TestUpstreamGolden(t *testing.T) {
	svc := demoService()
	calls, err := failEach(t.Context(), svc)
	require.NoError(t, err)
	got := upstreamTable{Service: svc.Namespace + "/" + svc.Name}
	for _, fc := range calls {
		got.Rows = append(got.Rows, upstreamRow{
			Op: string(fc.point.op), Nth: fc.point.nth, V1201: toUpstream(fc.v1201), V1202: toUpstream(fc.v1202),
		})
	}
	got.Calls = map[string][]string{}
	for _, sh := range []shape{v1201Shape, v1202Shape} {
		points, err := failurePoints(t.Context(), svc, sh)
		require.NoError(t, err)
		for _, p := range points {
			got.Calls[sh.name] = append(got.Calls[sh.name], p.String())
		}
	}
	enc, err := encodeTable(got)
	require.NoError(t, err)
	if *update {
		require.NoError(t, os.WriteFile(upstreamGolden, enc, 0o644))
	}

	raw, err := os.ReadFile(upstreamGolden)
	require.NoError(t, err, "run go test -run TestUpstreamGolden -update to create it")
	var want upstreamTable
	require.NoError(t, json.Unmarshal(raw, &want))
	require.Empty(t, cmp.Diff(want, got), "the replicas changed (-golden +replica); rerun with -update and the upstream conformance test")
	require.Equal(t, string(raw), string(enc), "%s is not in canonical form; rerun with -update", upstreamGolden)
}

// encodeTable writes tb as JSON with one row a line, so that a change to the replicas shows as
// a one-line diff per row.
func encodeTable(tb upstreamTable) ([]byte, error) {
	var b bytes.Buffer
	service, err := json.Marshal(tb.Service)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(&b, "{\n\t\"service\": %s,\n\t\"rows\": [\n", service)
	for i, r := range tb.Rows {
		row, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		sep := ","
		if i == len(tb.Rows)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "\t\t%s%s\n", row, sep)
	}
	b.WriteString("\t],\n\t\"calls\": {\n")
	versions := slices.Sorted(maps.Keys(tb.Calls))
	for i, v := range versions {
		key, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		calls, err := json.Marshal(tb.Calls[v])
		if err != nil {
			return nil, err
		}
		sep := ","
		if i == len(versions)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "\t\t%s: %s%s\n", key, calls, sep)
	}
	b.WriteString("\t}\n}\n")
	return b.Bytes(), nil
}

// upstreamModules are the modules that run the real code: the harness (with v0.20.1) and one
// module per version. They are not in go.work (they need k8s.io/* v0.20), so they build with
// GOWORK=off.
var upstreamModules = []string{"../upstream", "../upstream/v0201", "../upstream/v0202"}

// TestUpstreamConformance runs the conformance test of each upstream module, so that the
// repository's one test command checks the replicas against the real code. It skips only when
// the modules' dependencies cannot be downloaded.
func TestUpstreamConformance(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH, so the upstream modules cannot be tested")
	}
	// The go command caches this test's result by the files it reads; the upstream modules
	// are read by a child process, so read them here to make a change to them rerun it.
	require.NoError(t, filepath.WalkDir("../upstream", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		_, err = os.ReadFile(path)
		return err
	}))

	for _, dir := range upstreamModules {
		t.Run(strings.TrimPrefix(dir, "../"), func(t *testing.T) {
			run := func(args ...string) (string, error) {
				cmd := exec.CommandContext(t.Context(), goCmd, args...)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "GOWORK=off")
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				err := cmd.Run()
				return out.String(), err
			}
			if out, err := run("mod", "download"); err != nil {
				// A go.sum that does not match what was downloaded is a failure, not a
				// reason to skip.
				for _, bad := range []string{"SECURITY ERROR", "checksum mismatch", "missing go.sum entry"} {
					require.NotContains(t, out, bad, "go mod download in %s (GOWORK=off)", dir)
				}
				t.Skipf("the dependencies of %s cannot be downloaded, so the real upstream code cannot run: %v\n%s", dir, err, out)
			}
			// -v so that the upstream tables reach this test's log; no -count=1, so that
			// the go command's own test cache skips a module that has not changed; and no
			// -race: the detector would rebuild the whole k8s.io/* v0.20 tree a second
			// time for code that is upstream's (the modules pass under -race run directly).
			out, err := run("test", "-v", "./...")
			require.NoError(t, err, "go test in %s (GOWORK=off):\n%s", dir, out)
			t.Logf("go test in %s (GOWORK=off):\n%s", dir, out)
		})
	}
}
