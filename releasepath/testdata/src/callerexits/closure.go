package main

import (
	"fmt"
	"log"
	"os"
)

func init() {
	if err := generate(os.Args[0]); err != nil {
		log.Fatalf("generating: %v", err)
	}
}

// generate calls its closure only where a failure is returned to a caller that exits, as
// tailscale's CRD generator does: what the closure's error returns leave open ends with
// the process.
func generate(dir string) error {
	add := func(name string) error {
		f, err := os.Create(dir + "/" + name)
		if err != nil {
			return err
		}
		if _, err := f.WriteString("---\n"); err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
		return f.Close()
	}
	for _, name := range []string{"a", "b"} {
		if err := add(name); err != nil {
			return fmt.Errorf("adding %s: %w", name, err)
		}
	}
	keep := func(name string) error {
		f, err := os.Create(dir + "/" + name)
		if err != nil {
			return err
		}
		if _, err := f.WriteString("---\n"); err != nil {
			return fmt.Errorf("writing %s: %w", name, err) // want `^return may skip f.Close \(Create at line 35\)$`
		}
		return f.Close()
	}
	if err := keep("c"); err != nil {
		log.Print(err) // logged, and the process goes on
	}
	return nil
}
