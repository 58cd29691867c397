// Package testfiles has a leak in a _test.go file: the Analyzer checks the test files the
// driver loads (go vet always, the command unless -test=false).
package testfiles

import "errors"

type rules struct{}

func (r *rules) CreateRule(name string) error { return nil }
func (r *rules) DeleteRule(name string) error { return nil }

func step() error { return nil }

// createOutlives keeps its create: no rollback anywhere, nothing to report.
func createOutlives(r *rules) error {
	if err := r.CreateRule("a"); err != nil {
		return err
	}
	return step()
}

// createHalfUndone undoes its create on one error path, not on the other.
func createHalfUndone(r *rules) error {
	if err := r.CreateRule("a"); err != nil {
		return err
	}
	if err := step(); err != nil {
		r.DeleteRule("a")
		return err
	}
	if step() != nil {
		return errors.New("second step") // want `return may skip r.DeleteRule \(CreateRule at line 24\)`
	}
	return nil
}
