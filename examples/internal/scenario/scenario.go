package scenario

import (
	"context"
	"io"
)

// A Scenario reproduces one bug in its old shape and in its fixed shape.
type Scenario struct {
	// Name is a short identifier, e.g. "gceaddress".
	Name string
	// Run plays the scenario, writes its narrative to w, and returns the summary row.
	// It must be deterministic, need no root and finish in well under a second or two.
	Run func(ctx context.Context, w io.Writer) (Row, error)
}

// A Row is one line of the summary table.
type Row struct {
	Bug   string // the kubernetes issue and a few words, e.g. "#97740 ILB address reservation"
	Old   string // what the old shape did, briefly, e.g. "5 of 11 failed syncs leaked the IP"
	Fixed string // what the fixed shape did, e.g. "0 of 11; failed release reported"
	// Reproduced reports whether the old shape showed the bug and the fixed shape did not.
	Reproduced bool
}
