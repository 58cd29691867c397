// Package hostiletestsflag creates forwarding rules; a create is checked only on error returns
// and only once the function undoes it somewhere.
package hostiletestsflag

import "errors"

type rules struct{}

func (r *rules) CreateRule(name string) error { return nil }
func (r *rules) DeleteRule(name string) error { return nil }

func step() error { return nil }

func createOutlives(r *rules) error {
	if err := r.CreateRule("a"); err != nil {
		return err
	}
	return step()
}

func createHalfUndone(r *rules) error {
	if err := r.CreateRule("a"); err != nil {
		return err
	}
	if err := step(); err != nil {
		r.DeleteRule("a")
		return err
	}
	if step() != nil {
		return errors.New("second step") // want `return may skip r.DeleteRule \(CreateRule at line 22\)`
	}
	return nil
}
