package quota_test

import (
	"fmt"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/quota"
)

// resourceName, quantity and resourceList stand in for corev1.ResourceName, resource.Quantity
// and corev1.ResourceList, which this module may not import: a string key and a 40-byte value
// with two representations whose IsZero has a pointer receiver.
type (
	resourceName string
	resourceList map[resourceName]quantity
)

type quantity struct {
	value  int64    // the amount is value×10^scale, unless big is set
	scale  int32    // decimal exponent of value
	big    *big.Int // the amount, when it does not fit in value
	format string   // how String prints it; not part of the amount
}

// IsZero reports whether the amount is zero. Its pointer receiver is the point: NonZero must
// infer P = *quantity to call it.
func (q *quantity) IsZero() bool {
	if q.big != nil {
		return q.big.Sign() == 0
	}
	return q.value == 0
}

// Equal reports whether q and o hold the same representation; cmp.Diff uses it.
func (q quantity) Equal(o quantity) bool {
	if (q.big == nil) != (o.big == nil) || q.format != o.format {
		return false
	}
	if q.big != nil {
		return q.big.Cmp(o.big) == 0
	}
	return q.value == o.value && q.scale == o.scale
}

func decimal(value int64, scale int32) quantity {
	return quantity{value: value, scale: scale, format: "DecimalSI"}
}

func binary(value int64) quantity { return quantity{value: value, format: "BinarySI"} }

func bigQuantity(v int64) quantity {
	return quantity{big: big.NewInt(v), format: "DecimalSI"}
}

const gi = 1 << 30

// removeZeros is the shape of Kubernetes' quota.RemoveZeros, written for the test-local types:
// start from an empty list and copy the non-zero entries. It is the model the fuzz target
// compares NonZero with and the baseline of the benchmark.
func removeZeros(a resourceList) resourceList {
	result := resourceList{}
	for k, v := range a {
		if !v.IsZero() {
			result[k] = v
		}
	}
	return result
}

func TestNonZero(t *testing.T) {
	tests := []struct {
		name string
		give resourceList
		want resourceList
	}{
		// The four cases of Kubernetes' TestRemoveZeros.
		{
			name: "empty",
			give: resourceList{},
			want: resourceList{},
		},
		{
			name: "all zero",
			give: resourceList{"cpu": decimal(0, 0), "memory": binary(0)},
			want: resourceList{},
		},
		{
			name: "some zero",
			give: resourceList{"cpu": decimal(0, 0), "memory": binary(0), "storage": binary(100 * gi)},
			want: resourceList{"storage": binary(100 * gi)},
		},
		{
			name: "none zero",
			give: resourceList{"cpu": decimal(200, -3), "memory": binary(gi)},
			want: resourceList{"cpu": decimal(200, -3), "memory": binary(gi)},
		},
		// Beyond them.
		{
			name: "nil",
			give: nil,
			want: resourceList{},
		},
		{
			name: "the ClusterIP Service delta of kubernetes#97437",
			give: resourceList{"services": decimal(1, 0), "services.loadbalancers": decimal(0, 0), "services.nodeports": decimal(0, 0)},
			want: resourceList{"services": decimal(1, 0)},
		},
		{
			name: "zero in the big representation",
			give: resourceList{"cpu": bigQuantity(0), "memory": bigQuantity(1)},
			want: resourceList{"memory": bigQuantity(1)},
		},
		{
			name: "zero with a scale",
			give: resourceList{"cpu": decimal(0, -3), "memory": decimal(0, 6)},
			want: resourceList{},
		},
		{
			name: "more than eight survive",
			give: numbered(12, 3),
			want: numbered(9, 0),
		},
		{
			name: "more than eight entries, eight survive",
			give: numbered(11, 3),
			want: numbered(8, 0),
		},
		{
			name: "more than eight entries, one survives",
			give: numbered(10, 9),
			want: numbered(1, 0),
		},
		{
			name: "more than eight entries, all zero",
			give: numbered(10, 10),
			want: resourceList{},
		},
		{
			name: "as many survivors as NonZero keeps aside",
			give: numbered(40, 24),
			want: numbered(16, 0),
		},
		{
			name: "one survivor more than NonZero keeps aside",
			give: numbered(40, 23),
			want: numbered(17, 0),
		},
		{
			name: "many entries, all survive",
			give: numbered(100, 0),
			want: numbered(100, 0),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := quota.NonZero(tt.give)
			require.NotNil(t, got)
			assert.IsType(t, resourceList{}, got)
			assert.Empty(t, cmp.Diff(tt.want, got), "NonZero (-want +got)")
		})
	}
}

// numbered returns a list of n entries r0…r(n-1), of which the last zeros are zero and the
// others hold their index plus one.
func numbered(n, zeros int) resourceList {
	l := make(resourceList, n)
	for i := 0; i < n; i++ {
		v := int64(i + 1)
		if i >= n-zeros {
			v = 0
		}
		l[resourceName(fmt.Sprintf("r%d", i))] = decimal(v, 0)
	}
	return l
}

func TestNonZeroDoesNotAlias(t *testing.T) {
	tests := []struct {
		name string
		give resourceList
	}{
		{name: "none zero", give: resourceList{"cpu": decimal(200, -3), "memory": binary(gi)}},
		{name: "some zero", give: resourceList{"cpu": decimal(0, 0), "storage": binary(100 * gi)}},
		{name: "all zero", give: resourceList{"cpu": decimal(0, 0)}},
		{name: "more than eight, none zero", give: numbered(10, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := copyList(tt.give)
			got := quota.NonZero(tt.give)
			want := copyList(got)

			for k := range got {
				delete(got, k)
			}
			got["pods"] = decimal(7, 0)
			assert.Empty(t, cmp.Diff(before, tt.give), "input after writing to the result (-want +got)")

			got = quota.NonZero(tt.give)
			tt.give["services"] = decimal(3, 0)
			for k := range want {
				delete(tt.give, k)
			}
			assert.Empty(t, cmp.Diff(want, got), "result after writing to the input (-want +got)")
		})
	}
}

func copyList(l resourceList) resourceList {
	if l == nil {
		return nil
	}
	c := make(resourceList, len(l))
	for k, v := range l {
		c[k] = v
	}
	return c
}

// memo's IsZero writes to its receiver, the way resource.Quantity's String caches the string it
// returns.
type memo struct {
	amount  int64
	checked bool
}

func (m *memo) IsZero() bool {
	m.checked = true
	return m.amount == 0
}

func TestNonZeroCallsIsZeroOnCopies(t *testing.T) {
	for _, n := range []int{2, 10, 40} { // each side of the sizes where NonZero changes how it keeps survivors
		t.Run(fmt.Sprintf("%d entries", n), func(t *testing.T) {
			give := make(map[string]memo, n)
			for i := 0; i < n; i++ {
				give[fmt.Sprintf("m%d", i)] = memo{amount: int64(i % 2)}
			}

			got := quota.NonZero(give)

			assert.Len(t, got, n/2)
			for k, m := range give {
				assert.False(t, m.checked, "IsZero wrote to the input's value of %s", k)
			}
			for k, m := range got {
				assert.Equal(t, memo{amount: give[k].amount, checked: true}, m, "the result holds the copy IsZero saw, %s", k)
			}
		})
	}
}

// keeper's IsZero keeps its receiver, which NonZero's doc forbids.
type keeper struct {
	amount int64
	kept   *[]*keeper
}

func (k *keeper) IsZero() bool {
	*k.kept = append(*k.kept, k)
	return k.amount == 0
}

// The receiver IsZero gets is valid only during the call; whatever happens to it afterwards,
// NonZero reusing it for the next call or the caller writing through it, the values in the
// result stay what IsZero saw.
func TestNonZeroResultOutlivesIsZerosReceiver(t *testing.T) {
	for _, n := range []int{2, 10, 40} { // each side of the sizes where NonZero changes how it keeps survivors
		t.Run(fmt.Sprintf("%d entries", n), func(t *testing.T) {
			var receivers []*keeper
			give := make(map[string]keeper, n)
			want := map[string]keeper{}
			for i := 0; i < n; i++ {
				k := keeper{amount: int64(i % 2), kept: &receivers}
				give[fmt.Sprintf("k%d", i)] = k
				if k.amount != 0 {
					want[fmt.Sprintf("k%d", i)] = k
				}
			}

			got := quota.NonZero(give)
			_ = quota.NonZero(map[string]keeper{"other": {amount: 9, kept: &receivers}})
			for _, r := range receivers {
				r.amount = -1
			}

			assert.Len(t, got, n/2)
			for k, v := range got {
				assert.Equal(t, want[k].amount, v.amount, "%s", k)
			}
		})
	}
}

func TestNonZeroValueReceiver(t *testing.T) {
	// time.Time's IsZero has a value receiver; *time.Time has it too, so P is inferred all the
	// same.
	give := map[string]time.Time{
		"never": {},
		"epoch": time.Unix(0, 0).UTC(),
	}

	got := quota.NonZero(give)

	assert.Empty(t, cmp.Diff(map[string]time.Time{"epoch": time.Unix(0, 0).UTC()}, got), "NonZero (-want +got)")
}

// FuzzNonZero decodes the input into a list, three bytes an entry: a name out of 24, so that
// later entries overwrite earlier ones and lists of more and fewer than eight entries both
// occur, an amount, and a representation.
func FuzzNonZero(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0})
	f.Add([]byte{0, 1, 0, 1, 0, 0, 2, 0, 1})             // the ClusterIP Service delta, one zero big
	f.Add([]byte{0, 0, 0, 0, 5, 0, 0, 0, 1})             // one name written three times
	f.Add([]byte{0, 0, 2, 1, 0, 4, 2, 0xff, 1, 3, 0, 6}) // zero with scales, a negative amount
	var many []byte
	for i := byte(0); i < 24; i++ {
		many = append(many, i, i%3, i%4)
	}
	f.Add(many)

	f.Fuzz(func(t *testing.T, data []byte) {
		var give resourceList // nil when data is empty
		for i := 0; i+3 <= len(data); i += 3 {
			if give == nil {
				give = resourceList{}
			}
			name := resourceName(fmt.Sprintf("r%d", data[i]%24))
			amount := int64(int8(data[i+1]))
			if data[i+2]&1 == 1 {
				give[name] = bigQuantity(amount)
			} else {
				give[name] = decimal(amount, int32(data[i+2]>>1)%8-4)
			}
		}
		before := copyList(give)

		got := quota.NonZero(give)

		require.NotNil(t, got)
		if diff := cmp.Diff(removeZeros(give), got); diff != "" {
			t.Fatalf("NonZero differs from the model (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(before, give); diff != "" {
			t.Fatalf("NonZero changed its input (-want +got):\n%s", diff)
		}
		got["fuzz"] = decimal(1, 0)
		if _, ok := give["fuzz"]; ok {
			t.Fatal("the result aliases the input")
		}
	})
}

// NonZero's benchmark is BenchmarkNonZero in examples/servicequota/admission: it measures
// corev1.ResourceList deltas beside Kubernetes' RemoveZeros, which this module cannot import.

// Calls with different value types, from many goroutines at once, each get their own copy to
// call IsZero on (run with -race).
func TestNonZeroConcurrentCallsOfDifferentTypes(t *testing.T) {
	quantities := numbered(20, 5)
	memos := map[string]memo{"a": {amount: 1}, "b": {}, "c": {amount: 3}}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				assert.Len(t, quota.NonZero(quantities), 15)
				assert.Len(t, quota.NonZero(memos), 2)
			}
		}()
	}
	wg.Wait()
}
