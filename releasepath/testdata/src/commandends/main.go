// Command commandends runs its commands with cobra and ends when Execute returns, whatever
// the command returned: every return of a command ends the process, and what it holds
// with it.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/spf13/cobra"
)

var errNoArgs = errors.New("no arguments")

type options struct{ verbose bool }

var mu sync.Mutex

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := &options{}
	root := &cobra.Command{Use: "tool", RunE: get}
	export := &cobra.Command{Use: "export", RunE: opts.export}
	inline := &cobra.Command{Use: "inline", RunE: func(cmd *cobra.Command, args []string) error {
		f, err := os.Create(args[0])
		if err != nil {
			return err
		}
		if _, err := f.WriteString("x"); err != nil {
			return err
		}
		return nil
	}}
	locked := &cobra.Command{Use: "locked", RunE: func(cmd *cobra.Command, args []string) error {
		mu.Lock()
		if len(args) == 0 {
			return nil
		}
		mu.Unlock()
		return nil
	}}
	reserve := &cobra.Command{Use: "reserve", RunE: reserveAddress}
	through := &cobra.Command{Use: "through", RunE: func(cmd *cobra.Command, args []string) error {
		return write(args[0])
	}}
	shared := &cobra.Command{Use: "shared", RunE: sharedRun}
	again := &cobra.Command{Use: "again", RunE: func(cmd *cobra.Command, args []string) error {
		if err := sharedRun(cmd, args); err != nil {
			return err
		}
		fmt.Println("and again")
		return sharedRun(cmd, args)
	}}
	_, _, _, _, _, _, _ = export, inline, locked, reserve, through, shared, again
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// get is the root's RunE: the file it writes is left to the process's end, on success
// too, since main ends once Execute returns.
func get(cmd *cobra.Command, args []string) error {
	if len(args) < 2 {
		return errNoArgs
	}
	w, err := os.Create(args[1])
	if err != nil {
		return err
	}
	if _, err := w.WriteString(args[0]); err != nil {
		return err
	}
	return nil
}

// export is a method value's RunE, as regctl's commands are.
func (o *options) export(cmd *cobra.Command, args []string) error {
	f, err := os.Create(args[0])
	if err != nil {
		return err
	}
	if o.verbose {
		fmt.Println("exporting")
	}
	_, err = f.WriteString("x")
	return err
}

type addressManager struct{}

func (m *addressManager) HoldAddress(name string) (string, error) { return name, nil }
func (m *addressManager) ReleaseAddress(ip string) error          { return nil }

// reserveAddress holds an address, which the cloud keeps after the process ends.
func reserveAddress(cmd *cobra.Command, args []string) error {
	m := &addressManager{}
	ip, err := m.HoldAddress(args[0])
	if err != nil {
		return err
	}
	if len(args) > 1 {
		return nil // want `return may skip m.ReleaseAddress \(HoldAddress at line 103\)`
	}
	return m.ReleaseAddress(ip)
}

// write is called by a command: its success return goes back to the command, which may go
// on, so only its error returns end the process.
func write(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.WriteString("x"); err != nil {
		return err
	}
	if len(path) > 10 {
		return nil // want `return may skip f.Close \(Create at line 116\)`
	}
	return f.Close()
}

// sharedRun is a command, and also called by another one, which goes on after its success.
func sharedRun(cmd *cobra.Command, args []string) error {
	f, err := os.Open(args[0])
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err
	}
	if len(args) > 1 {
		return nil // want `return may skip f.Close \(Open at line 131\)`
	}
	return f.Close()
}
