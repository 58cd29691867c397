package proxy

import (
	"context"
	"net/netip"
	"time"

	"github.com/safereconcile/safereconcile/conntrackorder"
	"github.com/safereconcile/safereconcile/examples/nodeport/packetpath"
)

// Model is a [Datapath] over the model of package packetpath: deterministic, instantaneous,
// and with a fake clock that only Wait moves.
//
// Use [NewModel]. A Model is not safe for concurrent use.
type Model struct {
	node    *packetpath.Node
	flusher *packetpath.Flusher
}

var _ Datapath = (*Model)(nil)

// NewModel returns a model node at time zero, with the pod listening at a.Pod and [PodPort].
func NewModel(a Addrs) *Model {
	node := packetpath.NewNode()
	node.AddPod(netip.AddrPortFrom(a.Pod, PodPort))
	return &Model{node: node, flusher: packetpath.NewFlusher(node)}
}

// Node returns the model node, for tests that look inside.
func (m *Model) Node() *packetpath.Node { return m.node }

// Program installs rules in the model node (see [packetpath.Node.SetRules]).
func (m *Model) Program(_ context.Context, rules []packetpath.Rule) error {
	m.node.SetRules(rules...)
	return nil
}

// Flusher returns a [packetpath.Flusher] over the model node.
func (m *Model) Flusher() conntrackorder.Flusher { return m.flusher }

// Send sends one UDP datagram through the model node (see [packetpath.Node.Send]).
func (m *Model) Send(_ context.Context, src, dst netip.AddrPort) (bool, error) {
	return m.node.Send(conntrackorder.UDP, src, dst).Answered, nil
}

// Conntrack returns the model node's table (see [packetpath.Node.Conntrack]).
func (m *Model) Conntrack(context.Context) ([]string, error) { return m.node.Conntrack(), nil }

// Wait advances the model node's clock by d, without sleeping.
func (m *Model) Wait(_ context.Context, d time.Duration) error {
	m.node.Advance(d)
	return nil
}

// Now returns the model node's clock.
func (m *Model) Now() time.Duration { return m.node.Now() }
