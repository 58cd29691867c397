package testfiles

import "errors"

// setup is a test helper that undoes its create on one failure and not on the other.
func setup(r *rules) error {
	if err := r.CreateRule("a"); err != nil {
		return err
	}
	if err := step(); err != nil {
		r.DeleteRule("a")
		return err
	}
	if step() != nil {
		return errors.New("second step") // want `return may skip r.DeleteRule \(CreateRule at line 7\)`
	}
	return nil
}
