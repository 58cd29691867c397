package wrapper

import (
	"errors"
	"os"
)

var errCheck = errors.New("check")

func checkStep() error { return errCheck }

// closeLater returns a function that closes f; it closes nothing itself.
func closeLater(f *os.File) func() error {
	return func() error { return f.Close() }
}

// closerOf returns f's Close as a method value.
func closerOf(f *os.File) func() error { return f.Close }

// madeNotCalled makes the closer but returns on an error without calling it.
func madeNotCalled(path string) error {
	fd, err := os.Create(path)
	if err != nil {
		return err
	}
	c := closeLater(fd)
	if err := checkStep(); err != nil {
		return err // want `return may skip fd.Close \(Create at line \d+\)`
	}
	return c()
}

// madeDropped makes the closer and drops it.
func madeDropped(path string) error {
	fd, err := os.Create(path)
	if err != nil {
		return err
	}
	_ = closeLater(fd)
	return nil // want `return may skip fd.Close \(Create at line \d+\)`
}

// madeDeferred defers what closeLater makes: fd is closed on every return.
func madeDeferred(path string) error {
	fd, err := os.Create(path)
	if err != nil {
		return err
	}
	defer closeLater(fd)()
	return checkStep()
}

// madeStoredDeferred keeps the closer in a local and defers it.
func madeStoredDeferred(path string) error {
	fd, err := os.Create(path)
	if err != nil {
		return err
	}
	c := closerOf(fd)
	defer c()
	return checkStep()
}

// methodValueNotCalled gets f.Close as a value and returns on an error without calling it.
func methodValueNotCalled(path string) error {
	fd, err := os.Create(path)
	if err != nil {
		return err
	}
	c := closerOf(fd)
	if err := checkStep(); err != nil {
		return err // want `return may skip fd.Close \(Create at line \d+\)`
	}
	return c()
}

// closerWithError returns a closer of f beside an error.
func closerWithError(f *os.File) (func() error, error) {
	return func() error { return f.Close() }, nil
}

type job struct{ done func() error }

// handCloser hands the closer it was made to the job it returns.
func handCloser(path string) (*job, error) {
	fd, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	c, err := closerWithError(fd)
	if err != nil {
		return nil, err // want `return may skip fd.Close \(Create at line \d+\)`
	}
	return &job{done: c}, nil
}

// closerIf makes no closer where quiet: it makes a release on one path only.
func closerIf(f *os.File, quiet bool) func() error {
	if quiet {
		return func() error { return nil }
	}
	return func() error { return f.Close() }
}

// madeMaybe defers what closerIf makes, which may close nothing.
func madeMaybe(path string, quiet bool) error {
	fd, err := os.Create(path)
	if err != nil {
		return err
	}
	defer closerIf(fd, quiet)()
	return checkStep() // want `return may skip fd.Close \(Create at line \d+\)`
}

// closerByMode makes no closer for mode 0, and one for the other modes: a release on some
// paths only, found at its first return, with more returns after it.
func closerByMode(f *os.File, mode int) func() error {
	switch mode {
	case 0:
		return func() error { return nil }
	case 1:
		return f.Close
	}
	return func() error { return f.Close() }
}

// madeByMode defers what closerByMode makes, which may close nothing.
func madeByMode(path string, mode int) error {
	fd, err := os.Create(path)
	if err != nil {
		return err
	}
	defer closerByMode(fd, mode)()
	return checkStep() // want `return may skip fd.Close \(Create at line \d+\)`
}

// closeNow closes f when it is called and returns a no-op.
func closeNow(f *os.File) func() {
	f.Close()
	return func() {}
}

// deferredNow defers closeNow(fd)(): closeNow runs at the defer statement and closes fd.
func deferredNow(path string) error {
	fd, err := os.Create(path)
	if err != nil {
		return err
	}
	defer closeNow(fd)()
	return checkStep()
}

// handMade returns the closer it made inside the job: whoever runs the job closes fd.
func handMade(path string) (*job, error) {
	fd, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &job{done: closeLater(fd)}, nil
}
