// Package holderrelease is testdata for the rule on a local struct that holds the value in
// a field and releases it by a method whose summary releases that field.
package holderrelease

import (
	"errors"
	"net"
	"os"

	"wrapper/closers"
)

type provider struct{ pool *pool }

type pool struct{}

func (p *pool) Put(n *proxyNS) {}

func createNetNS(root, id string) (string, error) { return root + "/" + id, nil }
func deleteNetNS(nsPath string) error             { return os.Remove(nsPath) }
func unmountNetNS(nsPath string) error            { return nil }

// proxyNS is buildkit's proxy network namespace: its Close gives it back to the pool or
// releases both namespaces it holds.
type proxyNS struct {
	provider    *provider
	nsPath      string
	proxyNSPath string
	hostName    string
}

func (n *proxyNS) Close() error {
	if n.provider != nil && n.provider.pool != nil {
		n.provider.pool.Put(n)
		return nil
	}
	return n.release()
}

func (n *proxyNS) release() error {
	err := unmountNetNS(n.nsPath)
	if e := deleteNetNS(n.nsPath); e != nil && err == nil {
		err = e
	}
	if e := deleteNetNS(n.proxyNSPath); e != nil && err == nil {
		err = e
	}
	return err
}

func (n *proxyNS) Describe() string { return n.hostName }

func (n *proxyNS) setupVeth() error { return nil }

// newNS is buildkit's provider.newNS: a failure after the namespace went into ns closes ns,
// which deletes it.
func (p *provider) newNS(root, id string) (_ *proxyNS, retErr error) {
	nsPath, err := createNetNS(root, id+"-exec")
	if err != nil {
		return nil, err
	}
	proxyNSPath, err := createNetNS(root, id+"-proxy")
	if err != nil {
		_ = deleteNetNS(nsPath)
		return nil, err
	}
	ns := &proxyNS{provider: p, nsPath: nsPath, proxyNSPath: proxyNSPath, hostName: id}
	defer func() {
		if retErr != nil {
			_ = ns.Close()
		}
	}()
	if err := ns.setupVeth(); err != nil {
		return nil, err
	}
	return ns, nil
}

// newNSClosedDirectly closes the holder where the step fails.
func newNSClosedDirectly(root, id string) (*proxyNS, error) {
	nsPath, err := createNetNS(root, id)
	if err != nil {
		return nil, err
	}
	if nsPath == "" {
		_ = deleteNetNS(nsPath)
		return nil, errors.New("empty")
	}
	ns := &proxyNS{nsPath: nsPath}
	if err := ns.setupVeth(); err != nil {
		ns.Close()
		return nil, err
	}
	return ns, nil
}

// newNSDescribed calls a method of the holder that releases nothing.
func newNSDescribed(root, id string) (*proxyNS, error) {
	nsPath, err := createNetNS(root, id)
	if err != nil {
		return nil, err
	}
	if nsPath == "" {
		_ = deleteNetNS(nsPath)
		return nil, errors.New("empty")
	}
	ns := &proxyNS{nsPath: nsPath}
	if err := ns.setupVeth(); err != nil {
		ns.Describe()
		return nil, err // want `return may skip deleteNetNS \(createNetNS at line \d+\)`
	}
	return ns, nil
}

// hostOnly is a holder whose Close releases another field than the one that holds the
// namespace. Which field is not compared (a limit the package documentation states): its
// Close is taken to release the namespace, and the leak below goes unreported.
type hostOnly struct {
	nsPath   string
	hostPath string
}

func (h *hostOnly) Close() error { return deleteNetNS(h.hostPath) }

func (h *hostOnly) setup() error { return nil }

func newHostOnly(root, id string) (*hostOnly, error) {
	nsPath, err := createNetNS(root, id)
	if err != nil {
		return nil, err
	}
	if nsPath == "" {
		_ = deleteNetNS(nsPath)
		return nil, errors.New("empty")
	}
	h := &hostOnly{nsPath: nsPath, hostPath: root}
	if err := h.setup(); err != nil {
		h.Close()
		return nil, err
	}
	return h, nil
}

// newNSSwapped points the holder at another namespace before it closes it: no holder.
func newNSSwapped(root, id string, spare *proxyNS) (*proxyNS, error) {
	nsPath, err := createNetNS(root, id)
	if err != nil {
		return nil, err
	}
	if nsPath == "" {
		_ = deleteNetNS(nsPath)
		return nil, errors.New("empty")
	}
	ns := &proxyNS{nsPath: nsPath}
	if err := ns.setupVeth(); err != nil {
		ns = spare
		ns.Close()
		return nil, err // want `return may skip deleteNetNS \(createNetNS at line \d+\)`
	}
	return ns, nil
}

// dialSession closes the session of another package that holds the connection where the
// handshake fails: Session.Close's fact says it releases the field.
func dialSession(addr string) (*closers.Session, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &closers.Session{Conn: conn, Name: addr}
	if err := handshake(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// dialFlushed flushes instead: the connection leaks.
func dialFlushed(addr string) (*closers.Session, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &closers.Session{Conn: conn, Name: addr}
	if err := handshake(); err != nil {
		s.Flush()
		return nil, err // want `return may skip conn.Close \(Dial at line \d+\)`
	}
	return s, nil
}

// dialTraced closes a holder whose Close releases on some path only, of another package,
// where no fact says so: the connection may leak.
func dialTraced(addr string) (*closers.Tracer, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	t := &closers.Tracer{Conn: conn}
	if err := handshake(); err != nil {
		t.Close()
		return nil, err // want `return may skip conn.Close \(Dial at line \d+\)`
	}
	return t, nil
}

func handshake() error { return nil }
