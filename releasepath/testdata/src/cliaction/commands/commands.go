// Package commands defines cobra commands for another package's main.
package commands

import (
	"errors"
	"os"

	"github.com/spf13/cobra"
)

var errNoArgs = errors.New("no arguments")

// Root is the command main executes.
var Root = &cobra.Command{Use: "tool", RunE: run}

func init() {
	get := &cobra.Command{Use: "get"}
	get.RunE = func(cmd *cobra.Command, args []string) error {
		f, err := os.Open(args[0])
		if err != nil {
			return err
		}
		if len(args) > 1 {
			return errNoArgs
		}
		return f.Close()
	}
	put := &cobra.Command{Use: "put"}
	put.Run = func(cmd *cobra.Command, args []string) {
		_ = Put(args)
	}
}

// run is the root's RunE: Execute returns its error.
func run(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return errNoArgs
	}
	f, err := os.Create(args[0])
	if err != nil {
		return err
	}
	if _, err := f.WriteString("x"); err != nil {
		return err
	}
	return f.Close()
}

// Put is exported: another package may call it and go on after its error.
func Put(args []string) error {
	f, err := os.Create(args[0])
	if err != nil {
		return err
	}
	if _, err := f.WriteString("x"); err != nil {
		return err // want `return may skip f.Close \(Create at line 51\)`
	}
	return f.Close()
}

// Exported is exported and a command's action: another package may call it.
func Exported(cmd *cobra.Command, args []string) error {
	f, err := os.Create(args[0])
	if err != nil {
		return err
	}
	if _, err := f.WriteString("x"); err != nil {
		return err // want `return may skip f.Close \(Create at line 63\)`
	}
	return f.Close()
}

var _ = &cobra.Command{Use: "exported", RunE: Exported}
