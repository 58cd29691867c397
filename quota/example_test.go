package quota_test

import (
	"fmt"
	"slices"

	"github.com/safereconcile/safereconcile/quota"
)

// Quantity stands in for resource.Quantity: its IsZero has a pointer receiver.
type Quantity struct{ Milli int64 }

// IsZero reports whether q is zero.
func (q *Quantity) IsZero() bool { return q.Milli == 0 }

// ResourceList stands in for corev1.ResourceList.
type ResourceList map[string]Quantity

// admit checks a request's usage delta against a quota in the fixed shape of kubernetes#97451.
func admit(delta, hard, used ResourceList) error {
	// A zero entry is not a request for that resource: drop it before looking at the quota.
	delta = quota.NonZero(delta)
	if len(delta) == 0 {
		return nil // the request consumes nothing, so no quota can refuse it
	}
	names := make([]string, 0, len(delta))
	for name := range delta {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		limit, limited := hard[name]
		if limited && used[name].Milli+delta[name].Milli > limit.Milli {
			return fmt.Errorf("exceeded quota: requested %s=%d, used %d, limited %d",
				name, delta[name].Milli/1000, used[name].Milli/1000, limit.Milli/1000)
		}
	}
	return nil
}

func ExampleNonZero() {
	// A quota lowered to no NodePorts while two NodePort Services exist.
	hard := ResourceList{"services.nodeports": {Milli: 0}}
	used := ResourceList{"services.nodeports": {Milli: 2000}}

	clusterIP := ResourceList{"services": {Milli: 1000}, "services.nodeports": {Milli: 0}}
	nodePort := ResourceList{"services": {Milli: 1000}, "services.nodeports": {Milli: 1000}}

	fmt.Println("filtered ClusterIP delta:", quota.NonZero(clusterIP))
	fmt.Println("ClusterIP Service:", admit(clusterIP, hard, used))
	fmt.Println("NodePort Service:", admit(nodePort, hard, used))
	// Output:
	// filtered ClusterIP delta: map[services:{1000}]
	// ClusterIP Service: <nil>
	// NodePort Service: exceeded quota: requested services.nodeports=1, used 2, limited 0
}
