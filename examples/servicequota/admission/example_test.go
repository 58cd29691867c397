package admission_test

import (
	"context"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"

	"github.com/safereconcile/safereconcile/examples/servicequota/admission"
)

func ExampleCheckFixed() {
	quotas := []corev1.ResourceQuota{admission.LoweredQuota()} // hard 0 NodePorts, 2 in use
	delta := admission.ServiceUsage(admission.NewService("web", corev1.ServiceTypeClusterIP))

	fmt.Println("old:  ", admission.CheckOld(delta, quotas))
	fmt.Println("fixed:", admission.CheckFixed(delta, quotas))
	// Output:
	// old:   exceeded quota: object-counts, requested: services.nodeports=0, used: services.nodeports=2, limited: services.nodeports=0
	// fixed: <nil>
}

func Example() {
	row, err := admission.Scenario.Run(context.Background(), os.Stdout)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("\nreproduced: %t\n", row.Reproduced)
	// Output:
	// ResourceQuota demo/object-counts: hard services.nodeports=0, used services.nodeports=2
	// (lowered to 0 after two NodePort Services had been created)
	//
	// create Service web (ClusterIP), usage delta services=1,services.loadbalancers=0,services.nodeports=0
	//   before, v1.20.1 shape:  rejected: exceeded quota: object-counts, requested: services.nodeports=0, used: services.nodeports=2, limited: services.nodeports=0
	//   after, quota.NonZero:   admitted
	//
	// create Service nodeport-3 (NodePort), usage delta services=1,services.loadbalancers=0,services.nodeports=1
	//   before, v1.20.1 shape:  rejected: exceeded quota: object-counts, requested: services.nodeports=1, used: services.nodeports=2, limited: services.nodeports=0
	//   after, quota.NonZero:   rejected: exceeded quota: object-counts, requested: services.nodeports=1, used: services.nodeports=2, limited: services.nodeports=0
	//
	// reproduced: true
}
