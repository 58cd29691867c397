package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"
)

// loadMode asks go list for the package graph and each package's files, and nothing that
// needs parsing: the driver parses and type-checks each package itself, in dependency order.
const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles |
	packages.NeedImports | packages.NeedDeps | packages.NeedTypesSizes | packages.NeedModule

// A unit is one package of the graph: a root named on the command line, or a dependency
// that the fact analyzers run on so that the roots can import its facts.
type unit struct {
	pkg  *packages.Package
	root bool
	done chan struct{} // closed once types is set and the package's facts are exported

	// Set by check; types outlives the unit's syntax, since the packages that import it
	// are type-checked against it.
	types    *types.Package
	illTyped bool

	// Set for a root only.
	diags []analysis.Diagnostic

	errs   []actionError               // analyzers that failed or were skipped, with their reason
	failed map[*analysis.Analyzer]bool // read by importers once done is closed
}

type actionError struct {
	analyzer string
	err      error
}

// A driver runs the analyzers over a package graph one package at a time. It keeps, of a
// package it has finished, only its type information and its facts, so that its peak memory
// is what the types of the whole graph need plus the syntax of the packages in flight, not
// the syntax and type information of every package at once, which is what a driver that
// loads the graph with packages.LoadAllSyntax holds before any analysis runs.
type driver struct {
	fset  *token.FileSet
	roots []*analysis.Analyzer // the analyzers run on a root, dependencies first
	deps  []*analysis.Analyzer // the ones run on a dependency: those with facts, and what they require
	units map[*packages.Package]*unit
	facts factStore
}

func newDriver(a *analysis.Analyzer) *driver {
	d := &driver{fset: token.NewFileSet(), units: map[*packages.Package]*unit{}}
	d.roots = requiredFirst(a)
	factful := map[*analysis.Analyzer]bool{}
	for _, x := range d.roots { // dependencies first, so a requirement is decided before what requires it
		if len(x.FactTypes) > 0 {
			markWithRequirements(x, factful)
		}
	}
	for _, x := range d.roots {
		if factful[x] {
			d.deps = append(d.deps, x)
		}
	}
	d.facts.obj = map[objectFactKey]analysis.Fact{}
	d.facts.pkg = map[packageFactKey]analysis.Fact{}
	return d
}

// requiredFirst returns a and every analyzer it requires, each after its requirements.
func requiredFirst(a *analysis.Analyzer) []*analysis.Analyzer {
	var order []*analysis.Analyzer
	seen := map[*analysis.Analyzer]bool{}
	var visit func(*analysis.Analyzer)
	visit = func(x *analysis.Analyzer) {
		if seen[x] {
			return
		}
		seen[x] = true
		for _, r := range x.Requires {
			visit(r)
		}
		order = append(order, x)
	}
	visit(a)
	return order
}

func markWithRequirements(a *analysis.Analyzer, set map[*analysis.Analyzer]bool) {
	if set[a] {
		return
	}
	set[a] = true
	for _, r := range a.Requires {
		markWithRequirements(r, set)
	}
}

// run checks every package reachable from initial, at most GOMAXPROCS at a time.
func (d *driver) run(initial []*packages.Package) {
	var order []*unit
	packages.Visit(initial, nil, func(p *packages.Package) { // postorder: a package after its imports
		u := &unit{pkg: p, done: make(chan struct{})}
		d.units[p] = u
		order = append(order, u)
	})
	for _, p := range initial {
		d.units[p].root = true
	}
	// Workers take the units in postorder and each first waits for its imports. The unit
	// that is earliest in the order among those in flight has every import done, so the
	// pool always makes progress.
	next := make(chan *unit)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range next {
				for _, imp := range u.pkg.Imports {
					<-d.units[imp].done
				}
				d.check(u)
				close(u.done)
			}
		}()
	}
	for _, u := range order {
		next <- u
	}
	close(next)
	wg.Wait()
}

// check parses and type-checks one package and runs the analyzers on it. Everything it
// builds but the package's types and the facts it exports is garbage when it returns.
func (d *driver) check(u *unit) {
	p := u.pkg
	if len(p.Errors) > 0 {
		u.illTyped = true // go list's own errors: missing files, bad imports
	}
	files := make([]*ast.File, 0, len(p.CompiledGoFiles))
	for _, name := range p.CompiledGoFiles {
		f, err := parser.ParseFile(d.fset, name, nil, parser.AllErrors|parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			u.illTyped = true
			if list, ok := err.(scanner.ErrorList); ok {
				for _, e := range list { // each, as go/packages records them
					p.Errors = append(p.Errors, packages.Error{Pos: e.Pos.String(), Msg: e.Msg, Kind: packages.ParseError})
				}
			} else {
				p.Errors = append(p.Errors, packages.Error{Pos: posOf(err), Msg: msgOf(err), Kind: packages.ParseError})
			}
		}
		if f != nil {
			files = append(files, f)
		}
	}
	info := &types.Info{
		Types:        map[ast.Expr]types.TypeAndValue{},
		Defs:         map[*ast.Ident]types.Object{},
		Uses:         map[*ast.Ident]types.Object{},
		Implicits:    map[ast.Node]types.Object{},
		Instances:    map[*ast.Ident]types.Instance{},
		Scopes:       map[ast.Node]*types.Scope{},
		Selections:   map[*ast.SelectorExpr]*types.Selection{},
		FileVersions: map[*ast.File]string{},
	}
	conf := types.Config{
		Importer: importerFunc(func(path string) (*types.Package, error) {
			if path == "unsafe" {
				return types.Unsafe, nil
			}
			imp, ok := p.Imports[path]
			if !ok {
				return nil, fmt.Errorf("no package for import %q", path)
			}
			if t := d.units[imp].types; t != nil {
				return t, nil
			}
			return nil, fmt.Errorf("package %q could not be loaded", path)
		}),
		Sizes: p.TypesSizes,
		Error: func(err error) {
			u.illTyped = true
			p.Errors = append(p.Errors, packages.Error{Pos: posOf(err), Msg: msgOf(err), Kind: packages.TypeError})
		},
	}
	if p.Module != nil && p.Module.GoVersion != "" {
		conf.GoVersion = "go" + p.Module.GoVersion
	}
	var err error
	if u.types, err = conf.Check(p.PkgPath, d.fset, files, info); err != nil && !u.illTyped {
		u.illTyped = true // an error conf.Error did not see
		p.Errors = append(p.Errors, packages.Error{Pos: posOf(err), Msg: msgOf(err), Kind: packages.TypeError})
	}
	// As go/packages marks it, a package is ill-typed when an import of it is: the analyzers
	// that do not run despite errors skip it.
	for _, imp := range p.Imports {
		if d.units[imp].illTyped {
			u.illTyped = true
		}
	}
	analyzers := d.deps
	if u.root {
		analyzers = d.roots
	}
	results := map[*analysis.Analyzer]any{}
	u.failed = map[*analysis.Analyzer]bool{}
	for _, a := range analyzers {
		if err := d.runAnalyzer(u, a, files, info, results); err != nil {
			u.failed[a] = true
			u.errs = append(u.errs, actionError{a.Name, err})
		}
	}
}

// runAnalyzer runs a on the unit, whose analyzers it requires have run already.
func (d *driver) runAnalyzer(u *unit, a *analysis.Analyzer, files []*ast.File, info *types.Info, results map[*analysis.Analyzer]any) error {
	// As in the x/tools checker, an analysis fails when one it depends on failed: an
	// analyzer it requires, on this package, or, for one with facts, the same analyzer on
	// an import, whose facts it would miss.
	var failed []string
	for _, r := range a.Requires {
		if u.failed[r] {
			failed = append(failed, r.Name+"@"+u.pkg.ID)
		}
	}
	if len(a.FactTypes) > 0 {
		for _, imp := range u.pkg.Imports {
			if d.units[imp].failed[a] {
				failed = append(failed, a.Name+"@"+imp.ID)
			}
		}
	}
	if failed != nil {
		slices.Sort(failed)
		return fmt.Errorf("failed prerequisites: %s", strings.Join(failed, ", "))
	}
	if u.illTyped && !a.RunDespiteErrors {
		return fmt.Errorf("analysis skipped due to errors in package")
	}
	p := u.pkg
	resultOf := make(map[*analysis.Analyzer]any, len(a.Requires))
	for _, r := range a.Requires {
		resultOf[r] = results[r]
	}
	readable := map[string]bool{}
	for _, names := range [][]string{p.GoFiles, p.CompiledGoFiles, p.OtherFiles, p.IgnoredFiles} {
		for _, n := range names {
			readable[n] = true
		}
	}
	pass := &analysis.Pass{
		Analyzer:     a,
		Fset:         d.fset,
		Files:        files,
		OtherFiles:   p.OtherFiles,
		IgnoredFiles: p.IgnoredFiles,
		Pkg:          u.types,
		TypesInfo:    info,
		TypesSizes:   p.TypesSizes,
		ResultOf:     resultOf,
		Report: func(diag analysis.Diagnostic) {
			if u.root && a == d.roots[len(d.roots)-1] {
				u.diags = append(u.diags, diag)
			}
		},
		ReadFile: func(name string) ([]byte, error) {
			if !readable[name] {
				return nil, fmt.Errorf("%s is not among the files of package %s", name, p.PkgPath)
			}
			return os.ReadFile(name)
		},
		ImportObjectFact:  func(obj types.Object, f analysis.Fact) bool { return d.facts.importObject(obj, f) },
		ExportObjectFact:  func(obj types.Object, f analysis.Fact) { d.facts.exportObject(a, u.types, obj, f) },
		ImportPackageFact: func(pkg *types.Package, f analysis.Fact) bool { return d.facts.importPackage(pkg, f) },
		ExportPackageFact: func(f analysis.Fact) { d.facts.exportPackage(u.types, f) },
		AllObjectFacts:    func() []analysis.ObjectFact { return d.facts.allObject(u.types) },
		AllPackageFacts:   func() []analysis.PackageFact { return d.facts.allPackage(u.types) },
	}
	if p.Module != nil {
		pass.Module = &analysis.Module{Path: p.Module.Path, Version: p.Module.Version, GoVersion: p.Module.GoVersion}
	}
	res, err := a.Run(pass)
	if err != nil {
		return err
	}
	results[a] = res
	return nil
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

func posOf(err error) string {
	if e, ok := err.(types.Error); ok {
		return e.Fset.Position(e.Pos).String()
	}
	return ""
}

func msgOf(err error) string {
	if e, ok := err.(types.Error); ok {
		return e.Msg
	}
	return err.Error()
}

// A factStore holds every fact the analyzers export, for the life of the run. All packages
// are type-checked into one universe of objects, so a fact is keyed by the object itself, as
// the x/tools checker keys it.
type factStore struct {
	mu  sync.Mutex
	obj map[objectFactKey]analysis.Fact
	pkg map[packageFactKey]analysis.Fact
}

type objectFactKey struct {
	obj types.Object
	t   reflect.Type
}

type packageFactKey struct {
	pkg *types.Package
	t   reflect.Type
}

func (s *factStore) importObject(obj types.Object, ptr analysis.Fact) bool {
	if obj == nil {
		panic("releasepath: ImportObjectFact of a nil object")
	}
	s.mu.Lock()
	f, ok := s.obj[objectFactKey{obj, reflect.TypeOf(ptr)}]
	s.mu.Unlock()
	if ok {
		reflect.ValueOf(ptr).Elem().Set(reflect.ValueOf(f).Elem())
	}
	return ok
}

func (s *factStore) exportObject(a *analysis.Analyzer, pkg *types.Package, obj types.Object, f analysis.Fact) {
	if obj.Pkg() != pkg {
		panic(fmt.Sprintf("releasepath: %s exported a fact on %s, which is not of package %s", a.Name, obj, pkg.Path()))
	}
	s.mu.Lock()
	s.obj[objectFactKey{obj, reflect.TypeOf(f)}] = f
	s.mu.Unlock()
}

func (s *factStore) importPackage(pkg *types.Package, ptr analysis.Fact) bool {
	s.mu.Lock()
	f, ok := s.pkg[packageFactKey{pkg, reflect.TypeOf(ptr)}]
	s.mu.Unlock()
	if ok {
		reflect.ValueOf(ptr).Elem().Set(reflect.ValueOf(f).Elem())
	}
	return ok
}

func (s *factStore) exportPackage(pkg *types.Package, f analysis.Fact) {
	s.mu.Lock()
	s.pkg[packageFactKey{pkg, reflect.TypeOf(f)}] = f
	s.mu.Unlock()
}

// allObject returns the object facts of pkg and of the packages it imports, directly or not.
func (s *factStore) allObject(pkg *types.Package) []analysis.ObjectFact {
	visible := importClosure(pkg)
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []analysis.ObjectFact
	for k, f := range s.obj {
		if visible[k.obj.Pkg()] {
			out = append(out, analysis.ObjectFact{Object: k.obj, Fact: f})
		}
	}
	return out
}

func (s *factStore) allPackage(pkg *types.Package) []analysis.PackageFact {
	visible := importClosure(pkg)
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []analysis.PackageFact
	for k, f := range s.pkg {
		if visible[k.pkg] {
			out = append(out, analysis.PackageFact{Package: k.pkg, Fact: f})
		}
	}
	return out
}

func importClosure(pkg *types.Package) map[*types.Package]bool {
	seen := map[*types.Package]bool{}
	stack := []*types.Package{pkg}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if p == nil || seen[p] {
			continue
		}
		seen[p] = true
		stack = append(stack, p.Imports()...)
	}
	return seen
}

// rootsInOrder returns the units of the initial packages, in the order go list gave them.
func (d *driver) rootsInOrder(initial []*packages.Package) []*unit {
	out := make([]*unit, 0, len(initial))
	for _, p := range initial {
		out = append(out, d.units[p])
	}
	return slices.Clip(out)
}
