package orphans_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/acquire"
	"github.com/safereconcile/safereconcile/orphans"
)

// TestNameWithInvalidUTF8KindIsRefused: a lease name whose kind, not only its id, is not valid
// UTF-8 is a name a record cannot hold. Run must report it and return an error wrapping
// ErrInvalidName, counting it like any other orphan, and record the other orphans of the
// reconcile; it must not panic.
func TestNameWithInvalidUTF8KindIsRefused(t *testing.T) {
	f := newFixture(t)
	obj := f.object("bad-kind")
	f.cloud.setFail(errCloud)
	var err error
	require.NotPanics(t, func() {
		err = f.tracker.Run(f.ctx(), obj, func(ctx context.Context, s *acquire.Scope) error {
			if err := f.acquireN(s, obj, "0"); err != nil {
				return err
			}
			_, err := acquire.Temporary(s, "addr\xffess/"+string(obj.UID)+"-1",
				func(context.Context) (string, error) { return "", nil },
				func(context.Context, string) error { return errCloud })
			return err
		})
	})
	require.ErrorIs(t, err, orphans.ErrInvalidName)
	recs := f.records(obj)
	assert.Contains(t, recs, string(obj.UID)+"-0", "the valid orphan is recorded")
	assert.NotContains(t, recs, string(obj.UID)+"-1", "the invalid name is never recorded")
}
