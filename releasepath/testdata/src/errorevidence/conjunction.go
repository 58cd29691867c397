package errorevidence

import (
	"context"
	"fmt"
)

// conjunctionSettlesItsTerms returns err on the true edge of err != nil && !retry, where err != nil holds.
func (c *client) conjunctionSettlesItsTerms(ctx context.Context, name, node string, retry bool) error {
	vol, err := c.CreateVolume(ctx, name)
	if err != nil {
		return err
	}
	if err := c.AttachVolume(ctx, vol.ID, node); err != nil {
		_ = c.DeleteVolume(ctx, vol.ID)
		return err
	}
	if err := c.Publish(ctx, vol.ID); err != nil && !retry {
		return err // want `return may skip c.DeleteVolume \(CreateVolume at line 10\)`
	}
	return nil
}

// rewrappedStaysNonNil wraps the tested err into itself before returning it: fmt.Errorf is non-nil.
func (c *client) rewrappedStaysNonNil(ctx context.Context, name, node string) error {
	vol, err := c.CreateVolume(ctx, name)
	if err != nil {
		return err
	}
	if err := c.AttachVolume(ctx, vol.ID, node); err != nil {
		_ = c.DeleteVolume(ctx, vol.ID)
		return err
	}
	if err = c.Publish(ctx, vol.ID); err != nil {
		err = fmt.Errorf("publish: %w", err)
		return err // want `return may skip c.DeleteVolume \(CreateVolume at line 26\)`
	}
	return nil
}

// namedBareReturn returns the named err, tested non-nil, with a bare return.
func (c *client) namedBareReturn(ctx context.Context, name, node string) (err error) {
	vol, err := c.CreateVolume(ctx, name)
	if err != nil {
		return
	}
	if err = c.AttachVolume(ctx, vol.ID, node); err != nil {
		_ = c.DeleteVolume(ctx, vol.ID)
		return
	}
	if err = c.Publish(ctx, vol.ID); err != nil {
		return // want `return may skip c.DeleteVolume \(CreateVolume at line 43\)`
	}
	return
}
