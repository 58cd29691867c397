// Package receiverowned creates things named by its receiver's fields, which another method
// of the receiver's type deletes: the receiver owns them, and its owner cleans up.
package receiverowned

import "os"

type links struct{}

func (*links) CreateLink(name string) error { return nil }
func (*links) DeleteLink(name string) error { return nil }

type spec struct{ Name string }

func (*links) CreateFrom(s *spec) error { return nil }
func (*links) DeleteFrom(s *spec) error { return nil }

func step() error { return nil }

type proxy struct {
	nl   *links
	host string
	path string
	f    *os.File
}

// setup creates the link named by p.host; close deletes it, and setup's caller calls close
// when setup fails, as buildkit's proxy namespace does.
func (p *proxy) setup() error {
	if err := p.nl.CreateLink(p.host); err != nil {
		return err
	}
	if err := step(); err != nil {
		p.nl.DeleteLink(p.host)
		return err
	}
	if err := step(); err != nil {
		return err
	}
	return nil
}

// setupSpec names the link through a local built from the receiver's field.
func (p *proxy) setupSpec() error {
	s := &spec{Name: p.host}
	if err := p.nl.CreateFrom(s); err != nil {
		return err
	}
	if err := step(); err != nil {
		p.nl.DeleteFrom(s)
		return err
	}
	if err := step(); err != nil {
		return err
	}
	return nil
}

func (p *proxy) close() error {
	p.nl.DeleteFrom(&spec{Name: p.host})
	return p.nl.DeleteLink(p.host)
}

// setupNamed creates a link named by its parameter: nothing of the receiver names it.
func (p *proxy) setupNamed(name string) error {
	if err := p.nl.CreateLink(name); err != nil {
		return err
	}
	if err := step(); err != nil {
		p.nl.DeleteLink(name)
		return err
	}
	if err := step(); err != nil {
		return err // want `return may skip p.nl.DeleteLink \(CreateLink at line 65\)`
	}
	return nil
}

// open makes a file the call hands back: the receiver holds it only once stored.
func (p *proxy) open() error {
	f, err := os.Create(p.path)
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		return err // want `return may skip f.Close \(Create at line 80\)`
	}
	p.f = f
	return nil
}

func (p *proxy) closeFile() error { return p.f.Close() }

type bare struct {
	nl   *links
	host string
}

// setup of a type no method of which deletes the link: nobody else cleans it up.
func (b *bare) setup() error {
	if err := b.nl.CreateLink(b.host); err != nil {
		return err
	}
	if err := step(); err != nil {
		b.nl.DeleteLink(b.host)
		return err
	}
	if err := step(); err != nil {
		return err // want `return may skip b.nl.DeleteLink \(CreateLink at line 100\)`
	}
	return nil
}

// hostChanged assigns the field the link is named by: close would delete another link.
func (p *proxy) hostChanged(other string) error {
	if err := p.nl.CreateLink(p.host); err != nil {
		return err
	}
	if err := step(); err != nil {
		p.nl.DeleteLink(p.host)
		return err
	}
	p.host = other
	if err := step(); err != nil {
		return err // want `return may skip p.nl.DeleteLink \(CreateLink at line 115\)`
	}
	return nil
}

// withSuffix names the link by a field and a parameter: close does not know the name.
func (p *proxy) withSuffix(suffix string) error {
	name := p.host + suffix
	if err := p.nl.CreateLink(name); err != nil {
		return err
	}
	if err := step(); err != nil {
		p.nl.DeleteLink(name)
		return err
	}
	if err := step(); err != nil {
		return err // want `return may skip p.nl.DeleteLink \(CreateLink at line 132\)`
	}
	return nil
}

type indexed struct {
	nl    *links
	names []string
}

func (n *indexed) teardown() { n.nl.DeleteLink(n.names[0]) }

// element names the link by an element of a field chosen by a parameter.
func (n *indexed) element(i int) error {
	if err := n.nl.CreateLink(n.names[i]); err != nil {
		return err
	}
	if err := step(); err != nil {
		n.nl.DeleteLink(n.names[i])
		return err
	}
	if err := step(); err != nil {
		return err // want `return may skip n.nl.DeleteLink \(CreateLink at line 154\)`
	}
	return nil
}

type generic[T any] struct {
	nl   *links
	host string
	v    T
}

func (g *generic[T]) teardown() error { return g.nl.DeleteLink(g.host) }

// setup of a generic type whose teardown deletes the link.
func (g *generic[T]) setup() error {
	if err := g.nl.CreateLink(g.host); err != nil {
		return err
	}
	if err := step(); err != nil {
		g.nl.DeleteLink(g.host)
		return err
	}
	if err := step(); err != nil {
		return err
	}
	return nil
}

// specChanged gives the spec's field another value before later statements that assign
// other things: close would delete another link.
func (p *proxy) specChanged(other string) error {
	s := &spec{Name: p.host}
	if err := p.nl.CreateFrom(s); err != nil {
		return err
	}
	if err := step(); err != nil {
		p.nl.DeleteFrom(s)
		return err
	}
	s = &spec{Name: other}
	tries := 0
	tries++
	if err := step(); err != nil {
		return err // want `return may skip p.nl.DeleteFrom \(CreateFrom at line 194\)`
	}
	return nil
}

// hostSetFirst gives the field its value before it names the link: the method changes it, so
// the link is not taken for the one close deletes.
func (p *proxy) hostSetFirst(other string) error {
	p.host = other
	if err := p.nl.CreateLink(p.host); err != nil {
		return err
	}
	if err := step(); err != nil {
		p.nl.DeleteLink(p.host)
		return err
	}
	if err := step(); err != nil {
		return err // want `return may skip p.nl.DeleteLink \(CreateLink at line 214\)`
	}
	return nil
}
