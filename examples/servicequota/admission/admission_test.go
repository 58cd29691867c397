package admission_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/safereconcile/safereconcile/examples/internal/scenario"
	"github.com/safereconcile/safereconcile/examples/servicequota/admission"
)

func list(pairs ...string) corev1.ResourceList {
	l := corev1.ResourceList{}
	for i := 0; i < len(pairs); i += 2 {
		l[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return l
}

func TestServiceUsage(t *testing.T) {
	tests := []struct {
		name string
		give *corev1.Service
		want corev1.ResourceList
	}{
		{
			name: "ClusterIP",
			give: admission.NewService("web", corev1.ServiceTypeClusterIP),
			want: list("services", "1", "services.loadbalancers", "0", "services.nodeports", "0"),
		},
		{
			name: "NodePort",
			give: admission.NewService("np", corev1.ServiceTypeNodePort),
			want: list("services", "1", "services.loadbalancers", "0", "services.nodeports", "1"),
		},
		{
			name: "LoadBalancer with two ports",
			give: func() *corev1.Service {
				svc := admission.NewService("lb", corev1.ServiceTypeLoadBalancer)
				svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Name: "https", Port: 443})
				return svc
			}(),
			want: list("services", "1", "services.loadbalancers", "1", "services.nodeports", "2"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Empty(t, cmp.Diff(tt.want, admission.ServiceUsage(tt.give)), "usage (-want +got)")
		})
	}
}

func TestCheck(t *testing.T) {
	// The quota of kubernetes#97437: lowered to no NodePorts while two are in use.
	lowered := admission.LoweredQuota()
	// A quota with room for one more Service and no NodePorts in use.
	room := admission.LoweredQuota()
	room.Name = "room"
	room.Status.Hard = list("services", "3", "services.nodeports", "1")
	room.Status.Used = list("services", "2")

	const nodePortRefusal = "exceeded quota: object-counts, requested: services.nodeports=1, " +
		"used: services.nodeports=2, limited: services.nodeports=0"
	tests := []struct {
		name      string
		give      corev1.ResourceList
		quotas    []corev1.ResourceQuota
		wantOld   string // the error CheckOld returns; empty when it admits
		wantFixed string // the error CheckFixed returns; empty when it admits
	}{
		{
			name:   "kubernetes#97437: ClusterIP Service, quota lowered below use",
			give:   list("services", "1", "services.loadbalancers", "0", "services.nodeports", "0"),
			quotas: []corev1.ResourceQuota{lowered},
			wantOld: "exceeded quota: object-counts, requested: services.nodeports=0, " +
				"used: services.nodeports=2, limited: services.nodeports=0",
		},
		{
			name:      "NodePort Service, quota lowered below use",
			give:      list("services", "1", "services.loadbalancers", "0", "services.nodeports", "1"),
			quotas:    []corev1.ResourceQuota{lowered},
			wantOld:   nodePortRefusal,
			wantFixed: nodePortRefusal,
		},
		{
			name:   "all-zero delta",
			give:   list("services", "0", "services.nodeports", "0"),
			quotas: []corev1.ResourceQuota{lowered},
		},
		{
			name:   "empty delta",
			give:   corev1.ResourceList{},
			quotas: []corev1.ResourceQuota{lowered},
		},
		{
			name:   "NodePort Service within the quota",
			give:   list("services", "1", "services.loadbalancers", "0", "services.nodeports", "1"),
			quotas: []corev1.ResourceQuota{room},
		},
		{
			name:      "the first exceeded quota refuses, listing every exceeded resource",
			give:      list("services", "2", "services.nodeports", "2"),
			quotas:    []corev1.ResourceQuota{room, lowered},
			wantOld:   "exceeded quota: room, requested: services=2,services.nodeports=2, used: services=2, limited: services=3,services.nodeports=1",
			wantFixed: "exceeded quota: room, requested: services=2,services.nodeports=2, used: services=2, limited: services=3,services.nodeports=1",
		},
		{
			name: "no quota",
			give: list("services", "1", "services.nodeports", "0"),
		},
	}
	checks := []struct {
		name  string
		check func(corev1.ResourceList, []corev1.ResourceQuota) error
		want  func(tt int) string
	}{
		{name: "old", check: admission.CheckOld, want: func(i int) string { return tests[i].wantOld }},
		{name: "fixed", check: admission.CheckFixed, want: func(i int) string { return tests[i].wantFixed }},
	}
	for i, tt := range tests {
		for _, c := range checks {
			t.Run(tt.name+"/"+c.name, func(t *testing.T) {
				delta := tt.give.DeepCopy()
				var quotas []corev1.ResourceQuota
				for _, q := range tt.quotas {
					quotas = append(quotas, *q.DeepCopy())
				}

				err := c.check(delta, quotas)

				if want := c.want(i); want == "" {
					assert.NoError(t, err)
				} else {
					var exceeded *admission.ExceededError
					require.ErrorAs(t, err, &exceeded)
					assert.EqualError(t, err, want)
				}
				assert.Empty(t, cmp.Diff(tt.give, delta), "delta after the check (-want +got)")
				assert.Empty(t, cmp.Diff(tt.quotas, quotas), "quotas after the check (-want +got)")
			})
		}
	}
}

func TestCheckLeavesDecimalUsageAlone(t *testing.T) {
	// A Quantity in its inf.Dec form shares the Dec between copies; an Add on a plain copy of
	// the quota's Used entry would change the quota itself.
	rq := admission.LoweredQuota()
	rq.Status.Hard = list("services.nodeports", "5")
	used := resource.MustParse("2")
	used.AsDec()
	rq.Status.Used = corev1.ResourceList{"services.nodeports": used}

	for _, check := range []func(corev1.ResourceList, []corev1.ResourceQuota) error{admission.CheckOld, admission.CheckFixed} {
		require.NoError(t, check(list("services.nodeports", "1"), []corev1.ResourceQuota{rq}))
	}

	// Value, not String: String returns the string cached when the Quantity was parsed.
	got := rq.Status.Used["services.nodeports"]
	assert.Equal(t, int64(2), got.Value())
}

func TestScenario(t *testing.T) {
	var out bytes.Buffer

	row, err := admission.Scenario.Run(context.Background(), &out)

	require.NoError(t, err)
	assert.Equal(t, "servicequota", admission.Scenario.Name)
	want := scenario.Row{
		Bug:        "#97437 zero entry vs lowered quota",
		Old:        "ClusterIP rejected, NodePort rejected",
		Fixed:      "ClusterIP admitted, NodePort rejected",
		Reproduced: true,
	}
	assert.Empty(t, cmp.Diff(want, row), "row (-want +got)")
	assert.Contains(t, out.String(), "create Service web (ClusterIP), usage delta services=1,services.loadbalancers=0,services.nodeports=0\n"+
		"  before, v1.20.1 shape:  rejected: exceeded quota: object-counts, requested: services.nodeports=0, used: services.nodeports=2, limited: services.nodeports=0\n"+
		"  after, quota.NonZero:   admitted\n")
}
