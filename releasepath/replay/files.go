package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// A codebase is one row of corpus.tsv.
type codebase struct {
	half     string // "tune" or "heldout"
	field    string
	modver   string // module@version
	patterns []string
}

func (c codebase) module() string  { m, _, _ := strings.Cut(c.modver, "@"); return m }
func (c codebase) version() string { _, v, _ := strings.Cut(c.modver, "@"); return v }

// A verdict is one row of verdicts.tsv.
type verdict struct {
	modver string
	pos    string // path:line of the return, relative to the module's root
	acq    string // "Name:line → release"
	word   string // real, arguable, benign, false; "" when not yet triaged
	why    string
}

// key is what matches a finding to its verdict: the release named after the arrow is left out,
// so that a change of wording in the message keeps the verdict.
func (v verdict) key() string { return v.modver + "\t" + v.pos + "\t" + acqKey(v.acq) }

// acqKey is the "Name:line" part of an acquisition column.
func acqKey(acq string) string {
	k, _, _ := strings.Cut(acq, " → ")
	return strings.TrimSpace(k)
}

// verdictWords are the verdicts, best first.
var verdictWords = []string{"real", "arguable", "benign", "false"}

// A recallCase is one row of recall.tsv.
type recallCase struct {
	id       string
	module   string
	before   string
	after    string
	pkg      string // import path
	file     string // relative to the module's root
	function string // "name", "(*T).name" or "T.name"
	acq      string // the acquiring call's name, as the message names it: "HoldAddress"
	lines    []int  // the returns expected before
	source   string
}

// readTSV reads tab-separated rows, skipping blank lines and lines starting with "#", and
// checks that each has n fields (the last may be empty). The first row that is left is the
// header and must start with header.
func readTSV(r io.Reader, name string, n int, header string) ([][]string, error) {
	var rows [][]string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	line, sawHeader := 0, false
	for sc.Scan() {
		line++
		text := sc.Text()
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Split(text, "\t")
		if !sawHeader {
			if !strings.HasPrefix(text, header) {
				return nil, fmt.Errorf("replay: %s:%d: want the header %q", name, line, header)
			}
			sawHeader = true
			continue
		}
		if len(f) != n {
			return nil, fmt.Errorf("replay: %s:%d: %d fields, want %d separated by tabs", name, line, len(f), n)
		}
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		rows = append(rows, f)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("replay: %s: %w", name, err)
	}
	return rows, nil
}

func openTSV(path string, n int, header string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	defer f.Close()
	return readTSV(f, path, n, header)
}

const (
	corpusHeader   = "half\tfield\tmodule@version\tpatterns"
	verdictsHeader = "module@version\tpath:line\tacquisition\tverdict\twhy"
	recallHeader   = "id\tmodule\tbefore\tafter\tpackage\tfile\tfunction\tacquisition\tlines\tsource"
)

func parseCorpus(rows [][]string, name string) ([]codebase, error) {
	var cs []codebase
	seen := map[string]bool{}
	for _, r := range rows {
		c := codebase{half: r[0], field: r[1], modver: r[2], patterns: strings.Fields(r[3])}
		if c.half != "tune" && c.half != "heldout" {
			return nil, fmt.Errorf("replay: %s: %s: half %q, want tune or heldout", name, c.modver, c.half)
		}
		if c.module() == "" || !strings.HasPrefix(c.version(), "v") {
			return nil, fmt.Errorf("replay: %s: %q is not module@version", name, c.modver)
		}
		if len(c.patterns) == 0 {
			return nil, fmt.Errorf("replay: %s: %s has no package patterns", name, c.modver)
		}
		if seen[c.modver] {
			return nil, fmt.Errorf("replay: %s: %s is listed twice", name, c.modver)
		}
		seen[c.modver] = true
		cs = append(cs, c)
	}
	return cs, nil
}

func parseVerdicts(rows [][]string, name string) ([]verdict, error) {
	var vs []verdict
	seen := map[string]bool{}
	for _, r := range rows {
		v := verdict{modver: r[0], pos: r[1], acq: r[2], word: r[3], why: r[4]}
		if m, ver, ok := strings.Cut(v.modver, "@"); !ok || m == "" || !strings.HasPrefix(ver, "v") {
			return nil, fmt.Errorf("replay: %s: %q is not module@version", name, v.modver)
		}
		if _, _, ok := splitPos(v.pos); !ok {
			return nil, fmt.Errorf("replay: %s: %s: %q is not path:line", name, v.modver, v.pos)
		}
		if _, _, ok := splitPos(acqKey(v.acq)); !ok {
			return nil, fmt.Errorf("replay: %s: %s %s: acquisition %q is not Name:line → release", name, v.modver, v.pos, v.acq)
		}
		if v.word != "" && rank(v.word) < 0 {
			return nil, fmt.Errorf("replay: %s: %s %s: verdict %q, want one of %s", name, v.modver, v.pos, v.word, strings.Join(verdictWords, ", "))
		}
		if v.word != "" && v.why == "" {
			return nil, fmt.Errorf("replay: %s: %s %s: a verdict needs a sentence why", name, v.modver, v.pos)
		}
		if seen[v.key()] {
			return nil, fmt.Errorf("replay: %s: %s %s %s is listed twice", name, v.modver, v.pos, acqKey(v.acq))
		}
		seen[v.key()] = true
		vs = append(vs, v)
	}
	return vs, nil
}

func parseRecall(rows [][]string, name string) ([]recallCase, error) {
	var cs []recallCase
	for _, r := range rows {
		c := recallCase{id: r[0], module: r[1], before: r[2], after: r[3], pkg: r[4], file: r[5], function: r[6], acq: r[7], source: r[9]}
		if r[8] != "-" {
			for _, s := range strings.Split(r[8], ",") {
				n, err := strconv.Atoi(strings.TrimSpace(s))
				if err != nil || n <= 0 {
					return nil, fmt.Errorf("replay: %s: %s: lines %q, want comma-separated line numbers or -", name, c.id, r[8])
				}
				c.lines = append(c.lines, n)
			}
		}
		if c.acq == "" {
			return nil, fmt.Errorf("replay: %s: %s: no acquisition", name, c.id)
		}
		if !strings.HasPrefix(c.before, "v") || !strings.HasPrefix(c.after, "v") {
			return nil, fmt.Errorf("replay: %s: %s: versions %q and %q", name, c.id, c.before, c.after)
		}
		cs = append(cs, c)
	}
	return cs, nil
}

// splitPos splits "path:line" (or "Name:line").
func splitPos(s string) (string, int, bool) {
	i := strings.LastIndexByte(s, ':')
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil || n <= 0 {
		return "", 0, false
	}
	return s[:i], n, true
}

// rank is a verdict's index in verdictWords, -1 for an unknown word.
func rank(word string) int {
	for i, w := range verdictWords {
		if w == word {
			return i
		}
	}
	return -1
}
