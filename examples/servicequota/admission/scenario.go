package admission

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/safereconcile/safereconcile/examples/internal/scenario"
)

// Scenario plays kubernetes#97437 against [CheckOld] and [CheckFixed]: a quota lowered to
// services.nodeports=0 while two NodePort Services use 2, then a ClusterIP Service, which
// only the old shape refuses, and a third NodePort Service, which both refuse. Its row is
// computed from the checks' results.
var Scenario = scenario.Scenario{Name: "servicequota", Run: run}

// LoweredQuota returns the quota of the scenario: named object-counts in namespace demo, it
// allows no NodePorts, while the two NodePort Services created before it was lowered still
// use two.
func LoweredQuota() corev1.ResourceQuota {
	hard := corev1.ResourceList{corev1.ResourceServicesNodePorts: resource.MustParse("0")}
	return corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "object-counts", Namespace: "demo"},
		Spec:       corev1.ResourceQuotaSpec{Hard: hard},
		Status: corev1.ResourceQuotaStatus{
			Hard: hard.DeepCopy(),
			Used: corev1.ResourceList{corev1.ResourceServicesNodePorts: resource.MustParse("2")},
		},
	}
}

// NewService returns a Service of the given type in namespace demo with one TCP port.
func NewService(name string, typ corev1.ServiceType) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "demo"},
		Spec: corev1.ServiceSpec{
			Type:  typ,
			Ports: []corev1.ServicePort{{Name: "http", Protocol: corev1.ProtocolTCP, Port: 80}},
		},
	}
}

// verdicts is what the two shapes decided for one Service.
type verdicts struct{ old, fixed error }

func run(_ context.Context, w io.Writer) (scenario.Row, error) {
	rq := LoweredQuota()
	quotas := []corev1.ResourceQuota{rq}

	var b strings.Builder
	fmt.Fprintf(&b, "ResourceQuota %s/%s: hard %s, used %s\n", rq.Namespace, rq.Name,
		format(rq.Status.Hard), format(rq.Status.Used))
	b.WriteString("(lowered to 0 after two NodePort Services had been created)\n")

	try := func(svc *corev1.Service) verdicts {
		delta := ServiceUsage(svc)
		v := verdicts{old: CheckOld(delta, quotas), fixed: CheckFixed(delta, quotas)}
		fmt.Fprintf(&b, "\ncreate Service %s (%s), usage delta %s\n", svc.Name, svc.Spec.Type, format(delta))
		fmt.Fprintf(&b, "  before, v1.20.1 shape:  %s\n", describe(v.old))
		fmt.Fprintf(&b, "  after, quota.NonZero:   %s\n", describe(v.fixed))
		return v
	}
	clusterIP := try(NewService("web", corev1.ServiceTypeClusterIP))
	nodePort := try(NewService("nodeport-3", corev1.ServiceTypeNodePort))

	row := scenario.Row{
		Bug:   "#97437 zero entry vs lowered quota",
		Old:   fmt.Sprintf("ClusterIP %s, NodePort %s", verdict(clusterIP.old), verdict(nodePort.old)),
		Fixed: fmt.Sprintf("ClusterIP %s, NodePort %s", verdict(clusterIP.fixed), verdict(nodePort.fixed)),
		// The bug is there when the old shape refused the ClusterIP Service for its zero
		// entry alone and the fixed shape admitted it, while the quota still holds: both
		// refuse a Service that does ask for a NodePort.
		Reproduced: refusedForZero(clusterIP.old) && clusterIP.fixed == nil &&
			nodePort.old != nil && nodePort.fixed != nil,
	}
	_, err := io.WriteString(w, b.String())
	return row, err
}

func describe(err error) string {
	if err == nil {
		return "admitted"
	}
	return "rejected: " + err.Error()
}

func verdict(err error) string {
	if err == nil {
		return "admitted"
	}
	return "rejected"
}

// refusedForZero reports whether err is an *ExceededError all of whose requested amounts are
// zero: a refusal for resources the request does not consume.
func refusedForZero(err error) bool {
	var e *ExceededError
	if !errors.As(err, &e) || len(e.Requested) == 0 {
		return false
	}
	for _, q := range e.Requested {
		if !q.IsZero() {
			return false
		}
	}
	return true
}
