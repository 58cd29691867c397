// Command releasepath runs the [releasepath.Analyzer] on the packages named on the command
// line, or as a vet tool:
//
//	releasepath ./...
//	releasepath -fix ./...
//	go vet -vettool=$(which releasepath) ./...
//
// See the releasepath package documentation for what it reports and how to silence it.
package main

import (
	"golang.org/x/tools/go/analysis/singlechecker"

	"github.com/safereconcile/safereconcile/releasepath"
)

func main() { singlechecker.Main(releasepath.Analyzer) }
