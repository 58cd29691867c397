// Command releasepath runs the [releasepath.Analyzer] on the packages named on the command
// line, or as a vet tool:
//
//	releasepath ./...
//	releasepath -fix ./...
//	releasepath -json -test=false ./...
//	go vet -vettool=$(which releasepath) ./...
//
// Its flags are those of the analyzer (-pairs, -broad) and of the x/tools single-analyzer
// driver, but for -diff, -debug and -trace: -json prints the findings as JSON on standard
// output, -c=N prints N lines of context around each, -fix applies the suggested fixes,
// -test=false leaves out the packages' tests, and -cpuprofile and -memprofile write
// profiles; -source, -v, -all and -tags are accepted and ignored, as there. It exits 3 when
// it reports a finding, 1 when a package cannot be loaded, an analysis fails or no package
// is named, 2 on a bad flag, and 0 otherwise (with -json and -fix, 0 unless something
// failed).
//
// # Memory
//
// Run on its own, the command parses and type-checks one package at a time, each after the
// packages it imports, and runs the analyzer's fact pass on every dependency and the whole
// analyzer on the packages named. Of a package it has finished it keeps only the type
// information its importers need and the facts it exported. The x/tools driver, for an
// analyzer with facts, loads the syntax and type information of every package of the graph
// before it analyzes any, and holds them all to the end. The memory table of the module's
// PRECISION.md has both peaks on the replay corpus, measured side by side by its harness
// (go run ./replay -memory=3).
//
// Under go vet (a .cfg argument, -V=full or -flags) the command is a vet tool, run by the
// go command once per package with the facts of its imports read from the build cache. On a
// package it runs for its importers' sake alone (a dependency of those vetted, VetxOnly in
// its .cfg), it computes the facts and skips the analysis whose findings go vet would drop
// there. As cmd/compile does, each such process runs without a garbage collection until the
// memory it uses reaches 64 MiB (its heap somewhat less), and collects as usual after that,
// unless GOGC or GOMEMLIMIT is set: most of these processes type-check one small package and
// exit, and the collections a 4 MiB start would make are work thrown away at the exit. The cost
// table of PRECISION.md has the CPU go vet spends with the command beside plain go vet's
// (go run ./replay -cost=5).
//
// See the releasepath package documentation for what it reports and how to silence it.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/singlechecker"
	"golang.org/x/tools/go/packages"

	"github.com/safereconcile/safereconcile/releasepath"
)

func main() {
	if vetInvocation(os.Args[1:]) {
		startHeap(os.Getenv)
		a := releasepath.Analyzer
		if factsOnly(os.Args[1:]) {
			a = withoutDiagnostics(a)
		}
		singlechecker.Main(a)
		return
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// vetInvocation reports whether the go command runs the command as a vet tool: it asks for
// the tool's version and flags, and then passes one .cfg file per package.
func vetInvocation(args []string) bool {
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && (name == "V" || name == "flags") {
			return true
		}
	}
	return len(args) > 0 && strings.HasSuffix(args[len(args)-1], ".cfg")
}

// factsOnly reports whether the go command runs the vet tool on a dependency of the
// packages it vets, for the facts its importers read alone: the .cfg file says VetxOnly.
// A file that cannot be read or parsed is unitchecker's to report.
func factsOnly(args []string) bool {
	if len(args) == 0 || !strings.HasSuffix(args[len(args)-1], ".cfg") {
		return false
	}
	data, err := os.ReadFile(args[len(args)-1])
	if err != nil {
		return false
	}
	var cfg struct{ VetxOnly bool }
	return json.Unmarshal(data, &cfg) == nil && cfg.VetxOnly
}

// withoutDiagnostics returns a copy of a whose own run does nothing: unitchecker runs an
// analyzer that requires one with facts (releasepath requires the fact pass) on every
// dependency too, and drops its findings there, so under go vet most of the analyzer's
// work went to the standard library's packages and was thrown away. The facts its
// requirements export are the same; the copy keeps a's name and flags, which the go command
// passes to every process.
func withoutDiagnostics(a *analysis.Analyzer) *analysis.Analyzer {
	c := *a
	c.Run = func(*analysis.Pass) (any, error) { return nil, nil }
	return &c
}

// startHeapBytes is the memory a vet tool process grows to before its first collection.
const startHeapBytes = 64 << 20

// startHeap lets a vet tool process run without a garbage collection until the memory it
// uses (its heap, stacks and the runtime's own) reaches startHeapBytes, and collect as usual
// after that, as cmd/compile does for the same reason:
// go vet starts the tool once for every package and every dependency, and each process
// type-checks one package and exits, most of them well under that heap, so collections from
// the runtime's 4 MiB start are work thrown away at the exit. The limit stops the first
// collection at startHeapBytes; a finalizer that runs after it gives the process the
// default GOGC and no limit, so that a larger package's peak stays what it would have been.
// A GOGC or GOMEMLIMIT in the environment is the user's choice and is left alone.
func startHeap(getenv func(string) string) bool {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return false
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(startHeapBytes)
	// A pointer field keeps the sentinel out of the tiny allocator, whose blocks may never be
	// finalized.
	type sentinel struct{ _ *byte }
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	})
	return true
}

type options struct {
	json       bool
	context    int
	fix        bool
	tests      bool
	cpuprofile string
	memprofile string
}

// run is the standalone command; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	a := releasepath.Analyzer
	fs := flag.NewFlagSet("releasepath", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.BoolVar(&o.json, "json", false, "emit JSON output")
	fs.IntVar(&o.context, "c", -1, "display offending line with this many lines of context")
	fs.BoolVar(&o.fix, "fix", false, "apply all suggested fixes")
	fs.BoolVar(&o.tests, "test", true, "indicates whether test files should be analyzed, too")
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write CPU profile to this file")
	fs.StringVar(&o.memprofile, "memprofile", "", "write memory profile to this file")
	a.Flags.VisitAll(func(f *flag.Flag) { fs.Var(f.Value, f.Name, f.Usage) })
	// The legacy vet flags the x/tools drivers accept and ignore, so that scripts that pass
	// them keep working.
	fs.Bool("source", false, "no effect (deprecated)")
	fs.Bool("v", false, "no effect (deprecated)")
	fs.Bool("all", false, "no effect (deprecated)")
	fs.String("tags", "", "no effect (deprecated)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "%s: %s\n\nUsage: %s [-flag] [package]\n\n", a.Name, firstLine(a.Doc), a.Name)
		fmt.Fprintf(stderr, "Flags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 1
	}
	if o.cpuprofile != "" {
		f, err := os.Create(o.cpuprofile)
		if err != nil {
			fmt.Fprintf(stderr, "releasepath: %v\n", err)
			return 1
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			fmt.Fprintf(stderr, "releasepath: %v\n", err)
			return 1
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}

	initial, err := packages.Load(&packages.Config{Mode: loadMode, Tests: o.tests}, fs.Args()...)
	if err == nil && len(initial) == 0 {
		err = fmt.Errorf("%s matched no packages", strings.Join(fs.Args(), " "))
	}
	if err != nil {
		fmt.Fprintf(stderr, "releasepath: %v\n", err)
		return 1
	}
	d := newDriver(a)
	d.run(initial)
	status := 0
	// The load and type errors of the whole graph, as packages.PrintErrors prints them; an
	// analysis of a package with errors is skipped, and its importers are still analyzed.
	if printErrors(stderr, initial) > 0 {
		status = 1
	}
	if o.memprofile != "" {
		if err := writeHeapProfile(o.memprofile); err != nil {
			fmt.Fprintf(stderr, "releasepath: %v\n", err)
			status = 1
		}
	}
	roots := d.rootsInOrder(initial)
	switch {
	case o.fix:
		if err := applyFixes(d.fset, roots); err != nil {
			fmt.Fprintf(stderr, "releasepath: %v\n", err)
			status = 1
		}
	case o.json:
		if err := printJSON(stdout, d, initial); err != nil {
			fmt.Fprintf(stderr, "releasepath: %v\n", err)
			status = 1
		}
	default:
		status = max(status, printText(stderr, d, initial, o.context))
	}
	return status
}

// printErrors prints the errors of every package of the graph, and the error of each
// package's module once, as packages.PrintErrors does, and returns how many.
func printErrors(w io.Writer, initial []*packages.Package) int {
	n := 0
	seen := map[*packages.Module]bool{}
	packages.Visit(initial, nil, func(p *packages.Package) {
		for _, err := range p.Errors {
			fmt.Fprintln(w, err)
			n++
		}
		if m := p.Module; m != nil && m.Error != nil && !seen[m] {
			seen[m] = true
			fmt.Fprintln(w, m.Error.Err)
			n++
		}
	})
	return n
}

func writeHeapProfile(name string) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
