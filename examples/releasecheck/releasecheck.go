package releasecheck

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"

	"github.com/safereconcile/safereconcile/examples/internal/scenario"
	"github.com/safereconcile/safereconcile/releasepath"
)

// Scenario runs releasepath on the package of the ILB reproduction and reports, per shape,
// the returns it flags.
var Scenario = scenario.Scenario{Name: "releasepath", Run: run}

// ilbPath is the package that holds both shapes.
const ilbPath = "github.com/safereconcile/safereconcile/examples/gceaddress/ilb"

// A Finding is one diagnostic, placed in the function it was reported in.
type Finding struct {
	Func    string // the enclosing function declaration, "EnsureV1201"
	File    string // the file's base name
	Line    int
	Message string
}

// Check loads the package at path (with the go command, from the current directory's
// module or workspace) and returns what releasepath reports on it, sorted by position.
func Check(ctx context.Context, path string) ([]Finding, error) {
	cfg := &packages.Config{
		Context: ctx,
		Mode:    packages.LoadSyntax,
	}
	pkgs, err := packages.Load(cfg, path)
	if err != nil {
		return nil, fmt.Errorf("releasecheck: load %s: %w", path, err)
	}
	if len(pkgs) != 1 {
		return nil, fmt.Errorf("releasecheck: load %s: got %d packages", path, len(pkgs))
	}
	pkg := pkgs[0]
	if len(pkg.Errors) > 0 {
		return nil, fmt.Errorf("releasecheck: load %s: %v", path, pkg.Errors[0])
	}
	diags, err := analyze(pkg, releasepath.Analyzer)
	if err != nil {
		return nil, err
	}
	var out []Finding
	for _, d := range diags {
		p := pkg.Fset.Position(d.Pos)
		out = append(out, Finding{Func: enclosingFunc(pkg.Syntax, d.Pos), File: filepath.Base(p.Filename), Line: p.Line, Message: d.Message})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Line < out[j].Line
	})
	return out, nil
}

// analyze runs a and its prerequisites on the one package, the way a driver does for a
// package whose dependencies carry no facts: enough for releasepath, whose only use of facts
// is ctrlflow's knowledge of calls that never return.
func analyze(pkg *packages.Package, a *analysis.Analyzer) ([]analysis.Diagnostic, error) {
	results := map[*analysis.Analyzer]any{}
	var diags []analysis.Diagnostic
	var exec func(x *analysis.Analyzer) error
	exec = func(x *analysis.Analyzer) error {
		if _, done := results[x]; done {
			return nil
		}
		resultOf := map[*analysis.Analyzer]any{}
		for _, req := range x.Requires {
			if err := exec(req); err != nil {
				return err
			}
			resultOf[req] = results[req]
		}
		facts := map[types.Object][]analysis.Fact{}
		pass := &analysis.Pass{
			Analyzer:   x,
			Fset:       pkg.Fset,
			Files:      pkg.Syntax,
			Pkg:        pkg.Types,
			TypesInfo:  pkg.TypesInfo,
			TypesSizes: pkg.TypesSizes,
			ResultOf:   resultOf,
			ReadFile:   os.ReadFile,
			Report: func(d analysis.Diagnostic) {
				if x == a {
					diags = append(diags, d)
				}
			},
			ImportObjectFact: func(obj types.Object, f analysis.Fact) bool {
				for _, have := range facts[obj] {
					if reflect.TypeOf(have) == reflect.TypeOf(f) {
						reflect.ValueOf(f).Elem().Set(reflect.ValueOf(have).Elem())
						return true
					}
				}
				return false
			},
			ExportObjectFact:  func(obj types.Object, f analysis.Fact) { facts[obj] = append(facts[obj], f) },
			ImportPackageFact: func(*types.Package, analysis.Fact) bool { return false },
			ExportPackageFact: func(analysis.Fact) {},
			AllObjectFacts:    func() []analysis.ObjectFact { return nil },
			AllPackageFacts:   func() []analysis.PackageFact { return nil },
		}
		res, err := x.Run(pass)
		if err != nil {
			return fmt.Errorf("releasecheck: %s: %w", x.Name, err)
		}
		results[x] = res
		return nil
	}
	if err := exec(a); err != nil {
		return nil, err
	}
	return diags, nil
}

// enclosingFunc names the function declaration that holds pos, "" when none does.
func enclosingFunc(files []*ast.File, pos token.Pos) string {
	for _, f := range files {
		if pos < f.Pos() || pos > f.End() {
			continue
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Pos() <= pos && pos <= fd.End() {
				return fd.Name.Name
			}
		}
	}
	return ""
}

// run checks the ILB package and compares the shapes: the v1.20.1 shape must be flagged at
// each of its error returns between the hold and the release, the v1.20.2 and acquire shapes
// nowhere.
func run(ctx context.Context, w io.Writer) (scenario.Row, error) {
	fs, err := Check(ctx, ilbPath)
	if err != nil {
		return scenario.Row{}, err
	}
	byFunc := map[string][]Finding{}
	for _, f := range fs {
		byFunc[f.Func] = append(byFunc[f.Func], f)
	}
	old, v1202, fixed := byFunc["EnsureV1201"], byFunc["EnsureV1202"], byFunc["Ensure"]
	fmt.Fprintf(w, "releasepath on %s (run live on the source):\n", strings.TrimPrefix(ilbPath, "github.com/safereconcile/safereconcile/"))
	for _, shape := range []struct {
		name string
		fs   []Finding
	}{
		{"v1.20.1 shape, EnsureV1201", old},
		{"v1.20.2 shape, EnsureV1202", v1202},
		{"acquire shape, Ensure", fixed},
	} {
		fmt.Fprintf(w, "  %s: %d finding(s)\n", shape.name, len(shape.fs))
		for _, f := range shape.fs {
			fmt.Fprintf(w, "    %s:%d: %s\n", f.File, f.Line, f.Message)
		}
	}
	others := len(fs) - len(old) - len(v1202) - len(fixed)
	fmt.Fprintf(w, "  elsewhere in the package: %d finding(s)\n", others)
	lines := make([]string, len(old))
	for i, f := range old {
		lines[i] = fmt.Sprint(f.Line)
	}
	return scenario.Row{
		Bug:        "#97740 seen by releasepath",
		Old:        fmt.Sprintf("%d returns flagged (v1201.go:%s)", len(old), strings.Join(lines, ",")),
		Fixed:      fmt.Sprintf("%d flagged", len(v1202)+len(fixed)),
		Reproduced: len(old) > 0 && len(v1202) == 0 && len(fixed) == 0 && others == 0,
	}, nil
}
