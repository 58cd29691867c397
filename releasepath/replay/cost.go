package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"syscall"
	"time"
)

// A cost is go vet -vettool=releasepath against plain go vet on one code base's packages.
type cost struct {
	name                 string
	vet, tool, noop, ssa []time.Duration // user+system CPU of each round
}

// measureCost runs plain go vet, go vet -vettool, go vet with the no-op tool
// (replay/internal/noopvet, the floor of any vet tool: it parses and type-checks every
// package again) and with the SSA no-op tool (replay/internal/ssavet, the floor of a vet tool
// on go/ssa: it builds every package's SSA too) on the same packages, rounds times each,
// interleaved. Each run passes a flag value no earlier run passed (a printf wrapper that does
// not exist; a pair of functions that do not exist), so that neither is answered from go vet's
// action cache: both vet every package and, for their facts, every dependency, as a first
// go vet after a change does. One unmeasured plain go vet comes first, so that the build cache
// holds the dependencies' export data for both.
func (r *runner) measureCost(ctx context.Context, dir string, patterns []string, rounds int, tag string) (cost, error) {
	var c cost
	nonce := func(i int) string { return fmt.Sprintf("%s%d%d", tag, time.Now().UnixNano(), i) }
	if _, err := r.cpu(ctx, dir, append([]string{"vet", "-printf.funcs=replaywarm" + nonce(0)}, patterns...)); err != nil {
		return c, err
	}
	for i := range rounds {
		vet, err := r.cpu(ctx, dir, append([]string{"vet", "-printf.funcs=replaynop" + nonce(i)}, patterns...))
		if err != nil {
			return c, err
		}
		tool, err := r.cpu(ctx, dir, append([]string{"vet", "-vettool=" + r.bin,
			"-pairs=example.invalid/nop.Acq" + nonce(i) + "=example.invalid/nop.Rel"}, patterns...))
		if err != nil {
			return c, err
		}
		noop, err := r.cpu(ctx, dir, append([]string{"vet", "-vettool=" + r.noopVet, "-noopvet.nonce=" + nonce(i)}, patterns...))
		if err != nil {
			return c, err
		}
		ssa, err := r.cpu(ctx, dir, append([]string{"vet", "-vettool=" + r.ssaVet, "-ssavet.nonce=" + nonce(i)}, patterns...))
		if err != nil {
			return c, err
		}
		c.vet = append(c.vet, vet)
		c.tool = append(c.tool, tool)
		c.noop = append(c.noop, noop)
		c.ssa = append(c.ssa, ssa)
	}
	return c, nil
}

// cpu runs the go command and returns the user and system CPU of it and every process it
// waited for. Findings make go vet exit 1; only a run that could not start is an error.
func (r *runner) cpu(ctx context.Context, dir string, args []string) (time.Duration, error) {
	_, ps, err := r.run(ctx, dir, "go", args...)
	if ps == nil {
		return 0, fmt.Errorf("replay: %w", err)
	}
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, fmt.Errorf("replay: no resource usage for go %v", args)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

const costTableHeader = "| code base | plain `go vet`, CPU s (median) | `go vet -vettool=releasepath`, CPU s (median) | ratio | a no-op vet tool, CPU s (median) | its ratio, the floor | a no-op vet tool that builds SSA, CPU s (median) | its ratio, the floor on go/ssa |\n" +
	"|---|---:|---:|---:|---:|---:|---:|---:|\n"

func (c cost) row(w io.Writer) {
	v, t, n, a := median(c.vet), median(c.tool), median(c.noop), median(c.ssa)
	ratio := func(x time.Duration) string {
		if v == 0 {
			return "–"
		}
		return fmt.Sprintf("%.2f×", x.Seconds()/v.Seconds())
	}
	fmt.Fprintf(w, "| `%s` | %.1f | %.1f | %s | %.1f | %s | %.1f | %s |\n", c.name, v.Seconds(), t.Seconds(), ratio(t), n.Seconds(), ratio(n), a.Seconds(), ratio(a))
}

// A memory is the standalone command against the same analyzer under the x/tools
// single-analyzer driver, on one code base's packages: peak resident memory and CPU of each
// round.
type memory struct {
	name                string
	lean, loadAll       []int64 // peak RSS, bytes
	leanCPU, loadAllCPU []time.Duration
}

// measureMemory runs the standalone command and the loadall peer (replay/internal/loadall),
// rounds times each, interleaved, as the precision run does: -json -test=false on the
// packages.
func (r *runner) measureMemory(ctx context.Context, dir string, patterns []string, rounds int) (memory, error) {
	var m memory
	args := append([]string{"-json", "-test=false"}, patterns...)
	one := func(bin string) (int64, time.Duration, error) {
		_, ps, err := r.run(ctx, dir, bin, args...)
		if ps == nil {
			return 0, 0, fmt.Errorf("replay: %w", err)
		}
		ru, ok := ps.SysUsage().(*syscall.Rusage)
		if !ok {
			return 0, 0, fmt.Errorf("replay: no resource usage for %s", bin)
		}
		return ru.Maxrss * 1024, time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil // kilobytes on Linux
	}
	for range rounds {
		rss, cpu, err := one(r.bin)
		if err != nil {
			return m, err
		}
		m.lean, m.leanCPU = append(m.lean, rss), append(m.leanCPU, cpu)
		if rss, cpu, err = one(r.loadAll); err != nil {
			return m, err
		}
		m.loadAll, m.loadAllCPU = append(m.loadAll, rss), append(m.loadAllCPU, cpu)
	}
	return m, nil
}

const memoryTableHeader = "| code base | standalone command: peak RSS, CPU s (medians) | x/tools driver: peak RSS, CPU s (medians) | memory ratio | CPU ratio |\n" +
	"|---|---:|---:|---:|---:|\n"

func (m memory) row(w io.Writer) {
	l, a := medianInt(m.lean), medianInt(m.loadAll)
	lc, ac := median(m.leanCPU), median(m.loadAllCPU)
	fmt.Fprintf(w, "| `%s` | %s, %.1f | %s, %.1f | %.2f× | %.2f× |\n", m.name, mib(l), lc.Seconds(), mib(a), ac.Seconds(),
		float64(l)/float64(max(a, 1)), lc.Seconds()/max(ac.Seconds(), 1e-9))
}

func medianInt(xs []int64) int64 {
	ds := make([]time.Duration, len(xs))
	for i, x := range xs {
		ds[i] = time.Duration(x)
	}
	return int64(median(ds))
}
