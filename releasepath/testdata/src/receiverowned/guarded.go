package receiverowned

import "sync"

type hostName struct{ s string }

func (h *hostName) reset() { h.s = "" }

type guarded struct {
	sync.Mutex
	nl   *links
	host hostName
}

func (g *guarded) teardown() error { return g.nl.DeleteLink(g.host.s) }

// setup locks the receiver through its own method, which gives none of its fields another
// value: teardown still finds the link.
func (g *guarded) setup() error {
	g.Lock()
	defer g.Unlock()
	if err := g.nl.CreateLink(g.host.s); err != nil {
		return err
	}
	if err := step(); err != nil {
		g.nl.DeleteLink(g.host.s)
		return err
	}
	if err := step(); err != nil {
		return err
	}
	return nil
}

// resetHost calls a pointer method on the field the link is named by: teardown may look
// for another name.
func (g *guarded) resetHost() error {
	if err := g.nl.CreateLink(g.host.s); err != nil {
		return err
	}
	if err := step(); err != nil {
		g.nl.DeleteLink(g.host.s)
		return err
	}
	g.host.reset()
	if err := step(); err != nil {
		return err // want `return may skip g.nl.DeleteLink \(CreateLink at line 38\)`
	}
	return nil
}
