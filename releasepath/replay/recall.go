package main

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"path/filepath"
	"slices"
	"strings"
)

// A recallResult is what one fixed leak gave, before and after its fix: the findings of its
// acquisition in its function.
type recallResult struct {
	c      recallCase
	found  []int // expected returns reported before the fix
	missed []int // expected returns not reported
	extra  []int // other returns reported for the acquisition before the fix
	after  []int // returns reported for the acquisition after the fix
}

// replay runs the analyzer on the case's package at both versions and keeps the findings in its
// function.
func (r *runner) replay(ctx context.Context, c recallCase) (recallResult, error) {
	res := recallResult{c: c}
	before, err := r.findingsIn(ctx, c, c.before)
	if err != nil {
		return res, err
	}
	for _, want := range c.lines {
		if slices.Contains(before, want) {
			res.found = append(res.found, want)
		} else {
			res.missed = append(res.missed, want)
		}
	}
	for _, got := range before {
		if !slices.Contains(c.lines, got) {
			res.extra = append(res.extra, got)
		}
	}
	res.after, err = r.findingsIn(ctx, c, c.after)
	return res, err
}

// findingsIn returns the lines of the findings of the case's acquisition in its function at
// version (other acquisitions of the function are not the case's).
func (r *runner) findingsIn(ctx context.Context, c recallCase, version string) ([]int, error) {
	root, err := r.download(ctx, c.module+"@"+version)
	if err != nil {
		return nil, err
	}
	dir, err := r.prepareDep(ctx, c.module, version, c.pkg)
	if err != nil {
		return nil, err
	}
	m, err := r.analyse(ctx, dir, root, c.module+"@"+version, []string{c.pkg})
	if err != nil {
		return nil, err
	}
	from, to, err := funcLines(filepath.Join(root, c.file), c.function)
	if err != nil {
		return nil, fmt.Errorf("replay: %s at %s: %w", c.id, version, err)
	}
	var lines []int
	for _, f := range m.findings {
		if f.path == c.file && f.acqName == c.acq && f.line >= from && f.line <= to && !slices.Contains(lines, f.line) {
			lines = append(lines, f.line)
		}
	}
	slices.Sort(lines)
	return lines, nil
}

// funcLines returns the first and last line of the function declared in path under name: "f",
// "T.f" or "(*T).f".
func funcLines(path, name string) (int, int, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return 0, 0, err
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || funcName(fd) != name {
			continue
		}
		return fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line, nil
	}
	return 0, 0, fmt.Errorf("no function %s in %s", name, filepath.Base(path))
}

func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	star := false
	if s, ok := t.(*ast.StarExpr); ok {
		star, t = true, s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	id, _ := t.(*ast.Ident)
	if id == nil {
		return fd.Name.Name
	}
	if star {
		return "(*" + id.Name + ")." + fd.Name.Name
	}
	return id.Name + "." + fd.Name.Name
}

const recallTableHeader = "| case | module | before → after | function, acquisition | returns expected | found | missed | other returns reported | after the fix |\n" +
	"|---|---|---|---|---:|---|---|---|---|\n"

func (res recallResult) row(w io.Writer) {
	c := res.c
	after := "clean"
	if len(res.after) > 0 {
		after = "**still " + joinInts(res.after) + "**"
	}
	fmt.Fprintf(w, "| %s | `%s` | %s → %s | `%s` (%s), %s | %d | %s | %s | %s | %s |\n",
		c.id, c.module, c.before, c.after, c.function, c.file, c.acq, len(c.lines),
		orDash(joinInts(res.found)), orDash(joinInts(res.missed)), orDash(joinInts(res.extra)), after)
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
