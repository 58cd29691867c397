// Command examples runs every reproduction in this module, old shape and fixed shape, and
// ends with one summary table: a row per bug.
//
//	go run ./examples
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/safereconcile/safereconcile/examples/gceaddress/ilb"
	"github.com/safereconcile/safereconcile/examples/internal/scenario"
	"github.com/safereconcile/safereconcile/examples/nodeport/proxy"
	"github.com/safereconcile/safereconcile/examples/releasecheck"
	"github.com/safereconcile/safereconcile/examples/servicequota/admission"
)

// scenarios lists every reproduction; an example package adds its row with one line here.
var scenarios = []scenario.Scenario{
	ilb.Scenario,          // kubernetes#97740: the leaked address reservation
	releasecheck.Scenario, // kubernetes#97740 again: what releasepath reports on both shapes
	admission.Scenario,    // kubernetes#97437: the zero entry that failed a quota check
	proxy.Scenario,        // kubernetes#98305: the UDP NodePort blackholed by a stale conntrack entry
}

func main() {
	if err := run(context.Background(), os.Stdout, scenarios); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// run plays each scenario in order, then prints the summary table. It returns an error when a
// scenario fails to run or does not reproduce its bug, so a rotten reproduction is loud.
func run(ctx context.Context, w io.Writer, all []scenario.Scenario) error {
	rows := make([]scenario.Row, 0, len(all))
	for _, sc := range all {
		fmt.Fprintf(w, "=== %s\n", sc.Name)
		row, err := sc.Run(ctx, w)
		if err != nil {
			return fmt.Errorf("examples: %s: %w", sc.Name, err)
		}
		rows = append(rows, row)
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "=== summary")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "BUG\tOLD SHAPE\tFIXED SHAPE\tREPRODUCED")
	failed := 0
	for _, r := range rows {
		mark := "yes"
		if !r.Reproduced {
			mark = "NO"
			failed++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Bug, r.Old, r.Fixed, mark)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("examples: %d scenario(s) did not reproduce their bug", failed)
	}
	return nil
}
