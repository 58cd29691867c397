package ilb_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/safereconcile/safereconcile/examples/gceaddress/gcecloud"
	"github.com/safereconcile/safereconcile/examples/gceaddress/ilb"
)

func exampleService() *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "4f1c2d3e-0000-4000-8000-000000000001"},
		Spec: corev1.ServiceSpec{
			Type:  corev1.ServiceTypeLoadBalancer,
			Ports: []corev1.ServicePort{{Protocol: corev1.ProtocolTCP, Port: 80}},
		},
	}
}

// A sync that fails after the reservation leaves nothing behind; the next one succeeds.
func ExampleEnsure() {
	ctx := context.Background()
	c := gcecloud.New()
	svc := exampleService()
	c.Fail(gcecloud.FirewallsInsert, 1, nil)

	_, err := ilb.Ensure(ctx, c, svc)
	fmt.Println(err)
	fmt.Println("addresses:", c.State().Addresses)

	st, err := ilb.Ensure(ctx, c, svc)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("ingress:", st.Ingress[0].IP)
	fmt.Println("addresses:", c.State().Addresses)
	// Output:
	// firewalls.insert k8s-fw-a4f1c2d3e00004000800000000000000: gcecloud: injected failure
	// addresses: []
	// ingress: 10.128.0.2
	// addresses: []
}

// The v1.20.1 shape: the same failure leaves the reservation behind.
func ExampleEnsureV1201() {
	ctx := context.Background()
	c := gcecloud.New()
	svc := exampleService()
	c.Fail(gcecloud.FirewallsInsert, 1, nil)

	_, err := ilb.EnsureV1201(ctx, c, svc)
	fmt.Println(err)
	fmt.Println("addresses:", c.State().Addresses)
	// Output:
	// firewalls.insert k8s-fw-a4f1c2d3e00004000800000000000000: gcecloud: injected failure
	// addresses: [{a4f1c2d3e00004000800000000000000 10.128.0.2 {"kubernetes.io/service-name":"default/web"}}]
}

// The v1.20.2 shape, the upstream fix: the same failure leaves nothing, but a release that
// fails is reported as success with the reservation still there.
func ExampleEnsureV1202() {
	ctx := context.Background()
	c := gcecloud.New()
	svc := exampleService()
	c.Fail(gcecloud.FirewallsInsert, 1, nil)
	_, err := ilb.EnsureV1202(ctx, c, svc)
	fmt.Println(err)
	fmt.Println("addresses:", c.State().Addresses)

	c.Fail(gcecloud.AddressesDelete, 1, nil)
	_, err = ilb.EnsureV1202(ctx, c, svc)
	fmt.Println("error:", err)
	fmt.Println("addresses:", c.State().Addresses)
	// Output:
	// firewalls.insert k8s-fw-a4f1c2d3e00004000800000000000000: gcecloud: injected failure
	// addresses: []
	// error: <nil>
	// addresses: [{a4f1c2d3e00004000800000000000000 10.128.0.2 {"kubernetes.io/service-name":"default/web"}}]
}
