package releasepath

import (
	_ "embed"
	"flag"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/ctrlflow"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
)

//go:embed doc.go
var doc string

// Analyzer reports each return that can skip the release of a resource acquired earlier in
// the same function. Its flag is -pairs (more acquire=release pairs, see the package
// documentation). It checks the _test.go files the driver loads: go vet always loads them,
// the releasepath command unless -test=false, golangci-lint unless run.tests is false. Use
// [New] for an Analyzer configured in code, as the golangci-lint plugin does.
var Analyzer = newAnalyzer(&config{})

// Config configures an Analyzer made by [New]. The zero value is the default Analyzer's
// configuration.
type Config struct {
	// Pairs adds acquisitions and their releases, each "acquire=release" in full names,
	// several releases separated by "|": "example.com/ipam.ExecAdd=example.com/ipam.ExecDel",
	// "example.com/cloud.Client.Reserve=example.com/cloud.Client.Release". A configured pair
	// is checked on every error return after the acquisition.
	Pairs []string
	// GolangciLint leaves to golangci-lint what it does itself. The Analyzer then ignores
	// //nolint comments, so that golangci-lint's own filter and nolintlint see every finding,
	// and its diagnostics carry no related information, which golangci-lint reports as
	// issues of their own that no fix resolves (the message names the acquisition's line).
	GolangciLint bool
	// Broad reports the broader tier as well, opt-in: the returns the default tier keeps
	// silent for lack of evidence (see "The broader tier" in the package documentation).
	Broad bool
}

// New returns an Analyzer named releasepath configured by c, or an error when one of
// c.Pairs is malformed. Each call returns a new Analyzer that shares nothing with
// [Analyzer].
func New(c Config) (*analysis.Analyzer, error) {
	cfg := &config{golangci: c.GolangciLint, broad: c.Broad}
	if err := cfg.addPairs(strings.Join(c.Pairs, ",")); err != nil {
		return nil, err
	}
	return newAnalyzer(cfg), nil
}

// config is the state behind one Analyzer: its flags write into it before the first run.
type config struct {
	golangci bool
	broad    bool
	pairs    []pair
	raw      []string
}

func (c *config) addPairs(s string) error {
	ps, err := parsePairs(s)
	if err != nil {
		return err
	}
	c.pairs = append(c.pairs, ps...)
	if s != "" {
		c.raw = append(c.raw, s)
	}
	return nil
}

// pairsFlag is the -pairs flag; each use adds to the list.
type pairsFlag struct{ c *config }

func (f pairsFlag) String() string {
	if f.c == nil {
		return ""
	}
	return strings.Join(f.c.raw, ",")
}

func (f pairsFlag) Set(s string) error { return f.c.addPairs(s) }

func newAnalyzer(c *config) *analysis.Analyzer {
	a := &analysis.Analyzer{
		Name:     "releasepath",
		Doc:      extractDoc(doc),
		URL:      "https://pkg.go.dev/github.com/safereconcile/safereconcile/releasepath",
		Requires: []*analysis.Analyzer{inspect.Analyzer, ctrlflow.Analyzer, factsAnalyzer},
		Run:      func(pass *analysis.Pass) (any, error) { return run(pass, c) },
	}
	a.Flags.Init("releasepath", flag.ContinueOnError)
	a.Flags.BoolVar(&c.broad, "broad", c.broad, "also report the broader tier: returns the default tier keeps silent for lack of evidence")
	a.Flags.Var(pairsFlag{c}, "pairs", "more `acquire=release` pairs in full names, comma-separated (example.com/ipam.ExecAdd=example.com/ipam.ExecDel)")
	return a
}

// extractDoc returns the text of the "# Analyzer releasepath" section of the package
// comment in src without its "releasepath:" prefix, the way the x/tools passes keep one
// source for both. It reads the comment's lines as [ast.CommentGroup.Text] does, without
// parsing the file: every process go vet starts for a package builds the Analyzer.
func extractDoc(src string) string {
	const heading = "# Analyzer releasepath"
	var lines []string
	in := false
	for line := range strings.Lines(src) {
		text, ok := strings.CutPrefix(strings.TrimRight(line, " \t\r\n"), "//")
		if !ok {
			break // the package clause: the comment has ended
		}
		text = strings.TrimPrefix(text, " ")
		if in {
			lines = append(lines, text)
		}
		in = in || text == heading
	}
	if !in {
		panic("releasepath: doc.go has no " + heading + " section")
	}
	// The section opens with "releasepath: summary"; the drivers print the name themselves
	// ("releasepath: summary" in the usage text), so the prefix is dropped as x/tools does.
	body := strings.TrimSpace(strings.Join(lines, "\n"))
	return strings.TrimSpace(strings.TrimPrefix(body, "releasepath:"))
}

// run checks each function of the package that contains a candidate acquisition.
func run(pass *analysis.Pass, c *config) (any, error) {
	ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	cfgs := pass.ResultOf[ctrlflow.Analyzer].(*ctrlflow.CFGs)
	imported := pass.ResultOf[factsAnalyzer].(importedSummaries)
	p, skip := newPkgChecker(pass, c, cfgs, func(fn *types.Func) *wrapperInfo { return imported[fn] })
	for _, f := range pass.Files {
		if !skip[pass.Fset.File(f.Pos())] {
			reportReasonless(pass, f)
		}
	}
	ins.WithStack([]ast.Node{(*ast.FuncDecl)(nil), (*ast.FuncLit)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		if !push || skip[pass.Fset.File(n.Pos())] {
			return true
		}
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Body == nil {
				return true
			}
			if n.Name.Name == "main" && n.Recv == nil && pass.Pkg.Name() == "main" {
				return true // returning from main.main ends the process
			}
			obj, _ := pass.TypesInfo.Defs[n.Name].(*types.Func)
			if obj == nil {
				return true
			}
			g := cfgs.FuncDecl(n)
			if g == nil {
				return true
			}
			p.checkFunc(n, n.Body, obj.Type().(*types.Signature), g, n.Doc, nil)
		case *ast.FuncLit:
			sig, _ := pass.TypesInfo.TypeOf(n).(*types.Signature)
			g := cfgs.FuncLit(n)
			if sig == nil || g == nil {
				return true
			}
			var fdoc *ast.CommentGroup
			for i := len(stack) - 1; i >= 0; i-- {
				if d, ok := stack[i].(*ast.FuncDecl); ok {
					fdoc = d.Doc
					break
				}
			}
			p.checkFunc(n, n.Body, sig, g, fdoc, p.transaction(n, sig, stack))
		}
		return true
	})
	return nil, nil
}

// pkgChecker holds what one run knows about the package.
type pkgChecker struct {
	pass  *analysis.Pass
	cfg   *config
	cfgs  *ctrlflow.CFGs
	pairs map[string]*pair

	decls    map[*types.Func]*ast.FuncDecl // this package's functions, for release wrappers
	wrappers map[*types.Func]*wrapperInfo
	imported func(*types.Func) *wrapperInfo // another package's function's summary, from its fact
	uses     map[*types.Func][]use          // references to this package's functions (callerexits)
	exits    map[*types.Func]bool           // whether each function's callers exit on its error
	// factsOnly is set in releasefacts's run: the summaries computed are for facts only.
	factsOnly   bool
	bools       map[ast.Node]*boolVars                           // each function's bool variables, for correlated
	assigned    map[*ast.FuncDecl]map[types.Object]bool          // the parameters each function assigns (assignedParams)
	closures    map[*ast.BlockStmt]map[types.Object]*ast.FuncLit // each body's closure variables
	flagFields  map[*ast.BlockStmt]map[types.Object]types.Object // per body, each bool field's one holder, or nil (fieldFlag)
	comments    map[*token.File]map[int][]string                 // line → comment texts
	ownedBy     map[string][]*types.Func                         // per type and release names, the methods that release (receiverOwned)
	kept        map[*types.Func]*heldBy                          // the parameters each function's results hold (resultSummary)
	keptParts   map[*types.Func]*heldBy                          // the same, counting a field of a parameter (resultSummary)
	holds       map[*types.Func][]*holdSummary                   // the locks each function returns holding (holdOf)
	collecting  *holdCollector                                   // set while a function is checked for its summary
	said        map[string]bool                                  // the diagnostics reported, by position and message
	actions     map[ast.Expr]bool                                // what the package stores as a command-line action (actionSlots)
	preHooks    map[ast.Expr]bool                                // the actions that are hooks run before a command's (actionSlots)
	mainEnds    *bool                                            // whether main ends once its framework returns (mainEndsAtFramework)
	changed     map[ast.Node]*varChanges                         // how each function changes its variables (changesOf)
	tableFields map[*types.Var]bool
	mutators    map[*types.Func]bool               // whether each method may change its receiver (changesReceiver)
	lockTakers  map[*types.Func]map[int][]string   // the field paths each function locks itself, of its receiver and parameters (lockedFields)
	keyedLits   map[*ast.FuncLit]*ast.KeyValueExpr // the literals stored as composite values (keyedValue)
	main        *ast.BlockStmt                     // func main's body (mainBody), once mainDone
	mainDone    bool                               // whether main calls each command-table field last (fieldRunsAtEnd)
	indexes     map[*ast.BlockStmt]*bodyIndex      // what the rules read of each body (index)
}

// newPkgChecker returns the checker of pass's package, configured by c, with the files it
// checks indexed, and the files it skips: generated ones, which are neither checked nor
// summarized. imported reads another package's summaries.
func newPkgChecker(pass *analysis.Pass, c *config, cfgs *ctrlflow.CFGs, imported func(*types.Func) *wrapperInfo) (*pkgChecker, map[*token.File]bool) {
	p := &pkgChecker{pass: pass, cfg: c, cfgs: cfgs, pairs: map[string]*pair{}, imported: imported}
	for i := range defaultPairs {
		p.pairs[defaultPairs[i].acquire] = &defaultPairs[i]
	}
	for i := range c.pairs {
		p.pairs[c.pairs[i].acquire] = &c.pairs[i]
	}
	skip := map[*token.File]bool{}
	for _, f := range pass.Files {
		tf := pass.Fset.File(f.Pos())
		if tf == nil {
			continue
		}
		if ast.IsGenerated(f) {
			skip[tf] = true
			continue
		}
		p.indexFile(f)
	}
	return p, skip
}

// addDecl records fd, the declaration of fn, for the summaries.
func (p *pkgChecker) addDecl(fn *types.Func, fd *ast.FuncDecl) {
	if p.decls == nil {
		p.decls = map[*types.Func]*ast.FuncDecl{}
	}
	p.decls[fn] = fd
}

func (p *pkgChecker) indexFile(f *ast.File) {
	if p.decls == nil {
		p.decls = map[*types.Func]*ast.FuncDecl{}
		p.comments = map[*token.File]map[int][]string{}
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
			if fn, ok := p.pass.TypesInfo.Defs[fd.Name].(*types.Func); ok {
				p.addDecl(fn, fd)
			}
		}
	}
	tf := p.pass.Fset.File(f.Pos())
	lines := map[int][]string{}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if strings.Contains(c.Text, "releasepath") || strings.Contains(c.Text, "nolint") {
				l := tf.Line(c.Pos())
				lines[l] = append(lines[l], c.Text)
			}
		}
	}
	p.comments[tf] = lines
}

// reportReasonless reports each //releasepath:ok of f that gives no reason. As staticcheck
// does for //lint:ignore: a suppression must say why.
func reportReasonless(pass *analysis.Pass, f *ast.File) {
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if rest, ok := directiveRest(c.Text, "releasepath:ok"); ok && strings.TrimSpace(rest) == "" {
				pass.Report(analysis.Diagnostic{
					Pos:      c.Pos(),
					End:      c.End(),
					Category: "directive",
					Message:  "//releasepath:ok needs a reason: //releasepath:ok <why no release is missing>; it silences nothing without one",
				})
			}
		}
	}
}
