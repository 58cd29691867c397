// Package message has an acquisition whose release two of its values could name: the
// message names the first, in declaration order, on every run.
package message

type Client struct{}

type Addr struct{}

func NewClient() *Client { return &Client{} }

func (c *Client) Reserve() (*Addr, error) { return &Addr{}, nil }
func (c *Client) Release() error          { return nil }
func (a *Addr) Release() error            { return nil }

func step() error { return nil }

func reserve() error {
	c := NewClient()
	a, err := c.Reserve()
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		return err // want `^return may skip c.Release \(Reserve at line 19\)$`
	}
	_ = a
	return nil
}
