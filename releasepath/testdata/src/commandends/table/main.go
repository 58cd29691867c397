// Command table dispatches to its commands through a table of its own, and exits with the
// command's status as soon as the command returns: every return of a command ends the
// process.
package main

import (
	"fmt"
	"os"
)

type command struct {
	name   string
	action func(args []string) (int, error)
	check  func(args []string) error
}

var commands = []command{
	{name: "get", action: get},
	{name: "put", action: put, check: validate},
}

func main() {
	var cmd *command
	for i := range commands {
		if commands[i].name == os.Args[1] {
			cmd = &commands[i]
		}
	}
	if cmd.check != nil {
		if err := cmd.check(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	res, err := cmd.action(os.Args[2:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "%v\n", err)
	}
	os.Exit(res)
}

// get is a command: the file it writes is left to the process's end.
func get(args []string) (int, error) {
	output := os.Stdout
	if len(args) > 1 {
		f, err := os.Create(args[1])
		if err != nil {
			return 1, err
		}
		output = f
	}
	if _, err := output.WriteString(args[0]); err != nil {
		return 1, err
	}
	return 0, nil
}

// put is a command too.
func put(args []string) (int, error) {
	f, err := os.Create(args[0])
	if err != nil {
		return 1, err
	}
	if _, err := f.WriteString("x"); err != nil {
		return 1, err
	}
	return 0, nil
}

// validate is stored in a field main reads (cmd.check != nil) and calls before the command
// runs: after it the process goes on.
func validate(args []string) error {
	f, err := os.Open(args[0])
	if err != nil {
		return err
	}
	if len(args) > 1 {
		return nil // want `return may skip f.Close \(Open at line 72\)`
	}
	return f.Close()
}
