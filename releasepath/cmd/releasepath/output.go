package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"go/format"
	"go/token"
	"io"
	"os"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"
)

// The output formats are those of the x/tools drivers, so that what reads their output
// (editors, CI annotations, this module's replay harness) reads this command's.

// printText prints the failed analyses of the graph and the findings of the roots, each
// finding once (a file of package p is also a file of p's test variant), and returns the
// exit status: 1 when an analysis failed, 3 when there is a finding.
func printText(w io.Writer, d *driver, initial []*packages.Package, contextLines int) int {
	type key struct {
		pos, end token.Position
		msg      string
	}
	seen := map[key]bool{}
	failed, found := 0, 0
	var buf bytes.Buffer
	packages.Visit(initial, nil, func(p *packages.Package) {
		u := d.units[p]
		for _, e := range u.errs {
			fmt.Fprintf(&buf, "%s: %v\n", e.analyzer, e.err)
			failed++
		}
		for _, diag := range u.diags {
			found++
			k := key{d.fset.Position(diag.Pos), d.fset.Position(diag.End), diag.Message}
			if seen[k] {
				continue
			}
			seen[k] = true
			printPlain(&buf, d.fset, contextLines, diag)
		}
	})
	w.Write(buf.Bytes())
	switch {
	case failed > 0:
		return 1
	case found > 0:
		return 3
	}
	return 0
}

func printPlain(w io.Writer, fset *token.FileSet, contextLines int, diag analysis.Diagnostic) {
	print := func(pos, end token.Pos, message string) {
		posn := fset.Position(pos)
		fmt.Fprintf(w, "%s: %s\n", posn, message)
		if contextLines < 0 {
			return
		}
		endPosn := fset.Position(end)
		if !endPosn.IsValid() {
			endPosn = posn
		}
		data, _ := os.ReadFile(posn.Filename)
		lines := strings.Split(string(data), "\n")
		for i := posn.Line - contextLines; i <= endPosn.Line+contextLines; i++ {
			if 1 <= i && i <= len(lines) {
				fmt.Fprintf(w, "%d\t%s\n", i, lines[i-1])
			}
		}
	}
	print(diag.Pos, diag.End, diag.Message)
	for _, rel := range diag.Related {
		print(rel.Pos, rel.End, "\t"+rel.Message)
	}
}

// The JSON schema of the x/tools drivers: package ID, then analyzer name, then either the
// findings or {"error": …}.
type (
	jsonEdit struct {
		Filename string `json:"filename"`
		Start    int    `json:"start"`
		End      int    `json:"end"`
		New      string `json:"new"`
	}
	jsonFix struct {
		Message string     `json:"message"`
		Edits   []jsonEdit `json:"edits"`
	}
	jsonRelated struct {
		Posn    string `json:"posn"`
		End     string `json:"end"`
		Message string `json:"message"`
	}
	jsonDiagnostic struct {
		Category       string        `json:"category,omitempty"`
		Posn           string        `json:"posn"`
		End            string        `json:"end"`
		Message        string        `json:"message"`
		SuggestedFixes []jsonFix     `json:"suggested_fixes,omitempty"`
		Related        []jsonRelated `json:"related,omitempty"`
	}
	jsonError struct {
		Err string `json:"error"`
	}
)

func printJSON(w io.Writer, d *driver, initial []*packages.Package) error {
	tree := map[string]map[string]any{}
	add := func(id, analyzer string, v any) {
		if tree[id] == nil {
			tree[id] = map[string]any{}
		}
		tree[id][analyzer] = v
	}
	packages.Visit(initial, nil, func(p *packages.Package) {
		u := d.units[p]
		for _, e := range u.errs {
			add(p.ID, e.analyzer, jsonError{e.err.Error()})
		}
		if len(u.diags) == 0 {
			return
		}
		out := make([]jsonDiagnostic, 0, len(u.diags))
		for _, diag := range u.diags {
			jd := jsonDiagnostic{Category: diag.Category, Posn: d.fset.Position(diag.Pos).String(), End: d.fset.Position(cmp.Or(diag.End, diag.Pos)).String(), Message: diag.Message}
			for _, fix := range diag.SuggestedFixes {
				jf := jsonFix{Message: fix.Message}
				for _, e := range fix.TextEdits {
					start := d.fset.Position(e.Pos)
					jf.Edits = append(jf.Edits, jsonEdit{Filename: start.Filename, Start: start.Offset, End: d.fset.Position(e.End).Offset, New: string(e.NewText)})
				}
				jd.SuggestedFixes = append(jd.SuggestedFixes, jf)
			}
			for _, r := range diag.Related {
				jd.Related = append(jd.Related, jsonRelated{Posn: d.fset.Position(r.Pos).String(), End: d.fset.Position(cmp.Or(r.End, r.Pos)).String(), Message: r.Message})
			}
			out = append(out, jd)
		}
		add(p.ID, d.roots[len(d.roots)-1].Name, out)
	})
	data, err := json.MarshalIndent(tree, "", "\t")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

// An edit replaces bytes [start, end) of file with text.
type edit struct {
	file       string
	start, end int
	text       string
}

// overlaps reports whether e and o cannot both be applied: they touch the same bytes, or
// insert different text at one place. Equal edits are one edit.
func (e edit) overlaps(o edit) bool {
	if e.file != o.file || e == o {
		return false
	}
	if e.start == e.end && o.start == o.end {
		return e.start == o.start
	}
	return e.start < o.end && o.start < e.end // also an insertion strictly inside the other
}

// applyFixes applies the first suggested fix of every finding of the roots, each whole or
// not at all. A fix reported twice (for p and for its test variant) is applied once; one
// that overlaps a fix already taken is skipped, and the error says to run again. Each file
// is written once, formatted.
func applyFixes(fset *token.FileSet, roots []*unit) error {
	var taken []edit
	seen := map[string]bool{}
	total, skipped := 0, 0
	for _, u := range roots {
		for _, diag := range u.diags {
			if len(diag.SuggestedFixes) == 0 {
				continue
			}
			fix := diag.SuggestedFixes[0]
			var edits []edit
			var key strings.Builder
			for _, te := range fix.TextEdits {
				end := te.End
				if !end.IsValid() {
					end = te.Pos
				}
				s, e := fset.Position(te.Pos), fset.Position(end)
				if !s.IsValid() || s.Filename != e.Filename || e.Offset < s.Offset {
					return fmt.Errorf("%s: the fix %q has an invalid edit", s, fix.Message)
				}
				ed := edit{s.Filename, s.Offset, e.Offset, string(te.NewText)}
				edits = append(edits, ed)
				fmt.Fprintf(&key, "%q:%d:%d:%q;", ed.file, ed.start, ed.end, ed.text)
			}
			if seen[key.String()] {
				continue
			}
			seen[key.String()] = true
			total++
			if slices.ContainsFunc(edits, func(e edit) bool {
				return slices.ContainsFunc(taken, e.overlaps)
			}) {
				skipped++
				continue
			}
			for _, e := range edits {
				if !slices.Contains(taken, e) {
					taken = append(taken, e)
				}
			}
		}
	}
	byFile := map[string][]edit{}
	for _, e := range taken {
		byFile[e.file] = append(byFile[e.file], e)
	}
	for _, file := range sortedKeys(byFile) {
		if err := rewrite(file, byFile[file]); err != nil {
			return err
		}
	}
	if skipped > 0 {
		return fmt.Errorf("%d of %d fixes were skipped because they overlap another; run the command again to apply them", skipped, total)
	}
	return nil
}

// rewrite applies edits, which do not overlap, to file and formats the result.
func rewrite(file string, edits []edit) error {
	src, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	// From the last edit to the first, so that each offset still points into src as read;
	// at one offset, the replacement before the insertion, so that it keeps what is inserted.
	slices.SortFunc(edits, func(a, b edit) int {
		if a.start != b.start {
			return b.start - a.start
		}
		return b.end - a.end
	})
	out := src
	for _, e := range edits {
		if e.end > len(out) {
			return fmt.Errorf("%s: a fix edits past the end of the file; it changed since it was read", file)
		}
		out = slices.Concat(out[:e.start], []byte(e.text), out[e.end:])
	}
	if formatted, err := format.Source(out); err == nil {
		out = formatted
	}
	info, err := os.Stat(file)
	if err != nil {
		return err
	}
	return os.WriteFile(file, out, info.Mode().Perm())
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
