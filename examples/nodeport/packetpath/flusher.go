package packetpath

import (
	"context"
	"fmt"

	"github.com/safereconcile/safereconcile/conntrackorder"
)

// A Flusher is a [conntrackorder.Flusher] that deletes entries from a [Node]'s table, so that a
// [conntrackorder.Syncer], or any code written against the interface, runs against the model.
//
// Like the library's real backends it refuses a plan with a filter that fails
// [conntrackorder.Filter.Validate], before deleting anything. A Flusher is not safe for
// concurrent use, since its Node is not.
type Flusher struct {
	node *Node
}

var _ conntrackorder.Flusher = (*Flusher)(nil)

// NewFlusher returns a Flusher that deletes entries from n. It panics if n is nil.
func NewFlusher(n *Node) *Flusher {
	if n == nil {
		panic("packetpath: NewFlusher with a nil Node")
	}
	return &Flusher{node: n}
}

// Flush deletes, in plan order, every entry that a filter of plan selects (see [Node.Delete]).
// It returns an error and deletes nothing when ctx is done or a filter is not valid; otherwise
// it applies the whole plan and returns nil, also when nothing matched.
func (f *Flusher) Flush(ctx context.Context, plan conntrackorder.Plan) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("packetpath: flush: %w", err)
	}
	for _, flt := range plan {
		if err := flt.Validate(); err != nil {
			return fmt.Errorf("packetpath: refusing filter %s: %w", flt, err)
		}
	}
	for _, flt := range plan {
		f.node.Delete(flt)
	}
	return nil
}
