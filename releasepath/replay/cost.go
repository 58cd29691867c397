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
	name       string
	vet, tool  []time.Duration // user+system CPU of each round
	standalone int64           // the standalone command's peak RSS, from the precision run
}

// measureCost runs plain go vet and go vet -vettool on the same packages, rounds times each,
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
		c.vet = append(c.vet, vet)
		c.tool = append(c.tool, tool)
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

const costTableHeader = "| code base | plain `go vet`, CPU s (median) | `go vet -vettool=releasepath`, CPU s (median) | ratio | standalone peak RSS |\n" +
	"|---|---:|---:|---:|---:|\n"

func (c cost) row(w io.Writer) {
	v, t := median(c.vet), median(c.tool)
	ratio := "–"
	if v > 0 {
		ratio = fmt.Sprintf("%.2f×", t.Seconds()/v.Seconds())
	}
	fmt.Fprintf(w, "| `%s` | %.1f | %.1f | %s | %s |\n", c.name, v.Seconds(), t.Seconds(), ratio, mib(c.standalone))
}
