//go:build linux

package netnstest

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"
)

// A UDPEcho is a UDP server in a namespace that sends every datagram back to its sender.
// It runs one goroutine, which [UDPEcho.Close] stops and waits for.
type UDPEcho struct {
	conn *net.UDPConn
	done chan struct{}
	once sync.Once
}

// ListenUDPEcho starts a [UDPEcho] on addr inside the namespace. The caller must Close it.
func (ns *Namespace) ListenUDPEcho(addr netip.AddrPort) (*UDPEcho, error) {
	conn, err := ns.listenUDP(addr)
	if err != nil {
		return nil, err
	}
	e := &UDPEcho{conn: conn, done: make(chan struct{})}
	go e.serve()
	return e, nil
}

// StartUDPEcho is [Namespace.ListenUDPEcho] for a test: it registers Close with tb.Cleanup
// and fails tb when it cannot bind.
func (ns *Namespace) StartUDPEcho(tb testing.TB, addr netip.AddrPort) *UDPEcho {
	tb.Helper()
	e, err := ns.ListenUDPEcho(addr)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = e.Close() })
	return e
}

// serve echoes until the socket is closed.
func (e *UDPEcho) serve() {
	defer close(e.done)
	buf := make([]byte, 64<<10)
	for {
		n, from, err := e.conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			// Only Close ends the loop; a read error on an unconnected UDP socket is
			// otherwise transient (an ICMP error from an earlier reply).
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		_, _ = e.conn.WriteToUDPAddrPort(buf[:n], from)
	}
}

// Close stops the server and waits for its goroutine. Calling it again does nothing.
func (e *UDPEcho) Close() error {
	var err error
	e.once.Do(func() {
		err = e.conn.Close()
		<-e.done
	})
	return err
}

// A UDPClient sends datagrams from one fixed source address and port, the way a client that
// keeps its socket open does — the pattern that keeps a stale conntrack entry alive. The
// socket is unconnected, so an ICMP port-unreachable from a node without a rule does not
// turn into an error on the next read. A UDPClient is not safe for concurrent use.
type UDPClient struct {
	conn *net.UDPConn
	seq  uint64
}

// OpenUDPClient binds a [UDPClient] to local inside the namespace. The caller must Close it.
func (ns *Namespace) OpenUDPClient(local netip.AddrPort) (*UDPClient, error) {
	conn, err := ns.listenUDP(local)
	if err != nil {
		return nil, err
	}
	return &UDPClient{conn: conn}, nil
}

// ListenUDP is [Namespace.OpenUDPClient] for a test: it registers Close with tb.Cleanup and
// fails tb when it cannot bind.
func (ns *Namespace) ListenUDP(tb testing.TB, local netip.AddrPort) *UDPClient {
	tb.Helper()
	c, err := ns.OpenUDPClient(local)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	return c
}

// listenUDP opens a UDP socket bound to addr from a thread inside the namespace; the socket
// stays in the namespace.
func (ns *Namespace) listenUDP(addr netip.AddrPort) (*net.UDPConn, error) {
	var conn *net.UDPConn
	err := ns.Do(func() error {
		var err error
		conn, err = net.ListenUDP("udp", net.UDPAddrFromAddrPort(addr))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("netnstest: listen udp %s in %s: %w", addr, ns.name, err)
	}
	return conn, nil
}

// Send sends one datagram to dst and does not wait for a reply. It is how a test puts a
// packet on the wire at an exact point of a sequence, e.g. between a flush and programming.
func (c *UDPClient) Send(dst netip.AddrPort) error {
	_, err := c.send(dst)
	return err
}

// send sends a datagram with a fresh payload and returns the payload.
func (c *UDPClient) send(dst netip.AddrPort) ([]byte, error) {
	c.seq++
	payload := []byte("netnstest " + strconv.FormatUint(c.seq, 10))
	if _, err := c.conn.WriteToUDPAddrPort(payload, dst); err != nil {
		return nil, fmt.Errorf("netnstest: send to %s: %w", dst, err)
	}
	return payload, nil
}

// Exchange sends one datagram to dst and reports whether dst sent the same payload back
// within wait. Replies to earlier datagrams and datagrams from other addresses are dropped.
// Use a wait long enough for a loaded CI machine: a late reply counts as none.
func (c *UDPClient) Exchange(dst netip.AddrPort, wait time.Duration) (bool, error) {
	payload, err := c.send(dst)
	if err != nil {
		return false, err
	}
	if err := c.conn.SetReadDeadline(time.Now().Add(wait)); err != nil {
		return false, fmt.Errorf("netnstest: set read deadline: %w", err)
	}
	buf := make([]byte, 64<<10)
	for {
		n, from, err := c.conn.ReadFromUDPAddrPort(buf)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("netnstest: receive from %s: %w", dst, err)
		}
		if from.Addr().Unmap() == dst.Addr().Unmap() && from.Port() == dst.Port() && bytes.Equal(buf[:n], payload) {
			return true, nil
		}
	}
}

// Close closes the socket. Calling it again returns an error and does nothing else.
func (c *UDPClient) Close() error { return c.conn.Close() }
