package v0201_test

import (
	"testing"

	// The version under test, required in go.mod at exactly v0.20.1.
	_ "k8s.io/legacy-cloud-providers/gce"

	"github.com/safereconcile/safereconcile/examples/gceaddress/upstream"
)

// TestUpstreamConformance requires the real ensure of k8s.io/legacy-cloud-providers v0.20.1
// to fail and leak, call by call, exactly as the replica's v1.20.1 column says.
func TestUpstreamConformance(t *testing.T) {
	upstream.Conform(t, "v0.20.1", "../../ilb/testdata/upstream.json")
}
