package gcecloud_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/safereconcile/safereconcile/examples/gceaddress/gcecloud"
)

// withBackend returns a cloud holding a health check "hc" and a backend service "bs", so that
// forwarding rules can be created.
func withBackend(t *testing.T) *gcecloud.Cloud {
	t.Helper()
	c := gcecloud.New()
	ctx := t.Context()
	require.NoError(t, c.InsertHealthCheck(ctx, gcecloud.HealthCheck{Name: "hc", Path: "/healthz", Port: 10256}))
	require.NoError(t, c.InsertBackendService(ctx, gcecloud.BackendService{Name: "bs", Protocol: "TCP", HealthCheck: "hc"}))
	return c
}

func TestInsertAddress(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(ctx context.Context, c *gcecloud.Cloud) error // runs before the insert
		give    gcecloud.Address
		want    gcecloud.Address
		wantErr error
	}{
		{
			name: "any IP gets the lowest free one",
			give: gcecloud.Address{Name: "a1"},
			want: gcecloud.Address{Name: "a1", IP: "10.128.0.2"},
		},
		{
			name: "a given IP is reserved as given, canonicalised",
			give: gcecloud.Address{Name: "a1", IP: "10.128.3.7", Description: "d"},
			want: gcecloud.Address{Name: "a1", IP: "10.128.3.7", Description: "d"},
		},
		{
			name: "the lowest free IP skips reserved and used ones",
			setup: func(ctx context.Context, c *gcecloud.Cloud) error {
				if _, err := c.InsertAddress(ctx, gcecloud.Address{Name: "x", IP: "10.128.0.2"}); err != nil {
					return err
				}
				_, err := c.InsertForwardingRule(ctx, gcecloud.ForwardingRule{Name: "fr", IP: "10.128.0.3", BackendService: "bs"})
				return err
			},
			give: gcecloud.Address{Name: "a1"},
			want: gcecloud.Address{Name: "a1", IP: "10.128.0.4"},
		},
		{
			name: "a released IP is handed out again",
			setup: func(ctx context.Context, c *gcecloud.Cloud) error {
				if _, err := c.InsertAddress(ctx, gcecloud.Address{Name: "x"}); err != nil {
					return err
				}
				return c.DeleteAddress(ctx, "x")
			},
			give: gcecloud.Address{Name: "a1"},
			want: gcecloud.Address{Name: "a1", IP: "10.128.0.2"},
		},
		{
			name: "the IP of a forwarding rule may be reserved",
			setup: func(ctx context.Context, c *gcecloud.Cloud) error {
				_, err := c.InsertForwardingRule(ctx, gcecloud.ForwardingRule{Name: "fr", BackendService: "bs"})
				return err
			},
			give: gcecloud.Address{Name: "a1", IP: "10.128.0.2"},
			want: gcecloud.Address{Name: "a1", IP: "10.128.0.2"},
		},
		{
			name: "an existing name conflicts",
			setup: func(ctx context.Context, c *gcecloud.Cloud) error {
				_, err := c.InsertAddress(ctx, gcecloud.Address{Name: "a1"})
				return err
			},
			give:    gcecloud.Address{Name: "a1", IP: "10.128.0.9"},
			wantErr: gcecloud.ErrConflict,
		},
		{
			name: "an IP another address reserves conflicts",
			setup: func(ctx context.Context, c *gcecloud.Cloud) error {
				_, err := c.InsertAddress(ctx, gcecloud.Address{Name: "users-ip", IP: "10.128.0.50"})
				return err
			},
			give:    gcecloud.Address{Name: "a1", IP: "10.128.0.50"},
			wantErr: gcecloud.ErrConflict,
		},
		{
			name:    "an IP outside the subnet is invalid",
			give:    gcecloud.Address{Name: "a1", IP: "192.0.2.1"},
			wantErr: gcecloud.ErrInvalid,
		},
		{
			name:    "a malformed IP is invalid",
			give:    gcecloud.Address{Name: "a1", IP: "10.128.0"},
			wantErr: gcecloud.ErrInvalid,
		},
		{
			name:    "an empty name is invalid",
			give:    gcecloud.Address{},
			wantErr: gcecloud.ErrInvalid,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			c := withBackend(t)
			if tt.setup != nil {
				require.NoError(t, tt.setup(ctx, c))
			}
			before := c.State()

			got, err := c.InsertAddress(ctx, tt.give)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.Equal(t, gcecloud.Address{}, got)
				if diff := cmp.Diff(before, c.State()); diff != "" {
					t.Errorf("a failed insert changed the cloud (-want +got):\n%s", diff)
				}
				return
			}
			require.NoError(t, err)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("InsertAddress() (-want +got):\n%s", diff)
			}
			// Look it up again, by name and by IP, the way a caller would.
			byName, err := c.GetAddress(ctx, tt.give.Name)
			require.NoError(t, err)
			assert.Equal(t, tt.want, byName)
			byIP, err := c.GetAddressByIP(ctx, tt.want.IP)
			require.NoError(t, err)
			assert.Equal(t, tt.want, byIP)
		})
	}
}

func TestForwardingRuleKeepsIPAfterAddressRelease(t *testing.T) {
	ctx := t.Context()
	c := withBackend(t)

	a, err := c.InsertAddress(ctx, gcecloud.Address{Name: "lb"})
	require.NoError(t, err)
	fr, err := c.InsertForwardingRule(ctx, gcecloud.ForwardingRule{
		Name: "lb", IP: a.IP, Protocol: "TCP", Ports: []string{"80"}, BackendService: "bs",
	})
	require.NoError(t, err)
	require.NoError(t, c.DeleteAddress(ctx, "lb"))

	got, err := c.GetForwardingRule(ctx, "lb")
	require.NoError(t, err)
	assert.Equal(t, fr, got)
	assert.Equal(t, "10.128.0.2", got.IP)

	// The rule still owns its IP: the next free IP is another one.
	next, err := c.InsertAddress(ctx, gcecloud.Address{Name: "other"})
	require.NoError(t, err)
	assert.Equal(t, "10.128.0.3", next.IP)

	// And a second rule cannot take it.
	_, err = c.InsertForwardingRule(ctx, gcecloud.ForwardingRule{Name: "lb2", IP: fr.IP, BackendService: "bs"})
	require.ErrorIs(t, err, gcecloud.ErrConflict)
}

func TestReferences(t *testing.T) {
	tests := []struct {
		name string
		give func(ctx context.Context, c *gcecloud.Cloud) error
		want error
	}{
		{
			name: "backend service without its health check",
			give: func(ctx context.Context, c *gcecloud.Cloud) error {
				return c.InsertBackendService(ctx, gcecloud.BackendService{Name: "bs2", HealthCheck: "nope"})
			},
			want: gcecloud.ErrInvalid,
		},
		{
			name: "forwarding rule without its backend service",
			give: func(ctx context.Context, c *gcecloud.Cloud) error {
				_, err := c.InsertForwardingRule(ctx, gcecloud.ForwardingRule{Name: "fr", BackendService: "nope"})
				return err
			},
			want: gcecloud.ErrInvalid,
		},
		{
			name: "health check used by a backend service",
			give: func(ctx context.Context, c *gcecloud.Cloud) error { return c.DeleteHealthCheck(ctx, "hc") },
			want: gcecloud.ErrInUse,
		},
		{
			name: "backend service used by a forwarding rule",
			give: func(ctx context.Context, c *gcecloud.Cloud) error {
				if _, err := c.InsertForwardingRule(ctx, gcecloud.ForwardingRule{Name: "fr", BackendService: "bs"}); err != nil {
					return fmt.Errorf("setup: %w", err)
				}
				return c.DeleteBackendService(ctx, "bs")
			},
			want: gcecloud.ErrInUse,
		},
		{
			name: "forwarding rule name exists",
			give: func(ctx context.Context, c *gcecloud.Cloud) error {
				if _, err := c.InsertForwardingRule(ctx, gcecloud.ForwardingRule{Name: "fr", BackendService: "bs"}); err != nil {
					return fmt.Errorf("setup: %w", err)
				}
				_, err := c.InsertForwardingRule(ctx, gcecloud.ForwardingRule{Name: "fr", BackendService: "bs"})
				return err
			},
			want: gcecloud.ErrConflict,
		},
		{
			name: "firewall name exists",
			give: func(ctx context.Context, c *gcecloud.Cloud) error {
				if err := c.InsertFirewall(ctx, gcecloud.Firewall{Name: "fw"}); err != nil {
					return fmt.Errorf("setup: %w", err)
				}
				return c.InsertFirewall(ctx, gcecloud.Firewall{Name: "fw"})
			},
			want: gcecloud.ErrConflict,
		},
		{
			name: "health check name exists",
			give: func(ctx context.Context, c *gcecloud.Cloud) error {
				return c.InsertHealthCheck(ctx, gcecloud.HealthCheck{Name: "hc"})
			},
			want: gcecloud.ErrConflict,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.give(t.Context(), withBackend(t))
			require.ErrorIs(t, err, tt.want)
		})
	}
}

func TestNotFound(t *testing.T) {
	tests := []struct {
		name string
		give func(ctx context.Context, c *gcecloud.Cloud) error
	}{
		{"get address", func(ctx context.Context, c *gcecloud.Cloud) error { _, err := c.GetAddress(ctx, "x"); return err }},
		{"get address by IP", func(ctx context.Context, c *gcecloud.Cloud) error {
			_, err := c.GetAddressByIP(ctx, "10.128.0.9")
			return err
		}},
		{"delete address", func(ctx context.Context, c *gcecloud.Cloud) error { return c.DeleteAddress(ctx, "x") }},
		{"get firewall", func(ctx context.Context, c *gcecloud.Cloud) error { _, err := c.GetFirewall(ctx, "x"); return err }},
		{"delete firewall", func(ctx context.Context, c *gcecloud.Cloud) error { return c.DeleteFirewall(ctx, "x") }},
		{"get health check", func(ctx context.Context, c *gcecloud.Cloud) error { _, err := c.GetHealthCheck(ctx, "x"); return err }},
		{"delete health check", func(ctx context.Context, c *gcecloud.Cloud) error { return c.DeleteHealthCheck(ctx, "x") }},
		{"get backend service", func(ctx context.Context, c *gcecloud.Cloud) error {
			_, err := c.GetBackendService(ctx, "x")
			return err
		}},
		{"delete backend service", func(ctx context.Context, c *gcecloud.Cloud) error { return c.DeleteBackendService(ctx, "x") }},
		{"get forwarding rule", func(ctx context.Context, c *gcecloud.Cloud) error {
			_, err := c.GetForwardingRule(ctx, "x")
			return err
		}},
		{"delete forwarding rule", func(ctx context.Context, c *gcecloud.Cloud) error { return c.DeleteForwardingRule(ctx, "x") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.give(t.Context(), gcecloud.New())
			require.ErrorIs(t, err, gcecloud.ErrNotFound)
		})
	}
}

func TestDeleteEverything(t *testing.T) {
	ctx := t.Context()
	c := withBackend(t)
	_, err := c.InsertAddress(ctx, gcecloud.Address{Name: "a"})
	require.NoError(t, err)
	require.NoError(t, c.InsertFirewall(ctx, gcecloud.Firewall{Name: "fw", Ports: []string{"80"}}))
	_, err = c.InsertForwardingRule(ctx, gcecloud.ForwardingRule{Name: "fr", BackendService: "bs"})
	require.NoError(t, err)

	require.NoError(t, c.DeleteForwardingRule(ctx, "fr"))
	require.NoError(t, c.DeleteBackendService(ctx, "bs"))
	require.NoError(t, c.DeleteHealthCheck(ctx, "hc"))
	require.NoError(t, c.DeleteFirewall(ctx, "fw"))
	require.NoError(t, c.DeleteAddress(ctx, "a"))
	assert.Equal(t, gcecloud.State{}, c.State())
}

func TestFail(t *testing.T) {
	custom := errors.New("quota exceeded")
	tests := []struct {
		name  string
		prior int // successful calls of the op made before the fault is added
		nth   int
		err   error
		calls int   // calls made after the fault is added
		want  []int // which of them (1-based) fail
		wantE error
	}{
		{name: "the next call", nth: 1, calls: 3, want: []int{1}, wantE: gcecloud.ErrInjected},
		{name: "the second call", nth: 2, calls: 3, want: []int{2}, wantE: gcecloud.ErrInjected},
		{name: "counted from when it is added", prior: 2, nth: 2, calls: 3, want: []int{2}, wantE: gcecloud.ErrInjected},
		{name: "every call", nth: 0, calls: 3, want: []int{1, 2, 3}, wantE: gcecloud.ErrInjected},
		{name: "a given error", nth: 1, err: custom, calls: 2, want: []int{1}, wantE: custom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			c := gcecloud.New()
			_, err := c.InsertAddress(ctx, gcecloud.Address{Name: "a"})
			require.NoError(t, err)
			for range tt.prior {
				_, err := c.GetAddress(ctx, "a")
				require.NoError(t, err)
			}

			c.Fail(gcecloud.AddressesGet, tt.nth, tt.err)
			var failed []int
			for i := 1; i <= tt.calls; i++ {
				got, err := c.GetAddress(ctx, "a")
				if err != nil {
					require.ErrorIs(t, err, tt.wantE)
					assert.Equal(t, gcecloud.Address{}, got)
					failed = append(failed, i)
				}
			}
			assert.Equal(t, tt.want, failed)

			// Other operations are not affected.
			_, err = c.GetAddressByIP(ctx, "10.128.0.2")
			require.NoError(t, err)
		})
	}
}

func TestFailChangesNothing(t *testing.T) {
	ctx := t.Context()
	c := withBackend(t)
	_, err := c.InsertAddress(ctx, gcecloud.Address{Name: "a"})
	require.NoError(t, err)
	before := c.State()

	c.Fail(gcecloud.AddressesDelete, 0, nil)
	c.Fail(gcecloud.FirewallsInsert, 0, nil)
	c.Fail(gcecloud.ForwardingRulesInsert, 0, nil)
	require.ErrorIs(t, c.DeleteAddress(ctx, "a"), gcecloud.ErrInjected)
	require.ErrorIs(t, c.InsertFirewall(ctx, gcecloud.Firewall{Name: "fw"}), gcecloud.ErrInjected)
	_, err = c.InsertForwardingRule(ctx, gcecloud.ForwardingRule{Name: "fr", BackendService: "bs"})
	require.ErrorIs(t, err, gcecloud.ErrInjected)
	if diff := cmp.Diff(before, c.State()); diff != "" {
		t.Errorf("failed calls changed the cloud (-want +got):\n%s", diff)
	}

	c.Heal()
	require.NoError(t, c.DeleteAddress(ctx, "a"))
	assert.Empty(t, c.State().Addresses)
}

func TestBeforeCancelsTheCall(t *testing.T) {
	c := gcecloud.New()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()

	c.Before(gcecloud.AddressesInsert, 2, cancel)
	_, err := c.InsertAddress(ctx, gcecloud.Address{Name: "first"})
	require.NoError(t, err)
	_, err = c.InsertAddress(ctx, gcecloud.Address{Name: "second"})
	require.ErrorIs(t, err, context.Canceled)

	// The cancelled call changed nothing, and the context stays cancelled for later calls, while
	// a context that is not cancelled still works.
	assert.Equal(t, []gcecloud.Address{{Name: "first", IP: "10.128.0.2"}}, c.State().Addresses)
	require.ErrorIs(t, c.DeleteAddress(ctx, "first"), context.Canceled)
	require.NoError(t, c.DeleteAddress(context.WithoutCancel(ctx), "first"))
	assert.Empty(t, c.State().Addresses)
}

func TestBeforePanicsOnMisuse(t *testing.T) {
	c := gcecloud.New()
	assert.PanicsWithValue(t, "gcecloud: Before with a nil function", func() { c.Before(gcecloud.AddressesGet, 1, nil) })
	assert.Panics(t, func() { c.Fail(gcecloud.AddressesGet, -1, nil) })
}

func TestCalls(t *testing.T) {
	ctx := t.Context()
	c := gcecloud.New()
	c.Fail(gcecloud.AddressesDelete, 1, nil)

	_, err := c.InsertAddress(ctx, gcecloud.Address{Name: "a"})
	require.NoError(t, err)
	_, err = c.GetAddress(ctx, "b")
	require.Error(t, err)
	require.Error(t, c.DeleteAddress(ctx, "a"))
	_, err = c.GetAddressByIP(ctx, "10.128.0.2")
	require.NoError(t, err)
	_ = c.State() // not a call

	want := []gcecloud.Call{
		{Op: gcecloud.AddressesInsert, Name: "a"},
		{Op: gcecloud.AddressesGet, Name: "b", Err: gcecloud.ErrNotFound},
		{Op: gcecloud.AddressesDelete, Name: "a", Err: gcecloud.ErrInjected},
		{Op: gcecloud.AddressesGetByIP, Name: "10.128.0.2"},
	}
	if diff := cmp.Diff(want, c.Calls(), cmpopts.EquateErrors()); diff != "" {
		t.Errorf("Calls() (-want +got):\n%s", diff)
	}
	assert.Equal(t, `addresses.delete a: gcecloud: injected failure`, c.Calls()[2].String())
	assert.Equal(t, `addresses.insert a`, c.Calls()[0].String())
}

func TestResultsDoNotAlias(t *testing.T) {
	ctx := t.Context()
	c := withBackend(t)
	ports := []string{"80"}
	require.NoError(t, c.InsertFirewall(ctx, gcecloud.Firewall{Name: "fw", Ports: ports}))
	ports[0] = "changed by the caller"

	got, err := c.GetFirewall(ctx, "fw")
	require.NoError(t, err)
	got.Ports[0] = "changed again"
	assert.Equal(t, []string{"80"}, c.State().Firewalls[0].Ports)
}

// TestConcurrent runs calls from many goroutines; under -race it proves the cloud is safe for
// concurrent use, and the result proves each call was atomic: every reservation got its own IP.
func TestConcurrent(t *testing.T) {
	ctx := t.Context()
	c := gcecloud.New()
	const n = 32
	c.Fail(gcecloud.AddressesGet, 0, nil)

	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.InsertAddress(ctx, gcecloud.Address{Name: fmt.Sprintf("a%02d", i)})
			assert.NoError(t, err)
			_, err = c.GetAddress(ctx, "a00")
			assert.ErrorIs(t, err, gcecloud.ErrInjected)
			_ = c.State()
			_ = c.Calls()
		}()
	}
	wg.Wait()

	addrs := c.State().Addresses
	require.Len(t, addrs, n)
	seen := map[string]bool{}
	for _, a := range addrs {
		assert.False(t, seen[a.IP], "IP %s handed out twice", a.IP)
		seen[a.IP] = true
	}
	assert.Len(t, c.Calls(), 2*n)
}
