//go:build linux

package kernelpath_test

import (
	"bytes"
	"context"
	"net/netip"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/examples/nodeport/kernelpath"
	"github.com/safereconcile/safereconcile/examples/nodeport/proxy"
)

const (
	// udpTimeout shortens the node's unreplied UDP timeout so that the pause that lets the
	// stale entry expire takes seconds, not half a minute. It must outlast the longest gap
	// between a client's datagrams before the endpoint arrives, or the stale entry expires
	// before the old shape's sync and its NodePort answers: with 3s, CI (2 cores, load 6, the
	// other packages' tests beside it) saw a gap of 3.7s, since each round also lists the
	// table and each sync runs iptables-restore.
	udpTimeout = 8 * time.Second
	// replyWait bounds each datagram's wait. A dark datagram costs all of it; an answer
	// through a veth takes well under a millisecond.
	replyWait = 500 * time.Millisecond
	after     = 5
)

func requireKernel(t *testing.T) {
	t.Helper()
	if err := kernelpath.Check(); err != nil {
		t.Skipf("skipping the real-kernel scenario: %v", err)
	}
}

// newLab builds a Lab whose Close, and the check that it left no namespace behind, run when
// the test ends.
func newLab(t *testing.T, backend kernelpath.Backend) *kernelpath.Lab {
	t.Helper()
	lab, err := kernelpath.New(context.Background(), kernelpath.Options{
		Backend: backend, UDPTimeout: udpTimeout, ReplyWait: replyWait,
	})
	require.NoError(t, err)
	t.Cleanup(func() {
		names := lab.Namespaces()
		assert.NoError(t, lab.Close())
		assert.NoError(t, lab.Close(), "a second Close must do nothing")
		requireGone(t, names)
	})
	return lab
}

// requireGone checks that none of the namespaces is listed any more.
func requireGone(t *testing.T, names []string) {
	t.Helper()
	out, err := exec.Command("ip", "netns", "list").CombinedOutput()
	require.NoError(t, err)
	for _, n := range names {
		assert.NotContains(t, string(out), n, "namespace left behind")
	}
}

// recorder is a Lab that keeps every conntrack listing the scenario printed.
type recorder struct {
	*kernelpath.Lab
	listings [][]string
}

func (r *recorder) Conntrack(ctx context.Context) ([]string, error) {
	lines, err := r.Lab.Conntrack(ctx)
	r.listings = append(r.listings, lines)
	return lines, err
}

// sawStaleNodePortEntry reports whether some listing held the NodePort client's unNATed entry:
// unreplied, with the node itself as the reply source.
func (r *recorder) sawStaleNodePortEntry() bool {
	for _, l := range r.listings {
		for _, e := range l {
			if strings.Contains(e, "sport=40000 dport=30080 [UNREPLIED] src=198.18.1.1 dst=198.18.1.2 sport=30080") {
				return true
			}
		}
	}
	return false
}

// TestScenario plays both shapes with both backends, each on a lab of its own: the old shape
// leaves the NodePort dark while its client keeps sending, with the ClusterIP answering, until
// the client pauses longer than the UDP timeout; the fixed shape answers from the first
// datagram after the endpoint arrived.
func TestScenario(t *testing.T) {
	requireKernel(t)
	opts := kernelpath.PlayOptions(after, udpTimeout)
	for _, backend := range []kernelpath.Backend{kernelpath.Netlink, kernelpath.Exec} {
		for _, shape := range []proxy.Shape{proxy.OldShape, proxy.FixedShape} {
			t.Run(string(backend)+"/"+shape.Name, func(t *testing.T) {
				t.Parallel()
				lab := &recorder{Lab: newLab(t, backend)}
				require.Equal(t, backend, lab.Backend())
				var out bytes.Buffer

				res, err := proxy.Play(context.Background(), &out, lab, shape, opts)

				require.NoError(t, err, "timeline:\n%s", &out)
				all := proxy.Tally{Sent: after, Answered: after}
				assert.Equal(t, all, res.ClusterIP, "ClusterIP after the endpoint; timeline:\n%s", &out)
				assert.True(t, res.NodePortAfterPause, "NodePort after the pause; timeline:\n%s", &out)
				// The stale entry is what both shapes face: without it the old shape's dark
				// NodePort would prove nothing.
				assert.True(t, lab.sawStaleNodePortEntry(), "no unNATed entry for the NodePort; timeline:\n%s", &out)
				if shape.Name == proxy.OldShape.Name {
					assert.Equal(t, proxy.Tally{Sent: after}, res.NodePort,
						"the old shape's NodePort answered while the client kept sending; timeline:\n%s", &out)
				} else {
					assert.Equal(t, all, res.NodePort, "the fixed shape's NodePort; timeline:\n%s", &out)
				}
			})
		}
	}
}

// cancelOnSend cancels the run's context at the n-th datagram, as a SIGINT would.
type cancelOnSend struct {
	*kernelpath.Lab
	cancel context.CancelFunc
	n      int
}

func (c *cancelOnSend) Send(ctx context.Context, src, dst netip.AddrPort) (bool, error) {
	c.n--
	if c.n == 0 {
		c.cancel()
	}
	return c.Lab.Send(ctx, src, dst)
}

// TestCancelledRunCleansUp interrupts a run half-way, as the realkernel command's SIGINT
// handler does, and checks that Close still removes every namespace.
func TestCancelledRunCleansUp(t *testing.T) {
	requireKernel(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lab, err := kernelpath.New(ctx, kernelpath.Options{ReplyWait: replyWait})
	require.NoError(t, err)
	names := lab.Namespaces()
	require.Len(t, names, 3)

	_, err = proxy.Play(ctx, &bytes.Buffer{}, &cancelOnSend{Lab: lab, cancel: cancel, n: 3}, proxy.OldShape, kernelpath.PlayOptions(after, 0))

	require.ErrorIs(t, err, context.Canceled)
	require.NoError(t, lab.Close())
	requireGone(t, names)
}

func TestNewRefusesAFractionalTimeout(t *testing.T) {
	_, err := kernelpath.New(context.Background(), kernelpath.Options{UDPTimeout: 1500 * time.Millisecond})
	require.ErrorContains(t, err, "kernelpath: UDPTimeout 1.5s is not a whole number of seconds")
}
