// Package fakecloud is a cloud of addresses and forwarding rules for the tests and the example
// controller of the orphans module: in memory, or served over HTTP on loopback so that a
// controller in another process uses the same cloud, and outlives that process.
//
// Every call is idempotent by name, as the orphans module's contract asks of releases: a
// second reservation of a name returns the same address, and releasing or deleting what is
// already gone succeeds.
package fakecloud

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sync"
)

// An Op is one kind of call to the cloud.
type Op string

// The cloud's calls.
const (
	ReserveAddress       Op = "reserve-address"
	ReleaseAddress       Op = "release-address"
	EnsureForwardingRule Op = "ensure-forwarding-rule"
	DeleteForwardingRule Op = "delete-forwarding-rule"
)

// A Hook sees every call twice: before it takes effect (done false) and after (done true).
// An error before stops the call, which then has no effect; an error after is returned in
// place of the result, as a lost response would be, although the call took effect. ctx is the
// call's; over HTTP it carries the [Client]'s Caller, which [Caller] returns.
type Hook func(ctx context.Context, op Op, name string, done bool) error

type callerKey struct{}

// Caller returns the Caller of the [Client] whose request ctx serves, or "".
func Caller(ctx context.Context) string {
	s, _ := ctx.Value(callerKey{}).(string)
	return s
}

// Cloud is an in-memory cloud. The zero Cloud is empty and ready to use; it is safe for
// concurrent use.
type Cloud struct {
	Hook Hook // may be nil; set before first use

	mu        sync.Mutex
	addresses map[string]string // name → IP
	rules     map[string]string // name → IP
	calls     map[Op]int
}

// IP returns the address the cloud gives the reservation called name: always the same one.
func IP(name string) string {
	h := fnv.New32a()
	h.Write([]byte(name))
	s := h.Sum32()
	return fmt.Sprintf("10.%d.%d.%d", byte(s>>16), byte(s>>8), byte(s)|1)
}

func (c *Cloud) do(ctx context.Context, op Op, name string, fn func()) error {
	if c.Hook != nil {
		if err := c.Hook(ctx, op, name, false); err != nil {
			return err
		}
	}
	c.mu.Lock()
	if c.calls == nil {
		c.calls = make(map[Op]int)
		c.addresses = make(map[string]string)
		c.rules = make(map[string]string)
	}
	c.calls[op]++
	fn()
	c.mu.Unlock()
	if c.Hook != nil {
		return c.Hook(ctx, op, name, true)
	}
	return nil
}

// ReserveAddress reserves an internal address called name and returns it.
func (c *Cloud) ReserveAddress(ctx context.Context, name string) (string, error) {
	ip := IP(name)
	err := c.do(ctx, ReserveAddress, name, func() { c.addresses[name] = ip })
	if err != nil {
		return "", err
	}
	return ip, nil
}

// ReleaseAddress releases the reservation called name; it succeeds when there is none.
func (c *Cloud) ReleaseAddress(ctx context.Context, name string) error {
	return c.do(ctx, ReleaseAddress, name, func() { delete(c.addresses, name) })
}

// EnsureForwardingRule creates or updates the forwarding rule called name to serve ip.
func (c *Cloud) EnsureForwardingRule(ctx context.Context, name, ip string) error {
	return c.do(ctx, EnsureForwardingRule, name, func() { c.rules[name] = ip })
}

// DeleteForwardingRule deletes the forwarding rule called name; it succeeds when there is none.
func (c *Cloud) DeleteForwardingRule(ctx context.Context, name string) error {
	return c.do(ctx, DeleteForwardingRule, name, func() { delete(c.rules, name) })
}

// Addresses returns the names of the reserved addresses, sorted.
func (c *Cloud) Addresses() []string { return c.names(func() map[string]string { return c.addresses }) }

// Rules returns the names of the forwarding rules, sorted.
func (c *Cloud) Rules() []string { return c.names(func() map[string]string { return c.rules }) }

func (c *Cloud) names(m func() map[string]string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for n := range m() {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Calls returns how many calls of op took effect.
func (c *Cloud) Calls(op Op) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[op]
}

// Handler serves c over HTTP: POST /<op>?name=<name>[&ip=<ip>]. A call that fails answers
// 500 with the error's text; a reservation answers the address.
func Handler(c *Cloud) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		name := q.Get("name")
		ctx := context.WithValue(r.Context(), callerKey{}, r.Header.Get("X-Caller"))
		var (
			ip  string
			err error
		)
		switch Op(r.URL.Path[1:]) {
		case ReserveAddress:
			ip, err = c.ReserveAddress(ctx, name)
		case ReleaseAddress:
			err = c.ReleaseAddress(ctx, name)
		case EnsureForwardingRule:
			err = c.EnsureForwardingRule(ctx, name, q.Get("ip"))
		case DeleteForwardingRule:
			err = c.DeleteForwardingRule(ctx, name)
		default:
			http.NotFound(w, r)
			return
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		_ = json.NewEncoder(w).Encode(ip)
	})
}

// A Client is the cloud served by [Handler] at BaseURL ("http://127.0.0.1:port").
type Client struct {
	BaseURL string
	HTTP    *http.Client // nil means http.DefaultClient
	Caller  string       // sent with each request, for the server's Hook (see [Caller])
	// OnFailure, if set, is called with each call that failed, before the error is returned.
	OnFailure func(op Op, name string, err error)
}

func (c *Client) call(ctx context.Context, op Op, name, ip string) (string, error) {
	q := url.Values{"name": {name}}
	if ip != "" {
		q.Set("ip", ip)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.BaseURL+"/"+string(op)+"?"+q.Encode(), nil)
	if err != nil {
		return "", err
	}
	if c.Caller != "" {
		req.Header.Set("X-Caller", c.Caller)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err == nil {
		defer resp.Body.Close()
		var body []byte
		body, err = io.ReadAll(io.LimitReader(resp.Body, 4096))
		if err == nil && resp.StatusCode != http.StatusOK {
			err = errors.New(string(trimNewline(body)))
		}
		if err == nil {
			err = json.Unmarshal(body, &ip)
		}
	}
	if err != nil {
		err = fmt.Errorf("fakecloud: %s %s: %w", op, name, err)
		if c.OnFailure != nil {
			c.OnFailure(op, name, err)
		}
		return "", err
	}
	return ip, nil
}

func trimNewline(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == '\n' {
		b = b[:len(b)-1]
	}
	return b
}

// ReserveAddress reserves an internal address called name and returns it.
func (c *Client) ReserveAddress(ctx context.Context, name string) (string, error) {
	return c.call(ctx, ReserveAddress, name, "")
}

// ReleaseAddress releases the reservation called name; it succeeds when there is none.
func (c *Client) ReleaseAddress(ctx context.Context, name string) error {
	_, err := c.call(ctx, ReleaseAddress, name, "")
	return err
}

// EnsureForwardingRule creates or updates the forwarding rule called name to serve ip.
func (c *Client) EnsureForwardingRule(ctx context.Context, name, ip string) error {
	_, err := c.call(ctx, EnsureForwardingRule, name, ip)
	return err
}

// DeleteForwardingRule deletes the forwarding rule called name; it succeeds when there is none.
func (c *Client) DeleteForwardingRule(ctx context.Context, name string) error {
	_, err := c.call(ctx, DeleteForwardingRule, name, "")
	return err
}
