// Package errorevidence reports a create only at the returns whose error is known non-nil on
// the path: a return that may be the success path keeps what was created.
package errorevidence

import (
	"context"
	"errors"
	"fmt"
	"io"
)

type volume struct{ ID string }

type client struct{}

func (c *client) CreateVolume(ctx context.Context, name string) (*volume, error) {
	return &volume{}, nil
}
func (c *client) DeleteVolume(ctx context.Context, id string) error       { return nil }
func (c *client) AttachVolume(ctx context.Context, id, node string) error { return nil }
func (c *client) Publish(ctx context.Context, id string) error            { return nil }

// ErrNoNode is a sentinel: never nil.
var ErrNoNode = errors.New("no node")

type nodeError struct{ node string }

func (e *nodeError) Error() string { return e.node }

func wrap(err error, msg string) error { return fmt.Errorf("%s: %w", msg, err) }

func (c *client) provision(ctx context.Context, name, node string, retries int) error {
	vol, err := c.CreateVolume(ctx, name)
	if err != nil {
		return err
	}
	if err := c.AttachVolume(ctx, vol.ID, node); err != nil {
		_ = c.DeleteVolume(ctx, vol.ID)
		return err
	}
	if node == "" {
		return ErrNoNode // want `return may skip c.DeleteVolume \(CreateVolume at line 33\)`
	}
	if node == "-" {
		return io.ErrUnexpectedEOF // want `return may skip c.DeleteVolume \(CreateVolume at line 33\)`
	}
	if retries < 0 {
		return &nodeError{node} // want `return may skip c.DeleteVolume \(CreateVolume at line 33\)`
	}
	if retries > 9 {
		return fmt.Errorf("%d retries", retries) // want `return may skip c.DeleteVolume \(CreateVolume at line 33\)`
	}
	if err := c.AttachVolume(ctx, vol.ID, node); err != nil {
		return wrap(err, "attach") // want `return may skip c.DeleteVolume \(CreateVolume at line 33\)`
	}
	// The success path, or a failure the function does not settle: the last step's
	// error is the function's, and nothing says it is non-nil.
	return c.Publish(ctx, vol.ID)
}

// untested returns an error no test on the path settled: it may be nil.
func (c *client) untested(ctx context.Context, name, node string) error {
	vol, err := c.CreateVolume(ctx, name)
	if err != nil {
		return err
	}
	if err := c.AttachVolume(ctx, vol.ID, node); err != nil {
		_ = c.DeleteVolume(ctx, vol.ID)
		return err
	}
	err = c.Publish(ctx, vol.ID)
	return err
}
