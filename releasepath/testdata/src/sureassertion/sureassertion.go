// Package sureassertion asserts a connection to the type of the value it was just given: an
// assertion that cannot fail, whose failure branch no path takes.
package sureassertion

import (
	"crypto/tls"
	"errors"
	"net"
)

// dialTLS wraps the connection in TLS and asserts it back, as goproxy's transport does: the
// !ok return never runs.
func dialTLS(addr string, cfg *tls.Config) (net.Conn, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	conn = tls.Client(conn, cfg)
	tlsConn, ok := conn.(*tls.Conn)
	if !ok {
		return nil, errors.New("invalid TLS connection")
	}
	if err := tlsConn.Handshake(); err != nil {
		return nil, err // want `return may skip conn.Close \(Dial at line 14\)`
	}
	return conn, nil
}

// dialTLSInit asserts in the if's own statement.
func dialTLSInit(addr string, cfg *tls.Config) (net.Conn, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	conn = tls.Client(conn, cfg)
	if _, ok := conn.(*tls.Conn); !ok {
		return nil, errors.New("invalid TLS connection")
	}
	return conn, nil
}

func wrap(c net.Conn) net.Conn { return c }

// dialWrapped asserts a connection that wrap returns as a net.Conn: it may be any type.
func dialWrapped(addr string) (net.Conn, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	conn = wrap(conn)
	tcp, ok := conn.(*net.TCPConn)
	if !ok {
		return nil, errors.New("not TCP") // want `return may skip conn.Close \(Dial at line 46\)`
	}
	return tcp, nil
}

// dialApart asserts two statements after the assignment: something between may change conn.
func dialApart(addr string, cfg *tls.Config, other net.Conn) (net.Conn, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	conn = tls.Client(conn, cfg)
	_ = other
	tlsConn, ok := conn.(*tls.Conn)
	if !ok {
		return nil, errors.New("invalid TLS connection") // want `return may skip conn.Close \(Dial at line 60\)`
	}
	return tlsConn, nil
}

// dialOkAgain assigns ok a second time: the path may read the other assignment.
func dialOkAgain(addr string, cfg *tls.Config, strict bool) (net.Conn, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	conn = tls.Client(conn, cfg)
	tlsConn, ok := conn.(*tls.Conn)
	if strict {
		ok = false
	}
	if !ok {
		return nil, errors.New("refused") // want `return may skip conn.Close \(Dial at line 75\)`
	}
	return tlsConn, nil
}
