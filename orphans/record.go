package orphans

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/safereconcile/safereconcile/lease"
)

// KeyPrefix starts the key a tracker records orphans under; [Key] appends the controller name.
const KeyPrefix = "orphans.safereconcile.io/"

// Key returns the key under which the tracker of the controller called controller records its
// orphans on an object, "orphans.safereconcile.io/<controller>". It is both:
//
//   - the annotation that holds the record: a JSON array of [Record], sorted by name, such as
//     [{"name":"address/k8s-ilb-a1b2","error":"googleapi: 503","since":"2026-01-02T15:04:05Z"}].
//     A person may read it, and may remove an entry by hand once the resource is known to be
//     gone; an object without it has no orphans recorded by that controller;
//   - the finalizer that holds the object's deletion while anything is recorded, added in the
//     write that records the first orphan (unless the deletion has already begun: the API
//     server refuses new finalizers then) and removed in the one that removes the last.
//
// Each controller has its own key, so that two controllers of one object never read, retry or
// block on each other's records.
func Key(controller string) string { return KeyPrefix + controller }

// maxErrorLen bounds the error text kept in a record, and each error text of a note or of
// Run's error.
const maxErrorLen = 256

// RecordBudget is the most bytes a tracker's record (the value of its annotation [Key]) takes
// on one object: an eighth of the limit the API server puts on all of an object's annotations
// together, so that the object's other writers keep the rest. A record that is at its budget
// takes no new orphan; see [Tracker.Run] for where those go.
const RecordBudget = 32 << 10

// A Record is one orphan recorded on an object: a resource whose release failed and that a
// later reconcile must release by name.
type Record struct {
	// Name is the lease's name, "<kind>/<id>" (see lease.New): it identifies the resource.
	Name string `json:"name"`
	// Error is the failure that orphaned it, truncated to a few hundred bytes so that the
	// record's budget holds many orphans.
	Error string `json:"error,omitempty"`
	// Since is when the orphan was first recorded, in UTC, to the second.
	Since time.Time `json:"since"`
}

// decodeRecords parses an annotation value. Anything that is not a JSON array of records with
// "<kind>/<id>" names, each at most once, is an error: a record the tracker cannot read with
// certainty is left for a person to repair, never rewritten or released.
func decodeRecords(key, value string) ([]Record, error) {
	dec := json.NewDecoder(strings.NewReader(value))
	dec.DisallowUnknownFields()
	var recs []Record
	if err := dec.Decode(&recs); err != nil {
		return nil, fmt.Errorf("orphans: annotation %s is not a JSON array of records: %w", key, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("orphans: annotation %s has data after its JSON array", key)
	}
	if recs == nil {
		return nil, fmt.Errorf("orphans: annotation %s is not a JSON array of records: null", key)
	}
	seen := make(map[string]bool, len(recs))
	for _, r := range recs {
		if _, _, ok := lease.SplitName(r.Name); !ok {
			return nil, fmt.Errorf("orphans: annotation %s: record name %q is not \"<kind>/<id>\"", key, r.Name)
		}
		if seen[r.Name] {
			return nil, fmt.Errorf("orphans: annotation %s: %s is recorded twice", key, r.Name)
		}
		seen[r.Name] = true
	}
	sortRecords(recs)
	return recs, nil
}

// encodeRecords returns the annotation value for recs, which must be sorted.
func encodeRecords(recs []Record) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(recs); err != nil {
		// Strings and times always encode; this cannot happen.
		panic(fmt.Sprintf("orphans: encode records: %v", err))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func sortRecords(recs []Record) {
	slices.SortFunc(recs, func(a, b Record) int { return strings.Compare(a.Name, b.Name) })
}

// newRecord returns the record of a release of name that failed with err at now.
func newRecord(name string, err error, now time.Time) Record {
	return Record{Name: name, Error: truncate(err.Error()), Since: now.UTC().Truncate(time.Second)}
}

// truncate bounds an error's text for a record or an Event note (events.k8s.io allows 1 KiB),
// cutting at a character boundary.
func truncate(msg string) string {
	if len(msg) <= maxErrorLen {
		return msg
	}
	cut := maxErrorLen
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + "…"
}

// merge returns cur without the records in released (matched exactly, so that an orphan of
// the same name recorded again by someone else meanwhile stays) and with the records of added
// whose names are not already there. cur is not modified; the result is sorted.
func merge(cur, released, added []Record) []Record {
	out := make([]Record, 0, len(cur)+len(added))
	for _, r := range cur {
		if !slices.ContainsFunc(released, func(x Record) bool { return sameRecord(x, r) }) {
			out = append(out, r)
		}
	}
	for _, r := range added {
		if !slices.ContainsFunc(out, func(x Record) bool { return x.Name == r.Name }) {
			out = append(out, r)
		}
	}
	sortRecords(out)
	return out
}

// fit returns cur without the records in released, plus those of added that fit in budget
// bytes of encoded record, in name order, and the rest of added, which did not fit. Records
// already in cur are kept whatever their size: they are the durable ones. An empty record
// takes its first orphan whatever its size, so that something always holds the finalizer.
func fit(cur, released, added []Record, budget int) (next, held []Record) {
	next = merge(cur, released, nil)
	size := len(encodeRecords(next))
	added = merge(nil, nil, added) // sorted, each name once
	for _, r := range added {
		if slices.ContainsFunc(next, func(x Record) bool { return x.Name == r.Name }) {
			continue // already recorded
		}
		n := len(encodeRecords([]Record{r})) - 1 // without one bracket, with one comma
		if len(next) > 0 && size+n > budget {
			held = append(held, r)
			continue
		}
		next = append(next, r)
		size += n
	}
	sortRecords(next)
	return next, held
}

func sameRecord(a, b Record) bool {
	return a.Name == b.Name && a.Error == b.Error && a.Since.Equal(b.Since)
}

func sameRecords(a, b []Record) bool { return slices.EqualFunc(a, b, sameRecord) }
