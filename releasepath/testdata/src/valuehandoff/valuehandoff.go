// Package valuehandoff hands a reserved *Addr on in the ways controllers do; none leaks.
package valuehandoff

type Client struct{}

type Addr struct{ Name string }

func (c *Client) ReserveAddress(name string) (*Addr, error) { return &Addr{Name: name}, nil }
func (a *Addr) Release() error                              { return nil }

func step() error { return nil }

type holder struct {
	a  *Addr
	m  map[string]*Addr
	ch chan *Addr
}

func byReturn(c *Client) (*Addr, error) {
	a, err := c.ReserveAddress("a")
	if err != nil {
		return nil, err
	}
	if err := step(); err != nil {
		a.Release()
		return nil, err
	}
	return a, nil
}

func (h *holder) byField(c *Client) error {
	a, err := c.ReserveAddress("a")
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		a.Release()
		return err
	}
	h.a = a
	return nil
}

func (h *holder) byMap(c *Client) error {
	a, err := c.ReserveAddress("a")
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		a.Release()
		return err
	}
	h.m[a.Name] = a
	return nil
}

func (h *holder) byChan(c *Client) error {
	a, err := c.ReserveAddress("a")
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		a.Release()
		return err
	}
	h.ch <- a
	return nil
}

func byGoroutine(c *Client) error {
	a, err := c.ReserveAddress("a")
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		a.Release()
		return err
	}
	go func() {
		step()
		a.Release()
	}()
	return nil
}

func okFlag(c *Client) (*Addr, error) {
	a, err := c.ReserveAddress("a")
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			a.Release()
		}
	}()
	if err := step(); err != nil {
		return nil, err
	}
	ok = true
	return a, nil
}

func isNotFound(err error) bool { return err != nil }

func localIsNotFound(c *Client) error {
	a, err := c.ReserveAddress("a")
	if isNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return a.Release()
}
