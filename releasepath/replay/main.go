package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

type options struct {
	half, only, untriaged, write, work string
	corpus, verdicts, recallFile       string
	check, recall                      bool
	cost, memory                       int
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o options
	fl := flag.NewFlagSet("replay", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.StringVar(&o.half, "half", "tune", "which half of the corpus: tune, heldout, all, or none (with -recall)")
	fl.StringVar(&o.only, "only", "", "only the code bases whose module@version contains one of these, comma-separated")
	fl.BoolVar(&o.check, "check", false, "exit 1 on an untriaged finding or a lost real one")
	fl.StringVar(&o.untriaged, "untriaged", "", "append a row with an empty verdict to this file for each untriaged finding")
	fl.BoolVar(&o.recall, "recall", false, "also replay the fixed leaks of the recall file")
	fl.IntVar(&o.cost, "cost", 0, "also measure go vet -vettool against plain go vet, this many rounds each")
	fl.IntVar(&o.memory, "memory", 0, "also measure the standalone command's memory against the x/tools driver's, this many rounds each")
	fl.StringVar(&o.write, "write", "", "rewrite the text between the replay markers of this file with the tables")
	fl.StringVar(&o.work, "work", "", "directory for the throwaway modules (default: the user cache directory's safereconcile/replay)")
	fl.StringVar(&o.corpus, "corpus", "replay/corpus.tsv", "the corpus file")
	fl.StringVar(&o.verdicts, "verdicts", "replay/verdicts.tsv", "the verdict file")
	fl.StringVar(&o.recallFile, "recallfile", "replay/recall.tsv", "the recall file")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if o.half != "tune" && o.half != "heldout" && o.half != "all" && o.half != "none" {
		fmt.Fprintf(stderr, "replay: -half=%s, want tune, heldout, all or none\n", o.half)
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "replay: unexpected arguments %q\n", fl.Args())
		return 2
	}
	rep, err := replayAll(ctx, o, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	secs := rep.sections()
	for _, sec := range secs {
		fmt.Fprintf(stdout, "## %s\n\n%s\n", sec.name, sec.text)
	}
	if o.untriaged != "" {
		if err := rep.appendUntriaged(o.untriaged); err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
	}
	if o.write != "" {
		for _, sec := range secs {
			if (sec.name == "precision" || sec.name == "corpus") && (o.half != "all" || o.only != "") {
				// The precision table of part of the corpus never replaces the whole's, nor
				// its list of the code bases.
				if sec.name == "precision" {
					fmt.Fprintf(stderr, "replay: -write: the precision table is written only by a run of the whole corpus (-half=all, no -only)\n")
				}
				continue
			}
			if err := writeBetweenMarkers(o.write, sec.name, sec.text); err != nil {
				fmt.Fprintln(stderr, err)
				return 2
			}
		}
	}
	if len(rep.failed) > 0 {
		fmt.Fprintf(stderr, "replay: %d code bases did not load: %s\n", len(rep.failed), strings.Join(rep.failed, ", "))
		return 2
	}
	if o.check {
		if msg := rep.problems(); msg != "" {
			fmt.Fprintln(stderr, msg)
			return 1
		}
	}
	return 0
}

// A report is everything one run measured.
type report struct {
	o       options
	commit  string
	scores  []*score
	recalls []recallResult
	costs   []cost
	mems    []memory
	failed  []string // code bases that did not load
}

// measure replays one code base: its lines, its findings against the verdicts and, when rounds
// is positive, its cost.
func (r *runner) measure(ctx context.Context, c codebase, verdicts []verdict, rounds, memRounds int) (*score, cost, memory, error) {
	dir, err := r.prepare(ctx, c.modver)
	if err != nil {
		return nil, cost{}, memory{}, err
	}
	pkgs, err := r.expand(ctx, dir, c.patterns)
	if err != nil {
		return nil, cost{}, memory{}, err
	}
	lines, err := r.count(ctx, dir, pkgs)
	if err != nil {
		return nil, cost{}, memory{}, err
	}
	m, err := r.analyse(ctx, dir, dir, c.modver, pkgs)
	if err != nil {
		return nil, cost{}, memory{}, err
	}
	s := judge(c, lines, m, verdicts)
	var cs cost
	if rounds > 0 {
		if cs, err = r.measureCost(ctx, dir, pkgs, rounds, "c"); err != nil {
			return nil, cost{}, memory{}, err
		}
		cs.name = c.modver
	}
	var ms memory
	if memRounds > 0 {
		if ms, err = r.measureMemory(ctx, dir, pkgs, memRounds); err != nil {
			return nil, cost{}, memory{}, err
		}
		ms.name = c.modver
	}
	return s, cs, ms, nil
}

func replayAll(ctx context.Context, o options, log io.Writer) (*report, error) {
	rows, err := openTSV(o.corpus, 4, corpusHeader)
	if err != nil {
		return nil, err
	}
	corpus, err := parseCorpus(rows, o.corpus)
	if err != nil {
		return nil, err
	}
	rows, err = openTSV(o.verdicts, 5, verdictsHeader)
	if err != nil {
		return nil, err
	}
	verdicts, err := parseVerdicts(rows, o.verdicts)
	if err != nil {
		return nil, err
	}
	var recalls []recallCase
	if o.recall {
		if rows, err = openTSV(o.recallFile, 10, recallHeader); err != nil {
			return nil, err
		}
		if recalls, err = parseRecall(rows, o.recallFile); err != nil {
			return nil, err
		}
	}
	if o.work == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("replay: -work: %w", err)
		}
		o.work = filepath.Join(cache, "safereconcile", "replay")
	}
	if err := os.MkdirAll(o.work, 0o755); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	bin, err := buildAnalyzer(ctx, o.work, "./cmd/releasepath")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(filepath.Dir(bin))
	r := newRunner(o.work, bin, log)
	if o.memory > 0 {
		if r.loadAll, err = buildAnalyzer(ctx, o.work, "./replay/internal/loadall"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(filepath.Dir(r.loadAll))
	}
	if o.cost > 0 {
		if r.noopVet, err = buildAnalyzer(ctx, o.work, "./replay/internal/noopvet"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(filepath.Dir(r.noopVet))
		if r.ssaVet, err = buildAnalyzer(ctx, o.work, "./replay/internal/ssavet"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(filepath.Dir(r.ssaVet))
	}
	rep := &report{o: o, commit: commit(ctx)}
	if o.half != "none" && !slices.ContainsFunc(corpus, func(c codebase) bool { return selected(c, o) }) {
		// A typo in -only must not pass -check by measuring nothing.
		return nil, fmt.Errorf("replay: -half=%s -only=%s selects no code base of %s", o.half, o.only, o.corpus)
	}
	for _, c := range corpus {
		if !selected(c, o) {
			continue
		}
		fmt.Fprintf(log, "replay: %s (%s)\n", c.modver, c.half)
		s, cs, ms, err := r.measure(ctx, c, verdicts, o.cost, o.memory)
		if err != nil {
			// One code base that does not load spoils no other's figures; the run still
			// fails, with exit status 2.
			fmt.Fprintln(log, err)
			rep.failed = append(rep.failed, c.modver)
			continue
		}
		rep.scores = append(rep.scores, s)
		if o.cost > 0 {
			rep.costs = append(rep.costs, cs)
		}
		if o.memory > 0 {
			rep.mems = append(rep.mems, ms)
		}
	}
	for _, c := range recalls {
		fmt.Fprintf(log, "replay: recall %s (%s %s → %s)\n", c.id, c.module, c.before, c.after)
		res, err := r.replay(ctx, c)
		if err != nil {
			return nil, err
		}
		rep.recalls = append(rep.recalls, res)
	}
	return rep, nil
}

func selected(c codebase, o options) bool {
	if o.half == "none" || (o.half != "all" && c.half != o.half) {
		return false
	}
	if o.only == "" {
		return true
	}
	for _, s := range strings.Split(o.only, ",") {
		if s != "" && strings.Contains(c.modver, s) {
			return true
		}
	}
	return false
}

// buildAnalyzer builds a command of the module in the current directory (the standalone
// command, or the loadall peer), into a directory of this run's own: two runs from two
// checkouts share the work directory, and neither may measure the other's analyzer.
func buildAnalyzer(ctx context.Context, work, pkg string) (string, error) {
	dir, err := os.MkdirTemp(work, "bin-")
	if err != nil {
		return "", fmt.Errorf("replay: %w", err)
	}
	bin := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, pkg)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("replay: build the analyzer (run replay from the releasepath module's directory): %w\n%s", err, out)
	}
	return bin, nil
}

// commit names the analyzer's commit, "+changes" when its Go code (this harness aside) has
// uncommitted changes.
func commit(ctx context.Context) string {
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.CommandContext(ctx, "git", "status", "--porcelain", "--", "*.go", ":!replay").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		c += "+changes"
	}
	return c
}

// sections renders what the run measured as markdown, one section per kind of measurement:
// precision, recall and cost, each headed by the commit and the command that measured it.
func (rep *report) sections() []section {
	head := fmt.Sprintf("Analyzer at commit `%s`, %s linux/amd64; measured by `go run ./replay %s` in `releasepath/`.\n\n",
		rep.commit, runtime.Version(), rep.o.flags())
	var out []section
	if len(rep.scores) > 0 {
		var w bytes.Buffer
		w.WriteString(head)
		w.WriteString(precisionHeader)
		halves := map[string]*score{}
		for _, s := range rep.scores {
			s.row(&w, false)
			h := halves[s.half]
			if h == nil {
				h = &score{name: map[string]string{"tune": "tune half", "heldout": "held-out half"}[s.half], half: s.half}
				halves[s.half] = h
			}
			h.add(s)
		}
		for _, half := range []string{"tune", "heldout"} {
			if h := halves[half]; h != nil {
				h.row(&w, true)
			}
		}
		w.WriteString("\n")
		for _, s := range rep.scores {
			for _, v := range s.lost {
				fmt.Fprintf(&w, "- no longer reported: `%s` %s %s (%s: %s)\n", v.modver, v.pos, v.acq, orDash(v.word), v.why)
			}
			for _, f := range s.untriaged {
				fmt.Fprintf(&w, "- untriaged: `%s` %s %s\n", f.modver, f.pos(), f.acq())
			}
		}
		out = append(out, section{"precision", w.String()}, section{"corpus", rep.corpusText()})
	}
	if len(rep.recalls) > 0 {
		var w bytes.Buffer
		w.WriteString(head)
		w.WriteString(recallTableHeader)
		returns, found, cases, clean := 0, 0, 0, 0
		for _, res := range rep.recalls {
			res.row(&w)
			returns += len(res.c.lines)
			found += len(res.found)
			if len(res.missed) == 0 && len(res.after) == 0 {
				cases++
			}
			if len(res.after) == 0 {
				clean++
			}
		}
		fmt.Fprintf(&w, "\nReturns found: %d of %d. Cases replayed exactly (every expected return found, the fix clean): %d of %d. Fixes clean: %d of %d.\n",
			found, returns, cases, len(rep.recalls), clean, len(rep.recalls))
		out = append(out, section{"recall", w.String()})
	}
	if len(rep.costs) > 0 {
		var w bytes.Buffer
		w.WriteString(head)
		fmt.Fprintf(&w, "%d interleaved rounds of each after one unmeasured go vet that warms the build cache; user+system CPU of the go command and its children.\n\n", len(rep.costs[0].vet))
		w.WriteString(costTableHeader)
		for _, c := range rep.costs {
			c.row(&w)
		}
		out = append(out, section{"cost", w.String()})
	}
	if len(rep.mems) > 0 {
		var w bytes.Buffer
		w.WriteString(head)
		fmt.Fprintf(&w, "%d interleaved rounds of each, -json -test=false on the code base's packages, as the precision run; peak resident memory and user+system CPU of the process.\n\n", len(rep.mems[0].lean))
		w.WriteString(memoryTableHeader)
		for _, m := range rep.mems {
			m.row(&w)
		}
		out = append(out, section{"memory", w.String()})
	}
	return out
}

// corpusText lists the code bases the run scored, by half, in the order of corpus.tsv: the
// counts and names that PRECISION.md's prose about the corpus would otherwise keep by hand.
func (rep *report) corpusText() string {
	byHalf := map[string][]string{}
	for _, s := range rep.scores {
		m, _, _ := strings.Cut(s.name, "@")
		byHalf[s.half] = append(byHalf[s.half], "`"+m+"`")
	}
	tune, held := byHalf["tune"], byHalf["heldout"]
	return fmt.Sprintf("%d code bases: %d in the tune half (%s) and %d held out (%s).\n",
		len(tune)+len(held), len(tune), strings.Join(tune, ", "), len(held), strings.Join(held, ", "))
}

// A section is one part of the output, written between the markers of its name.
type section struct{ name, text string }

func (o options) flags() string {
	f := "-half=" + o.half
	if o.only != "" {
		f += " -only=" + o.only
	}
	if o.recall {
		f += " -recall"
	}
	if o.cost > 0 {
		f += fmt.Sprintf(" -cost=%d", o.cost)
	}
	if o.memory > 0 {
		f += fmt.Sprintf(" -memory=%d", o.memory)
	}
	return f
}

// problems is what -check fails on, or "".
func (rep *report) problems() string {
	var msgs []string
	for _, s := range rep.scores {
		if n := len(s.untriaged); n > 0 {
			msgs = append(msgs, fmt.Sprintf("%s: %d untriaged", s.name, n))
		}
		if n := s.lostReal(); n > 0 {
			msgs = append(msgs, fmt.Sprintf("%s: %d real findings no longer reported", s.name, n))
		}
	}
	if len(msgs) == 0 {
		return ""
	}
	return "replay: -check: " + strings.Join(msgs, "; ")
}

// appendUntriaged adds a row with an empty verdict for each untriaged finding.
func (rep *report) appendUntriaged(path string) error {
	var b strings.Builder
	for _, s := range rep.scores {
		for _, f := range s.untriaged {
			fmt.Fprintf(&b, "%s\t%s\t%s\t\t\n", f.modver, f.pos(), f.acq())
		}
	}
	if b.Len() == 0 {
		return nil
	}
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	if _, err := io.WriteString(fh, b.String()); err != nil {
		fh.Close()
		return fmt.Errorf("replay: %w", err)
	}
	return fh.Close()
}

// writeBetweenMarkers replaces what lies between the markers <!-- replay:NAME --> and
// <!-- replay:NAME:end --> in the file at path.
func writeBetweenMarkers(path, name, text string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	begin, end := "<!-- replay:"+name+" -->", "<!-- replay:"+name+":end -->"
	i := bytes.Index(b, []byte(begin))
	j := bytes.Index(b, []byte(end))
	if i < 0 || j < i {
		return errors.New("replay: " + path + " has no " + begin + " … " + end + " section")
	}
	var out bytes.Buffer
	out.Write(b[:i+len(begin)])
	out.WriteString("\n")
	out.WriteString(text)
	out.Write(b[j:])
	return os.WriteFile(path, out.Bytes(), 0o644)
}
