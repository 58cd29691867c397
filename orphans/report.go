package orphans

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/safereconcile/safereconcile/lease"
)

// maxListed is how many names or errors a note, a condition or an error text gives before
// "and N more".
const maxListed = 5

// maxNote is the longest note events.k8s.io accepts.
const maxNote = 1024

// ErrInvalidName is wrapped by the error [Tracker.Run] returns for an orphan whose lease name
// a record cannot hold exactly: a name that is not valid UTF-8 (an annotation is UTF-8, and
// the API server would store another name) or not "<kind>/<id>". Such an orphan is reported
// and counted like any other, but neither recorded nor retried: nothing would release the
// resource under its own name.
var ErrInvalidName = errors.New("orphans: lease name cannot be recorded")

// recordable returns nil when a record can hold the lease name name exactly, or an error
// wrapping ErrInvalidName that says why not.
func recordable(name string) error {
	if !utf8.ValidString(name) {
		return fmt.Errorf("%w: %q is not valid UTF-8", ErrInvalidName, name)
	}
	if _, _, ok := lease.SplitName(name); !ok {
		return fmt.Errorf("%w: %q is not \"<kind>/<id>\"", ErrInvalidName, name)
	}
	return nil
}

// A listError is several errors of one sort as one error: its text counts them and gives the
// first few, so that a reconcile with a thousand orphans neither returns nor logs a thousand
// error texts. [errors.Is] and [errors.As] reach every one.
type listError struct {
	what string // "3 releases failed"
	errs []error
}

func (e *listError) Error() string {
	var b strings.Builder
	b.WriteString("orphans: ")
	b.WriteString(e.what)
	b.WriteString(": ")
	for i, err := range e.errs[:min(len(e.errs), maxListed)] {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(truncate(strings.TrimPrefix(err.Error(), "orphans: ")))
	}
	if n := len(e.errs) - maxListed; n > 0 {
		fmt.Fprintf(&b, "; and %d more", n)
	}
	return b.String()
}

func (e *listError) Unwrap() []error { return e.errs }

// listErr returns errs as one listError, described as one or many, or nil when there are none.
func listErr(one, many string, errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return &listError{what: "1 " + one, errs: errs}
	}
	return &listError{what: fmt.Sprintf("%d %s", len(errs), many), errs: errs}
}

func orphanErrors(oes []*lease.OrphanError) []error {
	errs := make([]error, len(oes))
	for i, oe := range oes {
		errs[i] = oe
	}
	return errs
}

// listNames returns the first few of names, and how many more there are. A name that is not
// valid UTF-8 is quoted, so that the text is.
func listNames(names []string) string {
	var b strings.Builder
	for i, n := range names[:min(len(names), maxListed)] {
		if i > 0 {
			b.WriteString(", ")
		}
		if !utf8.ValidString(n) {
			n = fmt.Sprintf("%q", n)
		}
		b.WriteString(truncate(n))
	}
	if n := len(names) - maxListed; n > 0 {
		fmt.Fprintf(&b, " and %d more", n)
	}
	return b.String()
}

func recordNames(recs []Record) []string {
	names := make([]string, len(recs))
	for i, r := range recs {
		names[i] = r.Name
	}
	return names
}

// orphansNote returns an Event note that counts oes, names the first few, and gives the first
// error: what happened, then the names an operator looks for.
func orphansNote(what string, oes []*lease.OrphanError) string {
	names := make([]string, len(oes))
	for i, oe := range oes {
		names[i] = oe.Name
	}
	return truncateNote(fmt.Sprintf("%s (%d): %s. First error: %s", what, len(oes), listNames(names), oes[0].Err))
}

// truncateNote cuts note to what events.k8s.io accepts, at a character boundary.
func truncateNote(note string) string {
	if len(note) <= maxNote {
		return note
	}
	cut := maxNote - len("…")
	for cut > 0 && !utf8.RuneStart(note[cut]) {
		cut--
	}
	return note[:cut] + "…"
}

// reportRun records the Events of one run's releases and retries: at most one per outcome.
// It runs before the write, so that a process killed during the write has told the operator.
//
// client-go's events.k8s.io broadcaster folds Events with the same type, reason, action,
// regarding and related object into one series that keeps the first Event's note, so that a
// note per orphan would show one orphan and a count. Each outcome is therefore one Event that
// names its orphans, and its related object is obj at the resourceVersion the run read, which
// every write of the record changes: reports about one record fold into a series, reports
// about different records do not.
func (t *Tracker) reportRun(obj client.Object, r *run) {
	r.mu.Lock()
	orphans := r.orphans
	refused := len(r.refused)
	r.mu.Unlock()
	if len(orphans) > 0 {
		what := "Release failed; recorded in annotation " + t.key + " and retried on every reconcile"
		if refused > 0 {
			what = fmt.Sprintf("Release failed; %d of them not recorded, since their names are not valid \"<kind>/<id>\" UTF-8; the rest recorded in annotation %s and retried on every reconcile", refused, t.key)
		}
		t.event(obj, corev1.EventTypeWarning, ReasonReleaseFailed, ActionRelease, orphansNote(what, orphans))
	}
	if len(r.again) > 0 {
		t.event(obj, corev1.EventTypeWarning, ReasonReleaseFailed, ActionRetryRelease, orphansNote(
			"Release of recorded orphans failed again; they stay recorded", r.again))
	}
	if len(r.released) > 0 {
		t.event(obj, corev1.EventTypeNormal, ReasonReleased, ActionRetryRelease, truncateNote(fmt.Sprintf(
			"Released recorded orphans (%d): %s", len(r.released), listNames(recordNames(r.released)))))
	}
	if len(r.notOurs) > 0 {
		t.event(obj, corev1.EventTypeWarning, ReasonRecordInvalid, ActionRetryRelease, truncateNote(fmt.Sprintf(
			"Recorded orphans that this controller does not release for this object (%d): %s; remove them from %s once they are gone",
			len(r.notOurs), listNames(recordNames(r.notOurs)), t.key)))
	}
}

// reportHeld records the Event of the orphans held in memory after a write.
func (t *Tracker) reportHeld(obj client.Object, held []Record, werr error) {
	if len(held) > 0 {
		why := "the record is at its budget"
		if werr != nil {
			why = "the write failed: " + truncate(werr.Error())
		}
		t.event(obj, corev1.EventTypeWarning, ReasonNotRecorded, ActionRecord, truncateNote(fmt.Sprintf(
			"Orphans not recorded on the object, since %s (%d): %s; this controller process holds them in memory and records them as room allows",
			why, len(held), listNames(recordNames(held)))))
	}
}

// event records one Event on obj, related to obj's record at obj's resourceVersion.
func (t *Tracker) event(obj client.Object, eventtype, reason, action, note string) {
	var related runtime.Object
	if gvk, err := t.client.GroupVersionKindFor(obj); err == nil {
		related = &corev1.ObjectReference{
			APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind,
			Namespace: obj.GetNamespace(), Name: obj.GetName(), UID: obj.GetUID(),
			ResourceVersion: obj.GetResourceVersion(),
			FieldPath:       "metadata.annotations['" + t.key + "']",
		}
	}
	// The note is already rendered: an argument, never the format.
	t.recorder.Eventf(obj, related, eventtype, reason, action, "%s", note)
}
