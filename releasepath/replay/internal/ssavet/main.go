// Command ssavet is a vet tool that builds the SSA form of each package and analyzes nothing
// else: noopvet's floor plus what an analyzer on go/ssa (buildssa, as nilness and checklocks
// use) pays before it reads a single instruction. Like noopvet it carries one fact type, so
// go vet runs it on every dependency, as it runs releasepath, whose summaries are facts. The
// replay harness builds it only to measure that floor against plain go vet (-cost); it is
// not a tool to use.
package main

import (
	"flag"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/analysis/unitchecker"
)

// nothing is the fact type: a tool with facts is run on every dependency too.
type nothing struct{}

func (*nothing) AFact() {}

var analyzer = &analysis.Analyzer{
	Name:      "ssavet",
	Doc:       "ssavet: build SSA, analyze nothing",
	Requires:  []*analysis.Analyzer{buildssa.Analyzer},
	FactTypes: []analysis.Fact{new(nothing)},
	Run:       func(*analysis.Pass) (any, error) { return nil, nil },
}

func main() {
	// -ssavet.nonce keeps go vet from answering a run from its action cache.
	analyzer.Flags.Init("ssavet", flag.ExitOnError)
	analyzer.Flags.String("nonce", "", "ignored")
	unitchecker.Main(analyzer)
}
