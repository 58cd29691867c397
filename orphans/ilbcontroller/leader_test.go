package ilbcontroller_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/safereconcile/safereconcile/orphans"
	"github.com/safereconcile/safereconcile/orphans/internal/fakecloud"
)

// TestLeaderChange runs two controller processes with leader election. The leader records an
// orphan, and is SIGKILLed in the middle of the reconcile that retries it; the other process
// takes over the lease and finishes: the orphan is released and its record removed.
func TestLeaderChange(t *testing.T) {
	w := newWorld(t, "leader-change")
	failedOnce := map[string]bool{}
	w.inject = func(name string) bool { // the first release of each address fails
		if failedOnce[name] {
			return false
		}
		failedOnce[name] = true
		return true
	}
	var (
		mu      sync.Mutex
		victim  string
		retries = map[string]int{}
	)
	w.hook = func(ctx context.Context, op fakecloud.Op, name string, done bool) error {
		if op != fakecloud.ReleaseAddress || done {
			return nil
		}
		mu.Lock()
		retries[name]++
		kill := retries[name] == 2 && victim == "" // the second release of a name retries its orphan
		if kill {
			victim = fakecloud.Caller(ctx)
		}
		mu.Unlock()
		if kill {
			w.kill(victim)
		}
		return nil
	}
	w.createServices(2)
	w.start("a", true)
	w.start("b", true)

	w.await("converge after the leader's death", 60*time.Second, w.converged)
	mu.Lock()
	dead := victim
	mu.Unlock()
	require.NotEmpty(t, dead, "the leader was never caught retrying")

	var l coordinationv1.Lease
	require.NoError(t, w.c.Get(context.Background(), client.ObjectKey{Namespace: w.ns, Name: "ilb-controller"}, &l))
	holder := *l.Spec.HolderIdentity
	assert.NotEmpty(t, holder)
	survivor := map[string]string{"a": "b", "b": "a"}[dead]
	w.await("the survivor reports releasing the dead leader's orphan", 10*time.Second, func() (bool, string) {
		return strings.Contains(strings.Join(w.notes(orphans.ReasonReleased), "\n"), "Released recorded orphans (1): address/"), "no Released Event"
	})
	t.Logf("leader %s killed mid-retry; %s took over (lease holder %s) and converged", dead, survivor, holder)

	w.deleteServices()
	w.await("delete every Service", 60*time.Second, w.gone)
}
