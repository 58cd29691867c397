package upstream

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"github.com/GoogleCloudPlatform/k8s-cloud-provider/pkg/cloud"
	"github.com/GoogleCloudPlatform/k8s-cloud-provider/pkg/cloud/filter"
	"github.com/GoogleCloudPlatform/k8s-cloud-provider/pkg/cloud/meta"
	compute "google.golang.org/api/compute/v1"
	"google.golang.org/api/googleapi"
)

// A call is the nth call of an operation, named as package gcecloud names them
// ("addresses.insert"), counted per operation from 1.
type call struct {
	op  string
	nth int
}

func (c call) String() string { return fmt.Sprintf("%s #%d", c.op, c.nth) }

// An injector counts the calls a MockGCE serves for the operations the replica makes, logs
// them, and fails the one it is told to with an HTTP 500, as the canned error hooks of
// MockGCE (mock.InsertFirewallsUnauthorizedErrHook and the like) fail a call. MockGCE has no
// nth-call faults, so each hook counts; a hook that does not fail the call hands it on to the
// hook that was there before, or to MockGCE's own handling.
type injector struct {
	mu     sync.Mutex
	counts map[string]int
	log    []call
	fail   call // the zero call fails nothing
	fired  bool
	off    bool
}

// check counts a call of op and returns the error it must fail with, or nil.
func (in *injector) check(op string) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.off {
		return nil
	}
	in.counts[op]++
	c := call{op, in.counts[op]}
	in.log = append(in.log, c)
	if c != in.fail {
		return nil
	}
	in.fired = true
	return &googleapi.Error{Code: http.StatusInternalServerError, Message: "injected failure of " + c.String()}
}

// stop makes the injector count nothing and fail nothing from now on, so that the test can
// look at the cloud through the provider's own methods.
func (in *injector) stop() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.off = true
}

// calls returns the calls counted so far, in order, and whether the fault fired.
func (in *injector) calls() ([]call, bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]call(nil), in.log...), in.fired
}

// install hooks in onto m for every operation of the replica's fake, keeping the hooks that are
// already there.
func (in *injector) install(m *cloud.MockGCE) {
	in.counts = map[string]int{}

	addrGet := m.MockAddresses.GetHook
	m.MockAddresses.GetHook = func(ctx context.Context, key *meta.Key, mm *cloud.MockAddresses) (bool, *compute.Address, error) {
		if err := in.check("addresses.get"); err != nil {
			return true, nil, err
		}
		if addrGet != nil {
			return addrGet(ctx, key, mm)
		}
		return false, nil, nil
	}
	addrList := m.MockAddresses.ListHook // GetRegionAddressByIP lists, filtered by IP
	m.MockAddresses.ListHook = func(ctx context.Context, region string, fl *filter.F, mm *cloud.MockAddresses) (bool, []*compute.Address, error) {
		if err := in.check("addresses.getByIP"); err != nil {
			return true, nil, err
		}
		if addrList != nil {
			return addrList(ctx, region, fl, mm)
		}
		return false, nil, nil
	}
	addrInsert := m.MockAddresses.InsertHook
	m.MockAddresses.InsertHook = func(ctx context.Context, key *meta.Key, obj *compute.Address, mm *cloud.MockAddresses) (bool, error) {
		if err := in.check("addresses.insert"); err != nil {
			return true, err
		}
		if addrInsert != nil {
			return addrInsert(ctx, key, obj, mm)
		}
		return false, nil
	}
	addrDelete := m.MockAddresses.DeleteHook
	m.MockAddresses.DeleteHook = func(ctx context.Context, key *meta.Key, mm *cloud.MockAddresses) (bool, error) {
		if err := in.check("addresses.delete"); err != nil {
			return true, err
		}
		if addrDelete != nil {
			return addrDelete(ctx, key, mm)
		}
		return false, nil
	}

	fwGet := m.MockFirewalls.GetHook
	m.MockFirewalls.GetHook = func(ctx context.Context, key *meta.Key, mm *cloud.MockFirewalls) (bool, *compute.Firewall, error) {
		if err := in.check("firewalls.get"); err != nil {
			return true, nil, err
		}
		if fwGet != nil {
			return fwGet(ctx, key, mm)
		}
		return false, nil, nil
	}
	fwInsert := m.MockFirewalls.InsertHook
	m.MockFirewalls.InsertHook = func(ctx context.Context, key *meta.Key, obj *compute.Firewall, mm *cloud.MockFirewalls) (bool, error) {
		if err := in.check("firewalls.insert"); err != nil {
			return true, err
		}
		if fwInsert != nil {
			return fwInsert(ctx, key, obj, mm)
		}
		return false, nil
	}

	hcGet := m.MockHealthChecks.GetHook
	m.MockHealthChecks.GetHook = func(ctx context.Context, key *meta.Key, mm *cloud.MockHealthChecks) (bool, *compute.HealthCheck, error) {
		if err := in.check("healthChecks.get"); err != nil {
			return true, nil, err
		}
		if hcGet != nil {
			return hcGet(ctx, key, mm)
		}
		return false, nil, nil
	}
	hcInsert := m.MockHealthChecks.InsertHook
	m.MockHealthChecks.InsertHook = func(ctx context.Context, key *meta.Key, obj *compute.HealthCheck, mm *cloud.MockHealthChecks) (bool, error) {
		if err := in.check("healthChecks.insert"); err != nil {
			return true, err
		}
		if hcInsert != nil {
			return hcInsert(ctx, key, obj, mm)
		}
		return false, nil
	}

	bsGet := m.MockRegionBackendServices.GetHook
	m.MockRegionBackendServices.GetHook = func(ctx context.Context, key *meta.Key, mm *cloud.MockRegionBackendServices) (bool, *compute.BackendService, error) {
		if err := in.check("backendServices.get"); err != nil {
			return true, nil, err
		}
		if bsGet != nil {
			return bsGet(ctx, key, mm)
		}
		return false, nil, nil
	}
	bsInsert := m.MockRegionBackendServices.InsertHook
	m.MockRegionBackendServices.InsertHook = func(ctx context.Context, key *meta.Key, obj *compute.BackendService, mm *cloud.MockRegionBackendServices) (bool, error) {
		if err := in.check("backendServices.insert"); err != nil {
			return true, err
		}
		if bsInsert != nil {
			return bsInsert(ctx, key, obj, mm)
		}
		return false, nil
	}

	frGet := m.MockForwardingRules.GetHook
	m.MockForwardingRules.GetHook = func(ctx context.Context, key *meta.Key, mm *cloud.MockForwardingRules) (bool, *compute.ForwardingRule, error) {
		if err := in.check("forwardingRules.get"); err != nil {
			return true, nil, err
		}
		if frGet != nil {
			return frGet(ctx, key, mm)
		}
		return false, nil, nil
	}
	frInsert := m.MockForwardingRules.InsertHook
	m.MockForwardingRules.InsertHook = func(ctx context.Context, key *meta.Key, obj *compute.ForwardingRule, mm *cloud.MockForwardingRules) (bool, error) {
		if err := in.check("forwardingRules.insert"); err != nil {
			return true, err
		}
		if frInsert != nil {
			return frInsert(ctx, key, obj, mm)
		}
		return false, nil
	}
	frDelete := m.MockForwardingRules.DeleteHook
	m.MockForwardingRules.DeleteHook = func(ctx context.Context, key *meta.Key, mm *cloud.MockForwardingRules) (bool, error) {
		if err := in.check("forwardingRules.delete"); err != nil {
			return true, err
		}
		if frDelete != nil {
			return frDelete(ctx, key, mm)
		}
		return false, nil
	}
}
