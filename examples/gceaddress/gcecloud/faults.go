package gcecloud

import (
	"context"
	"fmt"
)

// Op names one method of the cloud API, the way the Compute Engine API names it. Faults are
// set per Op.
type Op string

// The operations a [Cloud] serves.
const (
	AddressesGet     Op = "addresses.get"
	AddressesGetByIP Op = "addresses.getByIP" // addresses.list filtered by IP in the real API
	AddressesInsert  Op = "addresses.insert"
	AddressesDelete  Op = "addresses.delete"

	FirewallsGet    Op = "firewalls.get"
	FirewallsInsert Op = "firewalls.insert"
	FirewallsDelete Op = "firewalls.delete"

	HealthChecksGet    Op = "healthChecks.get"
	HealthChecksInsert Op = "healthChecks.insert"
	HealthChecksDelete Op = "healthChecks.delete"

	BackendServicesGet    Op = "backendServices.get"
	BackendServicesInsert Op = "backendServices.insert"
	BackendServicesDelete Op = "backendServices.delete"

	ForwardingRulesGet    Op = "forwardingRules.get"
	ForwardingRulesInsert Op = "forwardingRules.insert"
	ForwardingRulesDelete Op = "forwardingRules.delete"
)

// fault is one injected fault: before runs and then err is returned at call number at of op, or
// at every call when at is 0.
type fault struct {
	op     Op
	at     int
	err    error
	before func()
}

// Fail makes a call of op fail with err, or with [ErrInjected] when err is nil, without changing
// anything. nth counts the calls of op from now: 1 is the next call, 2 the one after; 0 means
// every call until [Cloud.Heal]. A failed call is still logged and counted. Fail panics when nth
// is negative.
func (c *Cloud) Fail(op Op, nth int, err error) {
	if err == nil {
		err = ErrInjected
	}
	c.add(op, nth, fault{op: op, err: err})
}

// Before makes fn run just before a call of op, in the caller's goroutine and without any lock
// held; nth counts as in [Cloud.Fail]. The call then goes on as usual, so a fn that cancels the
// caller's context makes that very call fail with the context's error: this is how a test
// cancels a context in the middle of an ensure, deterministically. Before panics when fn is nil
// or nth is negative.
func (c *Cloud) Before(op Op, nth int, fn func()) {
	if fn == nil {
		panic("gcecloud: Before with a nil function")
	}
	c.add(op, nth, fault{op: op, before: fn})
}

// Heal removes every fault added by [Cloud.Fail] and [Cloud.Before]. Calls that are already
// past their fault check are not affected.
func (c *Cloud) Heal() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.faults = nil
}

func (c *Cloud) add(op Op, nth int, f fault) {
	if nth < 0 {
		panic(fmt.Sprintf("gcecloud: fault for %s on call %d: calls are counted from 1", op, nth))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if nth > 0 {
		f.at = c.counts[op] + nth
	}
	c.faults = append(c.faults, f)
}

// inject applies the faults for call number nth of op: it runs the matching Before functions in
// the order they were added, then returns ctx's error if ctx is done (a real client checks its
// context before sending), and otherwise the first matching injected error, or nil.
func (c *Cloud) inject(ctx context.Context, op Op, nth int) error {
	c.mu.Lock()
	var before []func()
	var err error
	for _, f := range c.faults {
		if f.op != op || (f.at != 0 && f.at != nth) {
			continue
		}
		if f.before != nil {
			before = append(before, f.before)
		}
		if f.err != nil && err == nil {
			err = f.err
		}
	}
	c.mu.Unlock()

	// Outside the lock: fn may call back into the cloud (State, Calls, Heal).
	for _, fn := range before {
		fn()
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	return err
}
