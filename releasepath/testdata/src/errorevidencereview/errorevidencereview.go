// Package errorevidencereview tries to break the errorevidence rule: each return's error is
// known non-nil on its path. The last function pins an edge the errorevidence package lacks.
package errorevidencereview

import (
	"context"
	"fmt"
)

type volume struct{ ID string }

type client struct{}

func (c *client) CreateVolume(ctx context.Context, name string) (*volume, error) {
	return &volume{}, nil
}
func (c *client) DeleteVolume(ctx context.Context, id string) error       { return nil }
func (c *client) AttachVolume(ctx context.Context, id, node string) error { return nil }
func (c *client) Publish(ctx context.Context, id string) error            { return nil }

// conjunction returns err on the true edge of err != nil && !retry, where err != nil holds.
// FAILS: not reported (the CFG keeps the && as one condition, which trackErrors skips).
func (c *client) conjunction(ctx context.Context, name, node string, retry bool) error {
	vol, err := c.CreateVolume(ctx, name)
	if err != nil {
		return err
	}
	if err := c.AttachVolume(ctx, vol.ID, node); err != nil {
		_ = c.DeleteVolume(ctx, vol.ID)
		return err
	}
	if err := c.Publish(ctx, vol.ID); err != nil && !retry {
		return err // want `return may skip c.DeleteVolume \(CreateVolume at line 24\)`
	}
	return nil
}

// rewrapped wraps the tested err into itself before returning it: fmt.Errorf is non-nil.
// FAILS: not reported (the assignment forgets err's evidence instead of taking fmt.Errorf's).
func (c *client) rewrapped(ctx context.Context, name, node string) error {
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
		return err // want `return may skip c.DeleteVolume \(CreateVolume at line 41\)`
	}
	return nil
}

// namedBare returns the named err, tested non-nil, with a bare return. Passes (edge: a bare
// return's error is the named result).
func (c *client) namedBare(ctx context.Context, name, node string) (err error) {
	vol, err := c.CreateVolume(ctx, name)
	if err != nil {
		return
	}
	if err = c.AttachVolume(ctx, vol.ID, node); err != nil {
		_ = c.DeleteVolume(ctx, vol.ID)
		return
	}
	if err = c.Publish(ctx, vol.ID); err != nil {
		return // want `return may skip c.DeleteVolume \(CreateVolume at line 59\)`
	}
	return
}
