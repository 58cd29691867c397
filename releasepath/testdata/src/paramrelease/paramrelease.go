// Package paramrelease releases through the parameter of a function literal called where
// it is written.
package paramrelease

import "os"

func step() error { return nil }

func deferredWithParam(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func(f *os.File) {
		f.Close()
	}(f)
	return step()
}

func calledWithParam(path string) error {
	x, err := os.Open(path)
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		func(f *os.File) { f.Close() }(x)
		return err
	}
	return x.Close()
}

// otherFile closes another file through the parameter: x stays open.
func otherFile(path string, y *os.File) error {
	x, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func(f *os.File) {
		f.Close()
	}(y)
	if err := step(); err != nil {
		return err // want `return may skip x.Close \(Open at line 34\)`
	}
	return x.Close()
}
