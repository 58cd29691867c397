// Package compositehandoff hands what it acquires on inside a composite literal passed to
// a call, or to a Serve-like method that owns what it is given.
package compositehandoff

import (
	"context"
	"errors"
	"net"
	"net/http"

	"github.com/safereconcile/safereconcile/lease"
)

type address struct{ ip string }

func release(ctx context.Context, a address) error { return nil }

type entry struct {
	name  string
	lease *lease.Lease[address]
}

type stack struct{ entries []entry }

// push records e; when it reports false it has released e's lease itself.
func (s *stack) push(e entry) bool {
	s.entries = append(s.entries, e)
	return true
}

var errEnded = errors.New("ended")

// hold pushes the lease, in an entry, onto the stack that now owns it.
func hold(s *stack, a address) (*lease.Lease[address], error) {
	l := lease.New("address/"+a.ip, a, release)
	if ok := s.push(entry{name: "address", lease: l}); !ok {
		return nil, errEnded
	}
	return l, nil
}

// holdPointer pushes a pointer to the literal.
func holdPointer(s *[]*entry, a address) error {
	l := lease.New("address/"+a.ip, a, release)
	*s = append(*s, &entry{lease: l})
	return errEnded
}

type server struct{}

func (s *server) Serve(ln net.Listener) error { return nil }

// serve hands the listener to Serve, which closes it when it returns.
func serve(s *server, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return s.Serve(ln)
}

func describe(e entry) string { return e.name }

// describeOnly builds a literal that is used and dropped: nothing stores it, but the
// literal escapes into the call, which is a hand-off by this rule; the lease is released
// on the path that does not describe.
func describeOnly(ctx context.Context, a address) (string, error) {
	l := lease.New("address/"+a.ip, a, release)
	if a.ip == "" {
		return "", errors.Join(errEnded, l.Release(ctx))
	}
	if a.ip == "-" {
		return "", errEnded // want `return may skip l.Release \(New at line 68\)`
	}
	return describe(entry{lease: l}), nil
}

// serveOn hands its listener to http.Server.Serve: a helper that gives a Serve-like method
// its parameter keeps it, as the Serve would.
func serveOn(s *server, ln net.Listener, spec string) error {
	if spec == "" {
		return s.Serve(ln)
	}
	hs := &http.Server{}
	return hs.Serve(ln)
}

// listenAndServe gives the listener to serveOn: handed on at its return, kept before it.
func listenAndServe(s *server, addr, spec string, write func() error) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if err := write(); err != nil {
		return err // want `return may skip ln.Close \(Listen at line 90\)`
	}
	return serveOn(s, ln, spec)
}

// ServeNothing is a function, not a method: its summary decides, and it only reads.
func ServeNothing(ln net.Listener) error { _ = ln.Addr(); return nil }

// listenServeNothing is still the owner of its listener after ServeNothing.
func listenServeNothing(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if err := ServeNothing(ln); err != nil {
		return err // want `return may skip ln.Close \(Listen at line 105\)`
	}
	return nil // want `return may skip ln.Close \(Listen at line 105\)`
}
