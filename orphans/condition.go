package orphans

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ConditionReleased is the type of the condition [Tracker.Condition] returns.
const ConditionReleased = "OrphansReleased"

// Condition returns the status condition that reports the orphans of obj, for
// [k8s.io/apimachinery/pkg/api/meta.SetStatusCondition] on the status of a kind the
// controller owns. Its type is [ConditionReleased], and it is
//
//   - True, reason [ReasonReleased], when nothing is recorded on obj or held in memory for it;
//   - False, reason [ReasonReleaseFailed], while orphans are, with a message that counts them
//     and names the first few;
//   - Unknown, reason [ReasonRecordInvalid], when obj's record cannot be read.
//
// The condition reads obj as it is (after [Tracker.Run], as Run left it) and makes no request.
// Its message depends only on what is recorded, so SetStatusCondition reports a change only
// when that changes. The annotation and the finalizer stay the durable record: the condition
// is for people and tools that read status.
func (t *Tracker) Condition(obj client.Object) metav1.Condition {
	c := metav1.Condition{Type: ConditionReleased, ObservedGeneration: obj.GetGeneration()}
	var recs []Record
	if value, ok := obj.GetAnnotations()[t.key]; ok {
		var err error
		if recs, err = decodeRecords(t.key, value); err != nil {
			c.Status, c.Reason = metav1.ConditionUnknown, ReasonRecordInvalid
			c.Message = truncateNote(err.Error())
			return c
		}
	}
	held := t.heldFor(obj.GetUID())
	if len(recs)+len(held) == 0 {
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, ReasonReleased, "No orphans recorded in "+t.key
		return c
	}
	c.Status, c.Reason = metav1.ConditionFalse, ReasonReleaseFailed
	var parts []string
	if len(recs) > 0 {
		parts = append(parts, fmt.Sprintf("Orphans recorded in %s and retried on every reconcile (%d): %s", t.key, len(recs), listNames(recordNames(recs))))
	}
	if len(held) > 0 {
		parts = append(parts, fmt.Sprintf("Orphans held in memory until the record has room (%d): %s", len(held), listNames(recordNames(held))))
	}
	c.Message = strings.Join(parts, "; ")
	return c
}

// heldFor returns the records held in memory for the object with uid.
func (t *Tracker) heldFor(uid types.UID) []Record {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.pending[uid])
}
