// Package linedirective has a //line directive that renames lines past the end of the
// file, as generated parsers do: the finding is reported at the line the directive gives,
// and its fix edits the file's own lines.
package linedirective

import "os"

func step() error { return nil }

//line gen.y:100
func leak(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if err := step(); err != nil {
		return err // want `return may skip f.Close \(Open at line 101\)`
	}
	f.Close()
	return nil
}
