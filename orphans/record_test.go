package orphans

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)

func TestDecodeRecords(t *testing.T) {
	tests := []struct {
		name    string
		give    string
		want    []Record
		wantErr string
	}{
		{name: "one", give: `[{"name":"address/a","error":"503","since":"2026-01-02T15:04:05Z"}]`,
			want: []Record{{Name: "address/a", Error: "503", Since: t0}}},
		{name: "sorted on read", give: `[{"name":"b/2","since":"2026-01-02T15:04:05Z"},{"name":"a/1","since":"2026-01-02T15:04:05Z"}]`,
			want: []Record{{Name: "a/1", Since: t0}, {Name: "b/2", Since: t0}}},
		{name: "empty array", give: `[]`, want: []Record{}},
		{name: "not json", give: `address/a`, wantErr: "not a JSON array"},
		{name: "null", give: `null`, wantErr: "null"},
		{name: "object", give: `{"name":"address/a"}`, wantErr: "not a JSON array"},
		{name: "unknown field", give: `[{"name":"address/a","owner":"me"}]`, wantErr: "unknown field"},
		{name: "trailing data", give: `[] []`, wantErr: "after its JSON array"},
		{name: "no kind", give: `[{"name":"k8s-ilb-a"}]`, wantErr: `not "<kind>/<id>"`},
		{name: "empty id", give: `[{"name":"address/"}]`, wantErr: `not "<kind>/<id>"`},
		{name: "twice", give: `[{"name":"address/a"},{"name":"address/a"}]`, wantErr: "recorded twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeRecords("k", tt.give)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.True(t, strings.HasPrefix(err.Error(), "orphans: "), err.Error())
				return
			}
			require.NoError(t, err)
			assert.Empty(t, cmp.Diff(tt.want, got))
		})
	}
}

func TestMerge(t *testing.T) {
	a := Record{Name: "address/a", Error: "x", Since: t0}
	a2 := Record{Name: "address/a", Error: "y", Since: t0.Add(time.Minute)} // recorded again by another writer
	b := Record{Name: "address/b", Since: t0}
	tests := []struct {
		name                string
		cur, released, give []Record
		want                []Record
	}{
		{name: "nothing", want: []Record{}},
		{name: "add", give: []Record{b, a}, want: []Record{a, b}},
		{name: "release", cur: []Record{a, b}, released: []Record{a}, want: []Record{b}},
		{name: "released exactly, not by name", cur: []Record{a2, b}, released: []Record{a}, want: []Record{a2, b}},
		{name: "add what is there keeps the first", cur: []Record{a}, give: []Record{a2}, want: []Record{a}},
		{name: "release and fail again", cur: []Record{a}, released: []Record{a}, give: []Record{a2}, want: []Record{a2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Empty(t, cmp.Diff(tt.want, merge(tt.cur, tt.released, tt.give)))
		})
	}
}

func TestNewRecordTruncates(t *testing.T) {
	r := newRecord("address/a", errors.New(strings.Repeat("é", 300)), t0.Add(300*time.Millisecond))
	assert.LessOrEqual(t, len(r.Error), maxErrorLen+len("…"))
	assert.True(t, strings.HasSuffix(r.Error, "…"))
	assert.Equal(t, t0, r.Since)
	_, err := decodeRecords("k", encodeRecords([]Record{r}))
	require.NoError(t, err)
}

// FuzzDecodeRecords checks that whatever decodes also encodes and decodes to the same records.
func FuzzDecodeRecords(f *testing.F) {
	f.Add(`[{"name":"address/a","error":"503","since":"2026-01-02T15:04:05Z"}]`)
	f.Add(`[{"name":"a/1"},{"name":"b/<x>&"}]`)
	f.Add(`[]`)
	f.Add(`nope`)
	f.Fuzz(func(t *testing.T, s string) {
		recs, err := decodeRecords("k", s)
		if err != nil || len(recs) == 0 {
			return
		}
		again, err := decodeRecords("k", encodeRecords(recs))
		require.NoError(t, err)
		assert.True(t, sameRecords(recs, again), cmp.Diff(recs, again))
	})
}

func TestFit(t *testing.T) {
	rec := func(name string) Record { return Record{Name: name, Error: strings.Repeat("x", 100), Since: t0} }
	a, b, c, d := rec("address/a"), rec("address/b"), rec("address/c"), rec("address/d")
	one := len(encodeRecords([]Record{a})) // every record here has the same size
	tests := []struct {
		name                string
		cur, released, give []Record
		budget              int
		want, wantHeld      []Record
		within              bool // the result is within the budget
	}{
		{name: "all fit", give: []Record{b, a}, budget: 10 * one, want: []Record{a, b}, within: true},
		{name: "in name order until full", give: []Record{c, a, b}, budget: 2*one + 1, want: []Record{a, b}, wantHeld: []Record{c}, within: true},
		{name: "recorded ones stay, whatever the budget", cur: []Record{a, b}, give: []Record{c}, budget: one, want: []Record{a, b}, wantHeld: []Record{c}},
		{name: "a release makes room", cur: []Record{a, b}, released: []Record{a}, give: []Record{c, d}, budget: 2*one + 1, want: []Record{b, c}, wantHeld: []Record{d}, within: true},
		{name: "an empty record takes one whatever its size", give: []Record{a, b}, budget: 1, want: []Record{a}, wantHeld: []Record{b}},
		{name: "already recorded is not held", cur: []Record{a}, give: []Record{a}, budget: one, want: []Record{a}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, held := fit(tt.cur, tt.released, tt.give, tt.budget)
			assert.Empty(t, cmp.Diff(tt.want, got))
			assert.Empty(t, cmp.Diff(tt.wantHeld, held))
			if tt.within {
				assert.LessOrEqual(t, len(encodeRecords(got)), tt.budget)
			}
		})
	}
}

func TestListErrorTextIsBounded(t *testing.T) {
	var errs []error
	for i := range 1000 {
		errs = append(errs, fmt.Errorf("address/a%d: %s", i, strings.Repeat("x", 600)))
	}
	err := listErr("release failed", "releases failed", errs)
	assert.True(t, strings.HasPrefix(err.Error(), "orphans: 1000 releases failed: address/a0: "), err.Error())
	assert.True(t, strings.HasSuffix(err.Error(), "; and 995 more"), err.Error())
	assert.Less(t, len(err.Error()), maxListed*(maxErrorLen+10)+100)
	for _, e := range []error{errs[0], errs[999]} {
		assert.ErrorIs(t, err, e)
	}
	assert.Equal(t, "orphans: 1 release failed: address/a0: x", listErr("release failed", "releases failed", []error{errors.New("address/a0: x")}).Error())
}
