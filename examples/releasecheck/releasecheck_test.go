package releasecheck

import (
	"bytes"
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// leakingReturns parses v1201.go and returns the lines of EnsureV1201's returns that lie
// between the call of holdAddressUpstream and the call of releaseOwn: the returns a reviewer
// would mark on the diff, computed from the source, not copied from the analyzer.
func leakingReturns(t *testing.T) []int {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(self), "..", "gceaddress", "ilb", "v1201.go")
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	require.NoError(t, err)
	var hold, release token.Pos
	var rets []*ast.ReturnStmt
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != "EnsureV1201" {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok {
					switch id.Name {
					case "holdAddressUpstream":
						hold = n.Pos()
					case "releaseOwn":
						release = n.Pos()
					}
				}
			case *ast.ReturnStmt:
				rets = append(rets, n)
			}
			return true
		})
	}
	require.True(t, hold.IsValid() && release.IsValid(), "EnsureV1201 holds and releases")
	var lines []int
	for _, r := range rets {
		// The hold's own failure return comes right after it, on the next lines.
		if r.Pos() > hold && r.Pos() < release && fset.Position(r.Pos()).Line > fset.Position(hold).Line+2 {
			lines = append(lines, fset.Position(r.Pos()).Line)
		}
	}
	require.NotEmpty(t, lines)
	return lines
}

func TestCheckFlagsEachLeakingReturnOfTheOldShape(t *testing.T) {
	fs, err := Check(context.Background(), ilbPath)
	require.NoError(t, err)
	var old []int
	for _, f := range fs {
		require.Equal(t, "EnsureV1201", f.Func, "only the old shape is flagged: %+v", f)
		assert.Equal(t, "v1201.go", f.File)
		assert.Contains(t, f.Message, "return may skip releaseOwn (holdAddressUpstream at line")
		old = append(old, f.Line)
	}
	if diff := cmp.Diff(leakingReturns(t), old); diff != "" {
		t.Errorf("flagged returns (-want +got):\n%s", diff)
	}
}

func TestScenarioRow(t *testing.T) {
	var out bytes.Buffer
	row, err := Scenario.Run(context.Background(), &out)
	require.NoError(t, err)
	assert.True(t, row.Reproduced, out.String())
	assert.Equal(t, "0 flagged", row.Fixed)
	assert.Contains(t, out.String(), "v1.20.2 shape, EnsureV1202: 0 finding(s)")
	assert.Contains(t, out.String(), "acquire shape, Ensure: 0 finding(s)")
}

func TestCheckBadPackage(t *testing.T) {
	_, err := Check(context.Background(), "github.com/safereconcile/safereconcile/examples/nosuchpackage")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "releasecheck: load")
}
