package wrapper

import "errors"

// lookupTwice reaches request through two helpers: still the helper's own reply.
func (c *client) lookupTwice(name string) error { return c.lookup(name) }

// requestAlias deletes a local copy of what it stored.
func (c *client) requestAlias(name string) error {
	reply := name + ".alias"
	key := reply
	c.replies.Store(key, true)
	c.replies.Delete(key)
	return nil
}

// cleanup deletes the stream itself, through DeleteStream.
func (c *client) cleanup(name string) error { return c.DeleteStream(name) }

// ensureTwoLevels looks up through two helpers on an error: no evidence, nothing reported.
func ensureTwoLevels(name string, step func() error) error {
	c := newClient()
	if err := c.CreateStream(name); err != nil {
		return err
	}
	if err := step(); err != nil {
		c.lookupTwice(name)
		return err
	}
	if err := step(); err != nil {
		return errors.New("second step")
	}
	return nil
}

// ensureAlias: the helper's reply is a local copied from another local.
func ensureAlias(name string, step func() error) error {
	c := newClient()
	if err := c.CreateStream(name); err != nil {
		return err
	}
	if err := step(); err != nil {
		c.requestAlias(name)
		return err
	}
	if err := step(); err != nil {
		return errors.New("second step")
	}
	return nil
}

// ensureCleanup deletes the stream through a helper on one error and forgets it on the
// other: the second error return leaks the stream.
func ensureCleanup(name string, step func() error) error {
	c := newClient()
	if err := c.CreateStream(name); err != nil {
		return err
	}
	if err := step(); err != nil {
		c.cleanup(name)
		return err
	}
	if err := step(); err != nil {
		return errors.New("second step") // want `return may skip c\.(cleanup|DeleteStream) \(CreateStream at line 56\)`
	}
	return nil
}

// ensureDirect: the control, DeleteStream called directly on one error.
func ensureDirect(name string, step func() error) error {
	c := newClient()
	if err := c.CreateStream(name); err != nil {
		return err
	}
	if err := step(); err != nil {
		c.DeleteStream(name)
		return err
	}
	if err := step(); err != nil {
		return errors.New("second step") // want `return may skip c.DeleteStream \(CreateStream at line 72\)`
	}
	return nil
}
