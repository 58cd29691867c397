package resultholds

import (
	"net"

	"wrapper/closers"
)

// auth keeps the signers of the agents it was given.
type auth struct {
	signers []closers.Signer
	names   []string
	remote  net.Addr
	count   *int
}

// agentSigners keeps the agent's signers, which sign through the client made of conn: an
// interface's method may hand out what keeps its receiver, so the signers hold conn and
// storing them keeps it (go-libvirt's agent auth). Where Signers fails the connection is
// dropped.
func (am *auth) agentSigners(socket string) error {
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return err
	}
	ac := closers.NewAgent(conn)
	signers, err := ac.Signers()
	if err != nil {
		return err // want `return may skip conn.Close \(Dial at line \d+\)`
	}
	am.signers = append(am.signers, signers...)
	return nil
}

// agentSigner keeps one signer, returned alone.
func (am *auth) agentSigner(socket string) error {
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return err
	}
	ac := closers.NewAgent(conn)
	am.signers = append(am.signers, ac.Signer())
	return nil
}

// agentNames keeps only the names the agent lists: strings keep nothing of it.
func (am *auth) agentNames(socket string) error {
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return err
	}
	ac := closers.NewAgent(conn)
	names, err := ac.List()
	if err != nil {
		return err // want `return may skip conn.Close \(Dial at line \d+\)`
	}
	am.names = append(am.names, names...)
	return nil // want `return may skip conn.Close \(Dial at line \d+\)`
}

// remoteOf keeps the connection's own address: a method of the value itself is its data.
func (am *auth) remoteOf(socket string) error {
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return err
	}
	am.remote = conn.RemoteAddr()
	return nil // want `return may skip conn.Close \(Dial at line \d+\)`
}

// agentCount keeps a count the agent returns by pointer: a *int refers to no connection.
func (am *auth) agentCount(socket string) error {
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return err
	}
	ac := closers.NewAgent(conn)
	am.count = ac.Count()
	return nil // want `return may skip conn.Close \(Dial at line \d+\)`
}

// copyAddress keeps the address of a copy of the connection: the copy is the value itself,
// and its method's result is its data, as conn.RemoteAddr()'s is.
func (am *auth) copyAddress(socket string) error {
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return err
	}
	c2 := conn
	am.remote = c2.LocalAddr()
	return nil // want `return may skip conn.Close \(Dial at line \d+\)`
}
