package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A runner runs the go command and the analyzer in throwaway modules under work.
type runner struct {
	work    string // throwaway modules, outside the repository
	bin     string // the analyzer's standalone command
	loadAll string // the same analyzer under the x/tools driver, for -memory
	noopVet string // the vet tool that analyzes nothing, for -cost
	ssaVet  string // the vet tool that builds SSA and analyzes nothing, for -cost
	env     []string
	log     io.Writer
}

func newRunner(work, bin string, log io.Writer) *runner {
	env := os.Environ()
	// Every code base is built the same way, whatever the caller's environment: outside any
	// workspace, resolving its own go.mod, for linux/amd64, without C, on this Go.
	env = append(env, "GOWORK=off", "GOFLAGS=-mod=mod -buildvcs=false", "GOOS=linux", "GOARCH=amd64",
		"CGO_ENABLED=0", "GOTOOLCHAIN=local")
	return &runner{work: work, bin: bin, env: env, log: log}
}

// run runs a command in dir and returns its standard output; the error carries its standard
// error.
func (r *runner) run(ctx context.Context, dir string, name string, args ...string) ([]byte, *os.ProcessState, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = r.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 2000 {
			msg = msg[:2000] + " …"
		}
		err = fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, msg)
	}
	return stdout.Bytes(), cmd.ProcessState, err
}

// download fetches module@version into the module cache and returns its directory there.
func (r *runner) download(ctx context.Context, modver string) (string, error) {
	out, _, err := r.run(ctx, r.work, "go", "mod", "download", "-json", modver)
	if err != nil {
		return "", fmt.Errorf("replay: download %s: %w", modver, err)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil {
		return "", fmt.Errorf("replay: download %s: %w", modver, err)
	}
	if m.Error != "" || m.Dir == "" {
		return "", fmt.Errorf("replay: download %s: %s", modver, m.Error)
	}
	return m.Dir, nil
}

// prepare makes the throwaway module of a code base: a writable copy of the release, whose own
// go.mod and go.sum pin its dependencies. It is made once and reused.
func (r *runner) prepare(ctx context.Context, modver string) (string, error) {
	dir := filepath.Join(r.work, "corpus", strings.ReplaceAll(modver, "/", "_"))
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
		return dir, nil
	}
	src, err := r.download(ctx, modver)
	if err != nil {
		return "", err
	}
	tmp := dir + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return "", fmt.Errorf("replay: %w", err)
	}
	if err := copyTree(src, tmp); err != nil {
		return "", fmt.Errorf("replay: copy %s: %w", modver, err)
	}
	if err := r.dropMissingReplaces(ctx, tmp); err != nil {
		return "", fmt.Errorf("replay: %s: %w", modver, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", fmt.Errorf("replay: %w", err)
	}
	return dir, nil
}

// dropMissingReplaces drops the replace directives of dir's go.mod that point to a directory
// the release does not hold: a nested module of the same repository (stargz-snapshotter's
// ./estargz), which the module zip leaves out. The module then requires the published
// version its go.mod names, as every importer of the release builds it, since replace
// directives apply only in the main module.
func (r *runner) dropMissingReplaces(ctx context.Context, dir string) error {
	out, _, err := r.run(ctx, dir, "go", "mod", "edit", "-json")
	if err != nil {
		return err
	}
	var m struct {
		Replace []struct {
			Old, New struct{ Path, Version string }
		}
	}
	if err := json.Unmarshal(out, &m); err != nil {
		return err
	}
	for _, rep := range m.Replace {
		if rep.New.Version != "" || !(strings.HasPrefix(rep.New.Path, "./") || strings.HasPrefix(rep.New.Path, "../")) {
			continue // a module of the proxy, or a directory path of another form
		}
		if _, err := os.Stat(filepath.Join(dir, rep.New.Path, "go.mod")); err == nil {
			continue
		}
		old := rep.Old.Path
		if rep.Old.Version != "" {
			old += "@" + rep.Old.Version
		}
		if _, _, err := r.run(ctx, dir, "go", "mod", "edit", "-dropreplace="+old); err != nil {
			return err
		}
	}
	return nil
}

// prepareDep makes a throwaway module that requires module@version and imports pkg, for the
// recall cases: the package is analysed by its import path, at the versions the module's own
// go.mod asks for.
func (r *runner) prepareDep(ctx context.Context, module, version, pkg string) (string, error) {
	dir := filepath.Join(r.work, "recall", strings.ReplaceAll(module+"@"+version, "/", "_"))
	if _, err := os.Stat(filepath.Join(dir, "go.sum")); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("replay: %w", err)
	}
	gomod := fmt.Sprintf("module replay.invalid/recall\n\ngo 1.24\n\nrequire %s %s\n", module, version)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		return "", fmt.Errorf("replay: %w", err)
	}
	src := fmt.Sprintf("package recall\n\nimport _ %q\n", pkg)
	if err := os.WriteFile(filepath.Join(dir, "recall.go"), []byte(src), 0o644); err != nil {
		return "", fmt.Errorf("replay: %w", err)
	}
	if _, _, err := r.run(ctx, dir, "go", "mod", "tidy"); err != nil {
		return "", fmt.Errorf("replay: %s@%s: %w", module, version, err)
	}
	return dir, nil
}

func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
}

// expand lists the packages of patterns, less those of the patterns written with a leading
// "-" (-./pkg/issuer/venafi/...: a package whose dependencies the proxy does not serve).
func (r *runner) expand(ctx context.Context, dir string, patterns []string) ([]string, error) {
	var in, out []string
	for _, p := range patterns {
		if q, ok := strings.CutPrefix(p, "-"); ok {
			out = append(out, q)
		} else {
			in = append(in, p)
		}
	}
	list := func(ps []string) ([]string, error) {
		if len(ps) == 0 {
			return nil, nil
		}
		b, _, err := r.run(ctx, dir, "go", append([]string{"list", "-e", "-f", "{{.ImportPath}}"}, ps...)...)
		if err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
		return strings.Fields(string(b)), nil
	}
	pkgs, err := list(in)
	if err != nil {
		return nil, err
	}
	drop, err := list(out)
	if err != nil {
		return nil, err
	}
	var keep []string
	for _, p := range pkgs {
		if !slices.Contains(drop, p) {
			keep = append(keep, p)
		}
	}
	if len(keep) == 0 {
		return nil, fmt.Errorf("replay: %s: no package matches %q", dir, patterns)
	}
	return keep, nil
}

// count returns the non-test, non-generated lines of pkgs, and fails when one of them does not
// load.
func (r *runner) count(ctx context.Context, dir string, pkgs []string) (int, error) {
	args := append([]string{"list", "-e", "-json=ImportPath,Dir,GoFiles,CgoFiles,Error,DepsErrors"}, pkgs...)
	out, _, err := r.run(ctx, dir, "go", args...)
	if err != nil {
		return 0, fmt.Errorf("replay: %w", err)
	}
	var problems []string
	lines := 0
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p struct {
			ImportPath, Dir   string
			GoFiles, CgoFiles []string
			Error             *struct{ Err string }
			DepsErrors        []*struct{ Err string }
		}
		if err := dec.Decode(&p); err != nil {
			return 0, fmt.Errorf("replay: go list: %w", err)
		}
		if p.Error != nil {
			problems = append(problems, p.ImportPath+": "+p.Error.Err)
		}
		for _, e := range p.DepsErrors {
			problems = append(problems, p.ImportPath+": "+e.Err)
		}
		for _, f := range append(p.GoFiles, p.CgoFiles...) {
			n, err := countFile(filepath.Join(p.Dir, f))
			if err != nil {
				return 0, fmt.Errorf("replay: %w", err)
			}
			lines += n
		}
	}
	if len(problems) > 0 {
		if len(problems) > 5 {
			problems = append(problems[:5], fmt.Sprintf("and %d more", len(problems)-5))
		}
		return 0, fmt.Errorf("replay: %s does not load:\n\t%s", dir, strings.Join(problems, "\n\t"))
	}
	return lines, nil
}

// countFile returns the number of lines of a Go file, 0 for a generated one.
func countFile(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	f, err := parser.ParseFile(token.NewFileSet(), path, b, parser.PackageClauseOnly|parser.ParseComments)
	if err == nil && ast.IsGenerated(f) {
		return 0, nil
	}
	n := bytes.Count(b, []byte("\n"))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n, nil
}

// A finding is one diagnostic of the analyzer, normalised.
type finding struct {
	modver  string
	path    string // relative to the module's root
	line    int
	acqName string
	acqLine int
	release string
}

func (f finding) pos() string { return fmt.Sprintf("%s:%d", f.path, f.line) }
func (f finding) acq() string {
	return fmt.Sprintf("%s:%d → %s", f.acqName, f.acqLine, f.release)
}
func (f finding) key() string { return f.modver + "\t" + f.pos() + "\t" + acqKey(f.acq()) }

// message is the analyzer's message for a leaking return: "return may skip addrMgr.ReleaseAddress
// (HoldAddress at line 164)", or "end of function may skip …".
var message = regexp.MustCompile(`^(?:return|end of function) may skip (.+) \((.+) at line (\d+)\)$`)

// A measurement is what one run of the analyzer on a code base gave.
type measurement struct {
	findings []finding
	wall     time.Duration
	maxRSS   int64 // bytes
}

// analyse runs the standalone command on patterns in dir (the root of the module that holds the
// code) and normalises its findings to modver and paths relative to root.
func (r *runner) analyse(ctx context.Context, dir, root, modver string, patterns []string) (measurement, error) {
	args := append([]string{"-json", "-test=false"}, patterns...)
	start := time.Now()
	out, ps, err := r.run(ctx, dir, r.bin, args...)
	m := measurement{wall: time.Since(start)}
	if ps != nil {
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			m.maxRSS = ru.Maxrss * 1024 // kilobytes on Linux
		}
	}
	if err != nil && len(out) == 0 {
		return m, fmt.Errorf("replay: %s: %w", modver, err)
	}
	fs, err := parseFindings(out, root, modver)
	if err != nil {
		return m, err
	}
	m.findings = fs
	return m, nil
}

// parseFindings reads the -json output of the standalone command: package → analyzer →
// diagnostics, or an error object for a package that did not type-check.
func parseFindings(out []byte, root, modver string) ([]finding, error) {
	var fs []finding
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var tree map[string]map[string]json.RawMessage
		if err := dec.Decode(&tree); err != nil {
			return nil, fmt.Errorf("replay: %s: analyzer output: %w", modver, err)
		}
		for pkg, byAnalyzer := range tree {
			raw, ok := byAnalyzer["releasepath"]
			if !ok {
				continue
			}
			var failed struct{ Error string }
			if json.Unmarshal(raw, &failed) == nil && failed.Error != "" {
				return nil, fmt.Errorf("replay: %s: package %s: %s", modver, pkg, failed.Error)
			}
			var ds []struct{ Posn, Message string }
			if err := json.Unmarshal(raw, &ds); err != nil {
				return nil, fmt.Errorf("replay: %s: package %s: %w", modver, pkg, err)
			}
			for _, d := range ds {
				mm := message.FindStringSubmatch(d.Message)
				if mm == nil {
					continue // not a leak: a reasonless directive, say
				}
				file, line, err := splitPosn(d.Posn)
				if err != nil {
					return nil, fmt.Errorf("replay: %s: %w", modver, err)
				}
				rel, err := filepath.Rel(root, file)
				if err != nil || strings.HasPrefix(rel, "..") {
					return nil, fmt.Errorf("replay: %s: finding outside the module: %s", modver, d.Posn)
				}
				acqLine, _ := strconv.Atoi(mm[3]) // the pattern's \d+
				fs = append(fs, finding{modver: modver, path: filepath.ToSlash(rel), line: line,
					acqName: mm[2], acqLine: acqLine, release: mm[1]})
			}
		}
	}
	sort.Slice(fs, func(i, j int) bool {
		if fs[i].path != fs[j].path {
			return fs[i].path < fs[j].path
		}
		if fs[i].line != fs[j].line {
			return fs[i].line < fs[j].line
		}
		return fs[i].acqLine < fs[j].acqLine
	})
	return fs, nil
}

// splitPosn splits "file.go:line:col".
func splitPosn(p string) (string, int, error) {
	file, rest, ok := strings.Cut(p, ".go:")
	l, _, _ := strings.Cut(rest, ":")
	n, err := strconv.Atoi(l)
	if !ok || err != nil || n <= 0 {
		return "", 0, errors.New("position " + p + " is not file.go:line:col")
	}
	return file + ".go", n, nil
}
