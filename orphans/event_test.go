package orphans_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/acquire"
	"github.com/safereconcile/safereconcile/orphans"
)

// TestEventsNameEveryOrphan lists, on a real API server, the Events that client-go's
// events.k8s.io broadcaster sent for a reconcile with three orphans, then for one with a new
// orphan while the first three fail again. An operator reading them sees every name.
func TestEventsNameEveryOrphan(t *testing.T) {
	f := newFixture(t)
	obj := f.object("three")
	f.cloud.setFail(errCloud)
	require.ErrorIs(t, f.tracker.Run(f.ctx(), obj, func(ctx context.Context, s *acquire.Scope) error {
		return f.acquireN(s, obj, "a", "b", "c")
	}), orphans.ErrRecorded)

	notes := func(want int) string {
		var all []string
		for _, e := range f.events("three", want) {
			all = append(all, e.Reason+": "+e.Note)
		}
		return strings.Join(all, "\n")
	}
	got := notes(1)
	for _, sfx := range []string{"a", "b", "c"} {
		assert.Contains(t, got, string(obj.UID)+"-"+sfx)
	}
	t.Logf("Events after a reconcile with 3 orphans:\n%s", got)

	require.ErrorIs(t, f.tracker.Run(f.ctx(), obj, func(ctx context.Context, s *acquire.Scope) error {
		return f.acquireN(s, obj, "d")
	}), orphans.ErrRecorded)
	got = notes(3)
	assert.Contains(t, got, string(obj.UID)+"-d", "a later orphan of the same reason and action is not folded away")
	assert.Contains(t, got, "failed again")
	t.Logf("Events after a second reconcile with 1 new orphan:\n%s", got)
}
