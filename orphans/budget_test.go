package orphans_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/safereconcile/safereconcile/orphans"
)

// errCloud600 is a realistic cloud error: a status line and a JSON body, 600 bytes.
var errCloud600 = errors.New("googleapi: Error 503: " + strings.Repeat("backend unavailable, retry later; ", 17)[:578])

// TestRecordStaysWithinItsBudget orphans hundreds of resources with 600-byte errors in one
// reconcile, on a real API server. The record takes at most RecordBudget, the finalizer holds
// the object, what does not fit is counted and named and returned, another writer still has
// the rest of the object's annotations, and the orphans are all released as the cloud recovers.
func TestRecordStaysWithinItsBudget(t *testing.T) {
	require.Len(t, errCloud600.Error(), 600)
	for _, n := range []int{720, 800, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			f := newFixture(t)
			obj := f.object("big")
			labels := map[string]string{"controller": f.name, "kind": "address"}
			f.cloud.setFail(errCloud600)

			err := f.reconcile(obj, n)
			require.ErrorIs(t, err, orphans.ErrRecorded)
			assert.Less(t, len(err.Error()), 4<<10, "Run's error text is bounded")
			assert.Contains(t, err.Error(), fmt.Sprintf("%d releases failed", n))

			value := f.records(obj)
			assert.LessOrEqual(t, len(value), orphans.RecordBudget)
			assert.True(t, controllerutil.ContainsFinalizer(obj, f.tracker.Key()))
			var recs []orphans.Record
			require.NoError(t, json.Unmarshal([]byte(value), &recs))
			require.NotEmpty(t, recs)
			unrecorded := n - len(recs)
			assert.Positive(t, unrecorded)
			assert.Equal(t, float64(unrecorded), metric(t, "safereconcile_orphans_unrecorded", labels), "held in memory, and counted")
			assert.Equal(t, float64(len(recs)), metric(t, "safereconcile_orphans_recorded", labels))
			assert.Contains(t, err.Error(), fmt.Sprintf("%d more held in memory", unrecorded))
			var notRecorded []string
			for _, e := range f.events("big", 2) {
				if e.Reason == orphans.ReasonNotRecorded {
					notRecorded = append(notRecorded, e.Note)
				}
			}
			require.Len(t, notRecorded, 1)
			assert.Contains(t, notRecorded[0], fmt.Sprintf("(%d)", unrecorded))
			t.Logf("%d orphans with 600-byte errors: %d recorded in %d bytes, %d held in memory; Run's error %d bytes",
				n, len(recs), len(value), unrecorded, len(err.Error()))

			// Another writer keeps the rest of the 256 KiB the API server allows.
			obj.Annotations["example.com/other-writer"] = strings.Repeat("y", 256<<10-orphans.RecordBudget-1<<10)
			require.NoError(t, f.c.Update(context.Background(), obj))

			// The cloud recovers: each reconcile releases what is recorded and records what
			// waits in memory, until nothing is left.
			f.cloud.setFail(nil)
			for i := 0; ; i++ {
				require.Less(t, i, n/len(recs)+3, "converges")
				err := f.reconcile(obj, 0)
				if err == nil {
					break
				}
				require.ErrorIs(t, err, orphans.ErrRecorded)
			}
			held, _ := f.cloud.state()
			assert.Empty(t, held)
			assert.Empty(t, f.records(obj))
			assert.Zero(t, metric(t, "safereconcile_orphans_unrecorded", labels))
		})
	}
}
