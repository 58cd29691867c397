// Command tablegoeson shuts its store down after the command: a command's return is not the
// process's end, and a lock or file it keeps is still held then.
package main

import (
	"os"
	"sync"
)

type command struct {
	action func(args []string) (int, error)
}

var (
	mu       sync.Mutex
	commands = map[string]command{"get": {action: get}}
)

func shutdown() {
	mu.Lock()
	defer mu.Unlock()
}

func main() {
	cmd := commands[os.Args[1]]
	res, _ := cmd.action(os.Args[2:])
	shutdown()
	os.Exit(res)
}

func get(args []string) (int, error) {
	mu.Lock()
	if len(args) == 0 {
		return 1, nil // want `return may skip mu.Unlock \(Lock at line 32\)`
	}
	mu.Unlock()
	return 0, nil
}
