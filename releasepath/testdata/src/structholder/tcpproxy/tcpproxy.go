// Package tcpproxy stands for etcd's: a proxy that serves the listener it is given.
package tcpproxy

import "net"

// Proxy serves the listener it holds until accepting fails, as etcd's tcpproxy does.
type Proxy struct {
	Listener net.Listener
	Name     string
}

func (p *Proxy) Run() error {
	for {
		c, err := p.Listener.Accept()
		if err != nil {
			return err
		}
		go c.Close()
	}
}

func (p Proxy) Describe() string { return p.Name }
