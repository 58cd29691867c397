package proxy_test

import (
	"context"
	"fmt"

	"github.com/safereconcile/safereconcile/examples/nodeport/proxy"
)

// sendOnce sends one datagram of the NodePort client through the model and prints whether it
// was answered.
func sendOnce(ctx context.Context, model *proxy.Model, a proxy.Addrs, when string) {
	src, dst := a.NodePortFlow()
	answered, err := model.Send(ctx, src, dst)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: answered %t\n", when, answered)
}

// The fixed shape: the client's datagram before the endpoint leaves an unNATed entry, and the
// Sync that programs the endpoint's rules deletes it afterwards.
func ExampleNewFixed() {
	ctx := context.Background()
	a := proxy.DefaultAddrs()
	model := proxy.NewModel(a)
	p := proxy.NewFixed(proxy.Config{NodeIP: a.Node, Program: model.Program, Flusher: model.Flusher()})

	if err := p.SetService(a.Service()); err != nil {
		fmt.Println(err)
	}
	if err := p.Sync(ctx); err != nil {
		fmt.Println(err)
	}
	sendOnce(ctx, model, a, "no endpoints")

	if err := p.SetEndpointSlice(a.EndpointSlice(true)); err != nil {
		fmt.Println(err)
	}
	if err := p.Sync(ctx); err != nil {
		fmt.Println(err)
	}
	sendOnce(ctx, model, a, "endpoint ready, one sync")
	// Output:
	// no endpoints: answered false
	// endpoint ready, one sync: answered true
}

// The v1.20.4 shape: the same steps leave the NodePort dark for the client that kept sending.
func ExampleNewV1204() {
	ctx := context.Background()
	a := proxy.DefaultAddrs()
	model := proxy.NewModel(a)
	p := proxy.NewV1204(proxy.Config{NodeIP: a.Node, Program: model.Program, Flusher: model.Flusher()})

	if err := p.SetService(a.Service()); err != nil {
		fmt.Println(err)
	}
	if err := p.Sync(ctx); err != nil {
		fmt.Println(err)
	}
	sendOnce(ctx, model, a, "no endpoints")

	if err := p.SetEndpointSlice(a.EndpointSlice(true)); err != nil {
		fmt.Println(err)
	}
	if err := p.Sync(ctx); err != nil {
		fmt.Println(err)
	}
	sendOnce(ctx, model, a, "endpoint ready, one sync")
	// Output:
	// no endpoints: answered false
	// endpoint ready, one sync: answered false
}
