// Command tableforms runs a table's command in an if's init after a nil test of the field,
// and a command written as a literal in the table: every return ends the process.
package main

import (
	"fmt"
	"os"
	"sync"
)

type command struct {
	run func(args []string) error
}

var mu sync.Mutex

var commands = map[string]command{
	"lock": {run: lockRun},
	"open": {run: func(args []string) error {
		f, err := os.Open(args[0])
		if err != nil {
			return err
		}
		_, err = f.Stat()
		return err
	}},
}

func main() {
	cmd := commands[os.Args[1]]
	if cmd.run == nil {
		os.Exit(2)
	}
	if err := cmd.run(os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func lockRun(args []string) error {
	mu.Lock()
	if len(args) == 0 {
		return nil
	}
	mu.Unlock()
	return nil
}
