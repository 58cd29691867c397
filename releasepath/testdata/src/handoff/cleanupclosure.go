package handoff

import "os"

// openAll returns a cleanup bound before the loop that fills what it closes: the caller
// closes the files with it.
func openAll(paths []string) (func(), error) {
	var files []*os.File
	cleanup := func() {
		for _, f := range files {
			f.Close()
		}
	}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			cleanup()
			return nil, err
		}
		files = append(files, f)
	}
	return cleanup, nil
}

// openLater returns a cleanup bound before the open, which reads f when it runs.
func openLater(path string) (func(), error) {
	var f *os.File
	cleanup := func() {
		if f != nil {
			f.Close()
		}
	}
	var err error
	f, err = os.Open(path)
	if err != nil {
		return nil, err
	}
	return cleanup, nil
}

// openUnrelated returns a closure bound before the open that has nothing of f.
func openUnrelated(path string) (func(), error) {
	done := func() { println("done") }
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if _, err := f.Stat(); err != nil {
		f.Close()
		return nil, err
	}
	return done, nil // want `^return may skip f.Close \(Open at line 44\)$`
}
