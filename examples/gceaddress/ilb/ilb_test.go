package ilb_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/safereconcile/safereconcile/acquire"
	"github.com/safereconcile/safereconcile/examples/gceaddress/gcecloud"
	"github.com/safereconcile/safereconcile/examples/gceaddress/ilb"
	"github.com/safereconcile/safereconcile/lease"
	"github.com/safereconcile/safereconcile/lease/leasetest"
)

const (
	testUID = "0b6f4c1e-7d2a-4a9b-8e3f-5c1d2b3a4e5f"
	lbName  = "a0b6f4c1e7d2a4a9b8e3f5c1d2b3a4e5" // LoadBalancerName of a Service with testUID
)

func newService() *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: testUID},
		Spec: corev1.ServiceSpec{
			Type:  corev1.ServiceTypeLoadBalancer,
			Ports: []corev1.ServicePort{{Protocol: corev1.ProtocolTCP, Port: 80}, {Protocol: corev1.ProtocolTCP, Port: 443}},
		},
	}
}

// wantAddress is the controller's reservation as the first ensure on a fresh cloud makes it.
var wantAddress = gcecloud.Address{
	Name: lbName, IP: "10.128.0.2", Description: `{"kubernetes.io/service-name":"default/web"}`,
}

// wantState is what a successful ensure on a fresh cloud leaves: everything but the reservation.
func wantState(ip string) gcecloud.State {
	return gcecloud.State{
		Firewalls: []gcecloud.Firewall{{
			Name: "k8s-fw-" + lbName, Destination: ip, Protocol: "TCP", Ports: []string{"80", "443"},
		}},
		HealthChecks: []gcecloud.HealthCheck{{Name: "k8s-hc-" + lbName, Path: "/healthz", Port: 10256}},
		BackendServices: []gcecloud.BackendService{{
			Name: "k8s-bs-" + lbName, Protocol: "TCP", HealthCheck: "k8s-hc-" + lbName,
		}},
		ForwardingRules: []gcecloud.ForwardingRule{{
			Name: lbName, IP: ip, Protocol: "TCP", Ports: []string{"80", "443"}, BackendService: "k8s-bs-" + lbName,
		}},
	}
}

func wantStatus(ip string) *corev1.LoadBalancerStatus {
	return &corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: ip}}}
}

// lookUpReservation looks the controller's reservation up in the cloud again, through the API,
// the way the Kubernetes regression test called GetRegionAddress(lbName). It returns the
// address, or nil when there is none.
func lookUpReservation(t *testing.T, c *gcecloud.Cloud) *gcecloud.Address {
	t.Helper()
	a, err := c.GetAddress(context.Background(), lbName)
	if errors.Is(err, gcecloud.ErrNotFound) {
		return nil
	}
	require.NoError(t, err)
	return &a
}

func TestLoadBalancerName(t *testing.T) {
	assert.Equal(t, lbName, ilb.LoadBalancerName(newService()))
	short := newService()
	short.UID = types.UID("1234-5678")
	assert.Equal(t, "a12345678", ilb.LoadBalancerName(short))
}

// TestEnsureInternalLoadBalancerErrors fails each cloud call of an ensure in turn, then looks
// the address up again. The v1.20.1 shape must leave the reservation behind whenever the
// failure comes between the reservation and the release (kubernetes#97740): the test asserts
// the leak, so that the reproduction cannot rot into a shape that no longer has the bug. The
// fixed shape never leaves it.
func TestEnsureInternalLoadBalancerErrors(t *testing.T) {
	tests := []struct {
		name        string
		give        gcecloud.Op
		giveNth     int
		wantOldLeak bool
	}{
		{name: "get existing forwarding rule failed", give: gcecloud.ForwardingRulesGet, giveNth: 1},
		{name: "get health check failed", give: gcecloud.HealthChecksGet, giveNth: 1},
		{name: "create health check failed", give: gcecloud.HealthChecksInsert, giveNth: 1},
		{name: "get address failed", give: gcecloud.AddressesGet, giveNth: 1},
		{name: "reserve address failed", give: gcecloud.AddressesInsert, giveNth: 1},
		{name: "get firewall failed", give: gcecloud.FirewallsGet, giveNth: 1, wantOldLeak: true},
		{name: "create firewall failed", give: gcecloud.FirewallsInsert, giveNth: 1, wantOldLeak: true},
		{name: "get backend service failed", give: gcecloud.BackendServicesGet, giveNth: 1, wantOldLeak: true},
		{name: "create backend service failed", give: gcecloud.BackendServicesInsert, giveNth: 1, wantOldLeak: true},
		{name: "create forwarding rule failed", give: gcecloud.ForwardingRulesInsert, giveNth: 1, wantOldLeak: true},
		{name: "get forwarding rule after create failed", give: gcecloud.ForwardingRulesGet, giveNth: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Run("v1.20.1", func(t *testing.T) {
				c := gcecloud.New()
				c.Fail(tt.give, tt.giveNth, nil)

				st, err := ilb.EnsureV1201(t.Context(), c, newService())
				require.ErrorIs(t, err, gcecloud.ErrInjected)
				assert.Nil(t, st)

				got := lookUpReservation(t, c)
				if tt.wantOldLeak {
					// The bug, kept reproducible: the failed sync left its reservation.
					require.NotNil(t, got, "the v1.20.1 shape no longer leaks: the reproduction has rotted")
					if diff := cmp.Diff(wantAddress, *got); diff != "" {
						t.Errorf("leaked reservation (-want +got):\n%s", diff)
					}
					return
				}
				assert.Nil(t, got, "reservation left behind")
			})
			t.Run("fixed", func(t *testing.T) {
				ctx := leasetest.Context(t, t.Context()) // no lease may be left Held or Orphaned
				c := gcecloud.New()
				c.Fail(tt.give, tt.giveNth, nil)

				st, err := ilb.Ensure(ctx, c, newService())
				require.ErrorIs(t, err, gcecloud.ErrInjected)
				assert.Nil(t, st)
				var orphan *lease.OrphanError
				assert.False(t, errors.As(err, &orphan), "unexpected orphan: %v", err)

				assert.Nil(t, lookUpReservation(t, c), "reservation left behind")
			})
		})
	}
}

// TestEnsureEveryCall is the exhaustive form of TestEnsureInternalLoadBalancerErrors: it fails
// every call a successful ensure makes, whatever that list becomes, and derives from the call
// log where the old shape must leak: after the reservation and before the release.
func TestEnsureEveryCall(t *testing.T) {
	type call struct {
		op  gcecloud.Op
		nth int
	}
	// calls runs ensure without faults and returns its calls, and the indexes of the one that
	// reserved the address and the one that released it.
	calls := func(t *testing.T, ensure func(context.Context, *gcecloud.Cloud) error) (list []call, reserve, release int) {
		c := gcecloud.New()
		require.NoError(t, ensure(t.Context(), c))
		reserve, release = -1, -1
		count := map[gcecloud.Op]int{}
		for i, got := range c.Calls() {
			count[got.Op]++
			list = append(list, call{got.Op, count[got.Op]})
			switch {
			case got.Op == gcecloud.AddressesInsert && got.Err == nil:
				reserve = i
			case got.Op == gcecloud.AddressesDelete && got.Name == lbName:
				release = i
			}
		}
		require.NotEqual(t, -1, reserve, "no reservation in %v", c.Calls())
		require.Greater(t, release, reserve, "no release after the reservation in %v", c.Calls())
		return list, reserve, release
	}

	t.Run("v1.20.1", func(t *testing.T) {
		ensure := func(ctx context.Context, c *gcecloud.Cloud) error {
			_, err := ilb.EnsureV1201(ctx, c, newService())
			return err
		}
		list, reserve, release := calls(t, ensure)
		for i, give := range list {
			t.Run(fmt.Sprintf("%s #%d", give.op, give.nth), func(t *testing.T) {
				c := gcecloud.New()
				c.Fail(give.op, give.nth, nil)
				err := ensure(t.Context(), c)

				left := lookUpReservation(t, c) != nil
				switch {
				case i == release:
					// v1.20.1 only logged a failed release and reported success.
					require.NoError(t, err)
					assert.True(t, left, "a failed release must leave the reservation")
				case i > reserve && i < release:
					require.Error(t, err)
					assert.True(t, left, "the v1.20.1 shape no longer leaks: the reproduction has rotted")
				default:
					require.Error(t, err)
					assert.False(t, left, "reservation left behind")
				}
			})
		}
	})
	t.Run("fixed", func(t *testing.T) {
		list, _, release := calls(t, func(ctx context.Context, c *gcecloud.Cloud) error {
			_, err := ilb.Ensure(ctx, c, newService())
			return err
		})
		for i, give := range list {
			t.Run(fmt.Sprintf("%s #%d", give.op, give.nth), func(t *testing.T) {
				c := gcecloud.New()
				c.Fail(give.op, give.nth, nil)
				orphans := 0
				_, err := ilb.Ensure(t.Context(), c, newService(),
					acquire.OnOrphan(func(context.Context, *lease.OrphanError) { orphans++ }))
				require.ErrorIs(t, err, gcecloud.ErrInjected)

				var orphan *lease.OrphanError
				if i == release {
					// The one call whose failure leaves the address: the release itself. It is
					// reported, not lost.
					require.ErrorAs(t, err, &orphan)
					assert.Equal(t, 1, orphans)
					assert.NotNil(t, lookUpReservation(t, c))
					return
				}
				assert.False(t, errors.As(err, &orphan), "unexpected orphan: %v", err)
				assert.Zero(t, orphans)
				assert.Nil(t, lookUpReservation(t, c), "reservation left behind")
			})
		}
	})
}

// shapes lists the versions of ensure for tests that check what they have in common.
var shapes = []struct {
	name   string
	ensure func(ctx context.Context, c *gcecloud.Cloud, svc *corev1.Service) (*corev1.LoadBalancerStatus, error)
}{
	{"v1.20.1", ilb.EnsureV1201},
	{"fixed", func(ctx context.Context, c *gcecloud.Cloud, svc *corev1.Service) (*corev1.LoadBalancerStatus, error) {
		return ilb.Ensure(ctx, c, svc)
	}},
	{"v1.20.2", ilb.EnsureV1202},
}

func TestEnsureSuccess(t *testing.T) {
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			ctx := leasetest.Context(t, t.Context())
			c := gcecloud.New()

			st, err := sh.ensure(ctx, c, newService())
			require.NoError(t, err)
			assert.Equal(t, wantStatus("10.128.0.2"), st)
			if diff := cmp.Diff(wantState("10.128.0.2"), c.State()); diff != "" {
				t.Errorf("state after ensure (-want +got):\n%s", diff)
			}

			// A second sync holds the rule's IP again while it works, and changes nothing.
			st, err = sh.ensure(ctx, c, newService())
			require.NoError(t, err)
			assert.Equal(t, wantStatus("10.128.0.2"), st)
			if diff := cmp.Diff(wantState("10.128.0.2"), c.State()); diff != "" {
				t.Errorf("state after the second ensure (-want +got):\n%s", diff)
			}

			require.NoError(t, ilb.EnsureDeleted(ctx, c, newService()))
			assert.Equal(t, gcecloud.State{}, c.State())
			require.NoError(t, ilb.EnsureDeleted(ctx, c, newService()), "deleting twice")
		})
	}
}

// TestEnsurePortsChangeKeepsIP is the reason the reservation exists: the forwarding rule is
// deleted and created again, and the reservation keeps its IP in between.
func TestEnsurePortsChangeKeepsIP(t *testing.T) {
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			ctx := t.Context()
			c := gcecloud.New()
			_, err := sh.ensure(ctx, c, newService())
			require.NoError(t, err)

			svc := newService()
			svc.Spec.Ports = svc.Spec.Ports[:1]
			st, err := sh.ensure(ctx, c, svc)
			require.NoError(t, err)
			assert.Equal(t, wantStatus("10.128.0.2"), st)
			want := gcecloud.ForwardingRule{
				Name: lbName, IP: "10.128.0.2", Protocol: "TCP", Ports: []string{"80"}, BackendService: "k8s-bs-" + lbName,
			}
			if diff := cmp.Diff([]gcecloud.ForwardingRule{want}, c.State().ForwardingRules); diff != "" {
				t.Errorf("forwarding rules (-want +got):\n%s", diff)
			}
			assert.Contains(t, c.Calls(), gcecloud.Call{Op: gcecloud.ForwardingRulesDelete, Name: lbName})
			assert.Nil(t, lookUpReservation(t, c))
		})
	}
}

// TestEnsureFailingSyncsThenSuccess runs several syncs that fail after the reservation, then
// one that succeeds, on the same cloud. The old shape's leftover is found by name and reused
// by every sync, and released by the good one; the fixed shape leaves nothing after any sync.
func TestEnsureFailingSyncsThenSuccess(t *testing.T) {
	tests := []struct {
		name     string
		ensure   func(ctx context.Context, c *gcecloud.Cloud, svc *corev1.Service) (*corev1.LoadBalancerStatus, error)
		wantLeft []gcecloud.Address // the addresses after each failing sync
	}{
		{name: "v1.20.1", ensure: shapes[0].ensure, wantLeft: []gcecloud.Address{wantAddress}},
		{name: "fixed", ensure: shapes[1].ensure, wantLeft: nil},
	}
	const syncs = 3
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			c := gcecloud.New()
			c.Fail(gcecloud.BackendServicesInsert, 0, nil)

			for i := range syncs {
				st, err := tt.ensure(ctx, c, newService())
				require.ErrorIs(t, err, gcecloud.ErrInjected, "sync %d", i+1)
				assert.Nil(t, st)
				if diff := cmp.Diff(tt.wantLeft, c.State().Addresses); diff != "" {
					t.Errorf("addresses after failing sync %d (-want +got):\n%s", i+1, diff)
				}
			}

			c.Heal()
			st, err := tt.ensure(ctx, c, newService())
			require.NoError(t, err)
			assert.Equal(t, wantStatus("10.128.0.2"), st)
			if diff := cmp.Diff(wantState("10.128.0.2"), c.State()); diff != "" {
				t.Errorf("state after the good sync (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEnsureCancelledContext cancels the sync's context in the middle of the ensure. The fake
// fails every call made under a cancelled context, so the fixed shape's release succeeds only
// because acquire runs it under context.WithoutCancel.
func TestEnsureCancelledContext(t *testing.T) {
	tests := []struct {
		name     string
		ensure   func(ctx context.Context, c *gcecloud.Cloud, svc *corev1.Service) (*corev1.LoadBalancerStatus, error)
		wantLeft []gcecloud.Address
	}{
		{name: "v1.20.1", ensure: shapes[0].ensure, wantLeft: []gcecloud.Address{wantAddress}},
		{name: "fixed", ensure: shapes[1].ensure, wantLeft: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(leasetest.Context(t, t.Context()))
			defer cancel()
			c := gcecloud.New()
			c.Before(gcecloud.FirewallsGet, 1, cancel)

			st, err := tt.ensure(ctx, c, newService())
			require.ErrorIs(t, err, context.Canceled)
			assert.Nil(t, st)
			if diff := cmp.Diff(tt.wantLeft, c.State().Addresses); diff != "" {
				t.Errorf("addresses (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEnsureReleaseFails makes the release itself fail. The old shape reports success and the
// reservation stays with nobody told. The fixed shape returns the orphan, tells the OnOrphan
// handler once, and the retry that the error causes releases the reservation by name.
func TestEnsureReleaseFails(t *testing.T) {
	t.Run("v1.20.1", func(t *testing.T) {
		c := gcecloud.New()
		c.Fail(gcecloud.AddressesDelete, 0, nil)
		st, err := ilb.EnsureV1201(t.Context(), c, newService())
		require.NoError(t, err, "v1.20.1 only logged a failed release")
		assert.Equal(t, wantStatus("10.128.0.2"), st)
		assert.Equal(t, []gcecloud.Address{wantAddress}, c.State().Addresses)
	})
	t.Run("fixed", func(t *testing.T) {
		ledger := new(lease.Ledger)
		ctx := lease.WithLedger(t.Context(), ledger)
		c := gcecloud.New()
		c.Fail(gcecloud.AddressesDelete, 0, nil)
		var heard []*lease.OrphanError
		onOrphan := acquire.OnOrphan(func(_ context.Context, err *lease.OrphanError) { heard = append(heard, err) })

		st, err := ilb.Ensure(ctx, c, newService(), onOrphan)
		var orphan *lease.OrphanError
		require.ErrorAs(t, err, &orphan)
		require.ErrorIs(t, err, gcecloud.ErrInjected)
		assert.Equal(t, "address/"+lbName, orphan.Name)
		assert.Nil(t, st)
		require.Len(t, heard, 1, "OnOrphan must be called once")
		assert.Same(t, orphan, heard[0])

		// The load balancer is in place; only the reservation is left, and it was reported.
		want := wantState("10.128.0.2")
		want.Addresses = []gcecloud.Address{wantAddress}
		if diff := cmp.Diff(want, c.State()); diff != "" {
			t.Errorf("state after the failed release (-want +got):\n%s", diff)
		}
		left := ledger.Outstanding()
		require.Len(t, left, 1)
		assert.Equal(t, lease.Orphaned, left[0].State())

		// The retry finds the reservation by name, reuses it and releases it.
		c.Heal()
		heard = nil
		st, err = ilb.Ensure(ctx, c, newService(), onOrphan)
		require.NoError(t, err)
		assert.Equal(t, wantStatus("10.128.0.2"), st)
		assert.Empty(t, heard)
		assert.Nil(t, lookUpReservation(t, c))
	})
}

// TestEnsurePanicReleases panics in the middle of the ensure. The fixed shape still releases
// the reservation, then the panic goes on; the old shape leaks it.
func TestEnsurePanicReleases(t *testing.T) {
	tests := []struct {
		name     string
		ensure   func(ctx context.Context, c *gcecloud.Cloud, svc *corev1.Service) (*corev1.LoadBalancerStatus, error)
		wantLeft []gcecloud.Address
	}{
		{name: "v1.20.1", ensure: shapes[0].ensure, wantLeft: []gcecloud.Address{wantAddress}},
		{name: "fixed", ensure: shapes[1].ensure, wantLeft: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := leasetest.Context(t, t.Context())
			c := gcecloud.New()
			c.Before(gcecloud.BackendServicesGet, 1, func() { panic("boom") })

			assert.PanicsWithValue(t, "boom", func() { _, _ = tt.ensure(ctx, c, newService()) })
			if diff := cmp.Diff(tt.wantLeft, c.State().Addresses); diff != "" {
				t.Errorf("addresses (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEnsureUsersAddress is the ownership case: the Service asks for an IP that the user
// reserved under their own name. Both shapes use it and never release it: not on success, not
// on failure, not when the load balancer is deleted.
func TestEnsureUsersAddress(t *testing.T) {
	users := gcecloud.Address{Name: "users-static-ip", IP: "10.128.0.50", Description: "reserved by hand"}
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			ctx := leasetest.Context(t, t.Context())
			c := gcecloud.New()
			_, err := c.InsertAddress(ctx, users)
			require.NoError(t, err)
			svc := newService()
			svc.Spec.LoadBalancerIP = users.IP
			// Any attempt to delete an address fails, so a release of the user's address, or
			// of one of ours, would show up as an error or an orphan.
			c.Fail(gcecloud.AddressesDelete, 0, nil)
			c.Fail(gcecloud.FirewallsInsert, 1, nil)

			_, err = sh.ensure(ctx, c, svc)
			require.ErrorIs(t, err, gcecloud.ErrInjected)
			assert.Equal(t, []gcecloud.Address{users}, c.State().Addresses, "after a failing sync")

			st, err := sh.ensure(ctx, c, svc)
			require.NoError(t, err)
			assert.Equal(t, wantStatus(users.IP), st)
			want := wantState(users.IP)
			want.Addresses = []gcecloud.Address{users}
			if diff := cmp.Diff(want, c.State()); diff != "" {
				t.Errorf("state after a good sync (-want +got):\n%s", diff)
			}
			for _, call := range c.Calls() {
				assert.NotEqual(t, gcecloud.AddressesDelete, call.Op, "ensure tried to release: %v", call)
			}

			c.Heal()
			require.NoError(t, ilb.EnsureDeleted(ctx, c, svc))
			assert.Equal(t, gcecloud.State{Addresses: []gcecloud.Address{users}}, c.State())
		})
	}
}

// TestEnsureReservationRace covers the address manager's odd case: the reservation of our own
// name appears between our lookup and our insert (two controllers, or a slow earlier call). It
// is ours, so it is released like any other reservation of ours.
func TestEnsureReservationRace(t *testing.T) {
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			ctx := leasetest.Context(t, t.Context())
			c := gcecloud.New()
			svc := newService()
			svc.Spec.LoadBalancerIP = "10.128.0.9"
			c.Before(gcecloud.AddressesInsert, 1, func() {
				_, err := c.InsertAddress(context.Background(), gcecloud.Address{Name: lbName, IP: "10.128.0.9"})
				assert.NoError(t, err)
			})

			st, err := sh.ensure(ctx, c, svc)
			require.NoError(t, err)
			assert.Equal(t, wantStatus("10.128.0.9"), st)
			assert.Contains(t, c.Calls(), gcecloud.Call{Op: gcecloud.AddressesGetByIP, Name: "10.128.0.9"})
			assert.Nil(t, lookUpReservation(t, c))
		})
	}
}

func TestEnsureInvalidService(t *testing.T) {
	tests := []struct {
		name string
		give func(svc *corev1.Service) *corev1.Service
		want string
	}{
		{"nil", func(*corev1.Service) *corev1.Service { return nil }, "ilb: nil service"},
		{"no UID", func(s *corev1.Service) *corev1.Service { s.UID = ""; return s }, "ilb: service default/web has no UID"},
		{"no ports", func(s *corev1.Service) *corev1.Service { s.Spec.Ports = nil; return s }, "ilb: service default/web has no ports"},
		{
			"SCTP",
			func(s *corev1.Service) *corev1.Service { s.Spec.Ports[0].Protocol = corev1.ProtocolSCTP; return s },
			"ilb: service default/web: protocol SCTP: only TCP and UDP are supported",
		},
		{
			"mixed protocols",
			func(s *corev1.Service) *corev1.Service { s.Spec.Ports[1].Protocol = corev1.ProtocolUDP; return s },
			"ilb: service default/web mixes protocols TCP and UDP",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, sh := range shapes {
				c := gcecloud.New()
				_, err := sh.ensure(t.Context(), c, tt.give(newService()))
				require.EqualError(t, err, tt.want, sh.name)
				require.EqualError(t, ilb.EnsureDeleted(t.Context(), c, tt.give(newService())), tt.want)
				assert.Empty(t, c.Calls(), "%s called the cloud for an invalid service", sh.name)
			}
		})
	}
}

func TestEnsureDeletedStopsOnError(t *testing.T) {
	ctx := t.Context()
	c := gcecloud.New()
	_, err := ilb.Ensure(ctx, c, newService())
	require.NoError(t, err)

	c.Fail(gcecloud.BackendServicesDelete, 1, nil)
	err = ilb.EnsureDeleted(ctx, c, newService())
	require.ErrorIs(t, err, gcecloud.ErrInjected)
	assert.Empty(t, c.State().ForwardingRules, "deleted before the failure")
	assert.NotEmpty(t, c.State().BackendServices)

	require.NoError(t, ilb.EnsureDeleted(ctx, c, newService()))
	assert.Equal(t, gcecloud.State{}, c.State())
}

// TestEnsureConcurrent ensures several Services at once on one cloud, each with a failure
// after its reservation. Under -race it checks that the shapes and the fake are safe for
// concurrent use; the result checks that no reservation was left.
func TestEnsureConcurrent(t *testing.T) {
	ctx := leasetest.Context(t, t.Context())
	c := gcecloud.New()
	c.Fail(gcecloud.BackendServicesInsert, 0, nil)
	const n = 8
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			svc := newService()
			svc.UID = types.UID(fmt.Sprintf("%08d-0000-0000-0000-000000000000", i))
			_, err := ilb.Ensure(ctx, c, svc)
			assert.ErrorIs(t, err, gcecloud.ErrInjected)
		}()
	}
	wg.Wait()
	assert.Empty(t, c.State().Addresses)
	assert.Len(t, c.State().Firewalls, n)
}
