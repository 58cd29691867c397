package releasepath

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/ctrlflow"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
)

// factsAnalyzer exports, for each exported function of every package, what the function
// releases of its parameters and receiver, so that a release through another package's
// helper counts: defer util.CloseQuietly(f), and the lock it returns holding, so that its
// callers carry it: s.Lookup(k) … s.Done(), and which of its several results holds which
// parameter (endpoint, err := sniffer.NewWithWriter(lower, fd, n) holds fd). It is the
// ctrlflow of lostcancel's layout: releasepath requires it and reads its result, declares
// no facts of its own, and so its testdata needs no fact expectations.
//
// The summary is the one the wrapper rule computes for the package's own functions, from
// the release verbs alone: a configured pair is the checking package's, unknown where the
// helper was compiled.
var factsAnalyzer = &analysis.Analyzer{
	Name:       "releasefacts",
	Doc:        "export what each function releases of its parameters and returns holding, for releasepath",
	URL:        "https://pkg.go.dev/github.com/safereconcile/safereconcile/releasepath",
	Requires:   []*analysis.Analyzer{inspect.Analyzer, ctrlflow.Analyzer},
	Run:        runFacts,
	FactTypes:  []analysis.Fact{new(releasesFact)},
	ResultType: reflect.TypeFor[importedSummaries](),
}

// releasesFact is a function's summary as a fact: for each parameter (-1 the receiver),
// the releases it always makes on the parameter or a field path of it and does not take
// back ([wrapperInfo.fields]), as {field path, name}. Only this strict half of the summary
// travels: a release under a condition (poll.FD.decref's destroy), or one a helper makes of
// a lock it took itself (sync.Map.Store's m.mu), is the callee's own business, and across
// the standard library's layers the loose half would say that f.Stat() closes f. Names that
// another package could not call are dropped.
type releasesFact struct {
	Releases map[int][][2]string
	Keeps    []int      // the parameters it keeps away ([keptAway]), -1 the receiver
	Stores   []int      // the parameters it stores in its receiver ([storedInRecv])
	Holds    []heldLock // the locks it returns holding by contract ([holdSummary]), if any
	// WhenTrue lists, per bool parameter, the releases it makes as Releases does when that
	// parameter is true (releaseflag).
	WhenTrue map[int]map[int][][2]string
	// HoldsAt lists, for a function of several results, the parameters (-1 the receiver)
	// each result holds ([pkgChecker.resultHoldsAt]): sniffer.NewWithWriter(lower, fd, n)
	// returns an endpoint that keeps fd, so endpoint, err := … holds it.
	HoldsAt map[int][]int
}

// heldLock is a [holdSummary] as a fact: the lock of parameter Param (-1 the receiver) at
// field path Path (".mu") that the function returns holding where a result says success,
// taken by Verb ("Lock", "RLock") and released by Releases or RelVerbs.
type heldLock struct {
	Param              int
	Path, Verb         string
	Releases, RelVerbs []string
}

func (*releasesFact) AFact() {}

// String lists the releases by parameter, the receiver first: "releases(recv.mu:Unlock
// 0:Close)".
func (f *releasesFact) String() string {
	var idxs []int
	for i := range f.Releases {
		idxs = append(idxs, i)
	}
	slices.Sort(idxs)
	var parts []string
	for _, i := range idxs {
		param := fmt.Sprint(i)
		if i < 0 {
			param = "recv"
		}
		for _, pf := range f.Releases[i] {
			parts = append(parts, param+pf[0]+":"+pf[1])
		}
	}
	out := "releases(" + strings.Join(parts, " ") + ")"
	if len(f.Keeps) > 0 {
		var ks []string
		for _, i := range f.Keeps {
			if i < 0 {
				ks = append(ks, "recv")
			} else {
				ks = append(ks, fmt.Sprint(i))
			}
		}
		out += " keeps(" + strings.Join(ks, " ") + ")"
	}
	if len(f.Stores) > 0 {
		var ss []string
		for _, i := range f.Stores {
			ss = append(ss, fmt.Sprint(i))
		}
		out += " stores(" + strings.Join(ss, " ") + ")"
	}
	var flags []int
	for k := range f.WhenTrue {
		flags = append(flags, k)
	}
	slices.Sort(flags)
	for _, k := range flags {
		out += fmt.Sprintf(" when(%d)%s", k, strings.TrimPrefix((&releasesFact{Releases: f.WhenTrue[k]}).String(), "releases"))
	}
	var results []int
	for i := range f.HoldsAt {
		results = append(results, i)
	}
	slices.Sort(results)
	for _, i := range results {
		var ps []string
		for _, j := range f.HoldsAt[i] {
			if j < 0 {
				ps = append(ps, "recv")
			} else {
				ps = append(ps, fmt.Sprint(j))
			}
		}
		out += fmt.Sprintf(" result%d(%s)", i, strings.Join(ps, " "))
	}
	if len(f.Holds) > 0 {
		var hs []string
		for _, h := range f.Holds {
			param := fmt.Sprint(h.Param)
			if h.Param < 0 {
				param = "recv"
			}
			hs = append(hs, param+h.Path+":"+h.Verb)
		}
		out += " holds(" + strings.Join(hs, " ") + ")"
	}
	return out
}

// summaryOf turns a fact back into the summary the wrapper rules read: each release counts
// for the parameter it is made on, and for its field path.
func summaryOf(f *releasesFact) *wrapperInfo {
	wi := &wrapperInfo{names: map[int][][2]string{}, fields: f.Releases, whenTrue: f.WhenTrue, keeps: map[int]keep{}, holdsAt: f.HoldsAt}
	for _, i := range f.Stores {
		wi.keeps[i] = storedInRecv
	}
	for _, i := range f.Keeps {
		wi.keeps[i] = keptAway
	}
	for i, rs := range f.Releases {
		for _, r := range rs {
			if nf := [2]string{r[1], ""}; !slices.Contains(wi.names[i], nf) {
				wi.names[i] = append(wi.names[i], nf)
			}
		}
	}
	for _, h := range f.Holds {
		wi.hold = append(wi.hold, &holdSummary{param: h.Param, path: h.Path, verb: verbMatch{verb: h.Verb, releases: h.Releases, relVerbs: h.RelVerbs, kind: scoped}})
	}
	return wi
}

// factOf returns the fact to export for wi, nil when it releases nothing another package
// could name.
func factOf(wi *wrapperInfo) *releasesFact {
	if wi == nil {
		return nil
	}
	out := exportedReleases(wi.fields)
	var whenTrue map[int]map[int][][2]string
	for k, byParam := range wi.whenTrue {
		if rels := exportedReleases(byParam); len(rels) > 0 {
			if whenTrue == nil {
				whenTrue = map[int]map[int][][2]string{}
			}
			whenTrue[k] = rels
		}
	}
	var keeps, stores []int
	for i, how := range wi.keeps {
		switch how {
		case keptAway:
			keeps = append(keeps, i)
		case storedInRecv:
			stores = append(stores, i)
		}
	}
	slices.Sort(keeps)
	slices.Sort(stores)
	if len(out) == 0 && len(keeps) == 0 && len(stores) == 0 && len(whenTrue) == 0 {
		return nil
	}
	return &releasesFact{Releases: out, Keeps: keeps, Stores: stores, WhenTrue: whenTrue}
}

// exportedReleases returns the releases of fields whose names another package could call.
func exportedReleases(fields map[int][][2]string) map[int][][2]string {
	out := map[int][][2]string{}
	for i, rs := range fields {
		for _, r := range rs {
			if token.IsExported(r[1]) {
				out[i] = append(out[i], r)
			}
		}
	}
	return out
}

// importedSummaries is factsAnalyzer's result: the summaries of the other packages'
// functions that the package calls, read from their facts while the pass can read them.
type importedSummaries map[*types.Func]*wrapperInfo

func runFacts(pass *analysis.Pass) (any, error) {
	imported := importedSummaries{}
	read := func(fn *types.Func) *wrapperInfo {
		if wi, ok := imported[fn]; ok {
			return wi
		}
		var f releasesFact
		var wi *wrapperInfo
		if pass.ImportObjectFact(fn, &f) {
			wi = summaryOf(&f)
		}
		imported[fn] = wi
		return wi
	}
	p := &pkgChecker{pass: pass, pairs: map[string]*pair{}, imported: read, factsOnly: true}
	ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	for n := range ins.PreorderSeq((*ast.FuncDecl)(nil)) {
		if fn, ok := pass.TypesInfo.Defs[n.(*ast.FuncDecl).Name].(*types.Func); ok && n.(*ast.FuncDecl).Body != nil {
			p.addDecl(fn, n.(*ast.FuncDecl))
		}
	}
	// Every function of another package the package names: called, or taken as a value
	// (release := t.UnlockAndCount), which releases when it is called.
	for _, o := range pass.TypesInfo.Uses {
		if fn, ok := o.(*types.Func); ok && fn.Pkg() != nil && fn.Pkg() != pass.Pkg {
			read(fn.Origin())
		}
	}
	// The lock a function returns holding is what its body's check finds (holdOf), so it
	// takes a checker of the whole analysis, configured as the default Analyzer: a
	// configured pair is the checking package's.
	var holds *pkgChecker
	for fn := range p.decls {
		if !fn.Exported() {
			continue // a fact on it would not leave the package
		}
		f := factOf(p.wrapper(fn))
		if at := p.tupleHolds(fn); at != nil {
			if f == nil {
				f = &releasesFact{}
			}
			f.HoldsAt = at
		}
		if mayHold(pass.TypesInfo, p.decls[fn]) || p.mayHoldByChain(p.decls[fn]) {
			if holds == nil {
				holds, _ = newPkgChecker(pass, &config{}, pass.ResultOf[ctrlflow.Analyzer].(*ctrlflow.CFGs), read)
			}
			for _, h := range holds.holdOf(fn) {
				if f == nil {
					f = &releasesFact{}
				}
				f.Holds = append(f.Holds, heldLock{Param: h.param, Path: h.path, Verb: h.verb.verb, Releases: h.verb.releases, RelVerbs: h.verb.relVerbs})
			}
		}
		if f != nil {
			pass.ExportObjectFact(fn, f)
		}
	}
	return imported, nil
}
