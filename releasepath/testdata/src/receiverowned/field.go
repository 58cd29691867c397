package receiverowned

// A store opens itself, and closes itself.
type store struct{ open bool }

func newStore() *store { return &store{} }

func (s *store) Open() error  { s.open = true; return nil }
func (s *store) Close() error { s.open = false; return nil }

// A command keeps its store in a field, and closes it in its Close: whoever owns the
// command closes the store through it, also when run fails after the store opened
// (litestream's replicate command).
type command struct {
	st    *store
	spare *store
}

func (c *command) run() error {
	c.st = newStore()
	if err := c.st.Open(); err != nil {
		return err
	}
	if err := step(); err != nil {
		c.st.Close() // on this path it closes it itself, too
		return err
	}
	if err := step(); err != nil {
		return err
	}
	return nil
}

// runSpare opens a field that no method of command closes: this call's to end.
func (c *command) runSpare() error {
	if err := c.spare.Open(); err != nil {
		return err
	}
	if err := step(); err != nil {
		return err // want `return may skip c.spare.Close \(Open at line 36\)`
	}
	return c.spare.Close()
}

// Close ends the command's store.
func (c *command) Close() error { return c.st.Close() }

// runLocal opens a store of its own, which the command's Close never sees.
func (c *command) runLocal() error {
	st := newStore()
	if err := st.Open(); err != nil {
		return err
	}
	if err := step(); err != nil {
		return err // want `return may skip st.Close \(Open at line 51\)`
	}
	return st.Close()
}

// runReplaced stores another store in the field after the Open: the opened one is no
// longer the command's, and the return after that leaves it open.
func (c *command) runReplaced() error {
	if err := c.st.Open(); err != nil {
		return err
	}
	if err := step(); err != nil {
		c.st.Close()
		return err
	}
	c.st = newStore()
	if err := step(); err != nil {
		return err // want `return may skip c.st.Close \(Open at line 63\)`
	}
	return nil
}
