// Command loadall is the releasepath analyzer under the x/tools single-analyzer driver,
// which loads the whole package graph with its syntax before it analyzes anything. The
// replay harness builds it only to measure the standalone command's memory against it
// (-memory); it is not a tool to use.
package main

import (
	"golang.org/x/tools/go/analysis/singlechecker"

	"github.com/safereconcile/safereconcile/releasepath"
)

func main() { singlechecker.Main(releasepath.Analyzer) }
