// Command noopvet is a vet tool that analyzes nothing: it does only what the x/tools
// unitchecker does for every vet tool, parse and type-check each package go vet hands it and
// carry one fact type from each dependency. The replay harness builds it only to measure the
// floor of any vet tool's cost against plain go vet (-cost); it is not a tool to use.
package main

import (
	"flag"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/unitchecker"
)

// nothing is the fact type: a tool with facts is run on every dependency too, as releasepath is.
type nothing struct{}

func (*nothing) AFact() {}

var analyzer = &analysis.Analyzer{
	Name:      "noopvet",
	Doc:       "noopvet: analyze nothing",
	FactTypes: []analysis.Fact{new(nothing)},
	Run:       func(*analysis.Pass) (any, error) { return nil, nil },
}

func main() {
	// -noopvet.nonce keeps go vet from answering a run from its action cache.
	analyzer.Flags.Init("noopvet", flag.ExitOnError)
	analyzer.Flags.String("nonce", "", "ignored")
	unitchecker.Main(analyzer)
}
