// Command cliaction registers its work with a command-line framework, which returns each
// command's error from App.Run to main: an error return of an action ends the process, and
// nothing it left open outlives it.
package main

import (
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/urfave/cli/v2"
)

var errEmpty = errors.New("empty")

func main() {
	app := &cli.App{
		Commands: []*cli.Command{
			{Name: "build", Action: build},
			{Name: "wrapped", Action: commandAction(wrapped)},
			{Name: "inline", Action: func(c *cli.Context) error {
				f, err := os.Open(c.Args[0])
				if err != nil {
					return err
				}
				if _, err := f.Stat(); err != nil {
					return fmt.Errorf("stat: %w", err)
				}
				return f.Close()
			}},
			{Name: "through", Action: func(c *cli.Context) error {
				if err := through(c.Args[0]); err != nil {
					return err
				}
				return retried(c.Args[0])
			}},
			{Name: "logged", Action: commandActionLogged(logged)},
			{Name: "notwrapped", Action: passOn(notWrapped)},
			{Name: "before", Before: before},
			{Name: "converted", Action: cli.ActionFunc(converted)},
			{Name: "convlit", Action: cli.ActionFunc(func(c *cli.Context) error {
				f, err := os.Open(c.Args[0])
				if err != nil {
					return err
				}
				if _, err := f.Stat(); err != nil {
					return err
				}
				return f.Close()
			})},
			{Name: "half", Action: halfAction},
			{Name: "usage", OnUsage: func(c *cli.Context) { _ = usage(c) }},
		},
	}
	app.Action = assigned
	if err := app.Run(os.Args); err != nil {
		log.Fatal(err)
	}
	_ = alsoCalled(nil)
	_ = newOptions().run(nil)
}

// build is an action: its error returns end the command.
func build(c *cli.Context) error {
	f, err := os.Open(c.Args[0])
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat: %w", err)
	}
	if fi.Size() == 0 {
		return errEmpty
	}
	// The success path still leaks: the command goes on after a nil error.
	if len(c.Args) > 1 {
		return nil // want `return may skip f.Close \(Open at line 66\)`
	}
	return f.Close()
}

// commandAction returns a literal that returns fn's error: fn's error is the command's.
func commandAction(fn func(string) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		return fn(c.Args[0])
	}
}

func wrapped(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err
	}
	return f.Close()
}

// through is returned by an action literal.
func through(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.WriteString("x"); err != nil {
		return err
	}
	return f.Close()
}

// retried is returned by an action literal too.
func retried(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err
	}
	return f.Close()
}

// commandActionLogged logs fn's error and says success: the command goes on.
func commandActionLogged(fn func(string) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		if err := fn(c.Args[0]); err != nil {
			log.Print(err)
		}
		return nil
	}
}

func logged(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err // want `return may skip f.Close \(Open at line 137\)`
	}
	return f.Close()
}

// passOn keeps fn and returns a literal that never calls it: fn's error goes elsewhere.
func passOn(fn func(string) error) cli.ActionFunc {
	pending = append(pending, fn)
	return func(c *cli.Context) error {
		return nil
	}
}

var pending []func(string) error

func notWrapped(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err // want `return may skip f.Close \(Open at line 158\)`
	}
	return f.Close()
}

// before is the command's Before hook, whose error App.Run returns as well.
func before(c *cli.Context) error {
	f, err := os.Open(c.Args[0])
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err
	}
	return f.Close()
}

// usage's caller drops its error: OnUsage returns nothing to the framework.
func usage(c *cli.Context) error {
	f, err := os.Open(c.Args[0])
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err // want `return may skip f.Close \(Open at line 182\)`
	}
	return f.Close()
}

// assigned is the app's own action, set by an assignment.
func assigned(c *cli.Context) error {
	f, err := os.Open(c.Args[0])
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err
	}
	return f.Close()
}

// alsoCalled is an action, and called where its error is dropped.
func alsoCalled(c *cli.Context) error {
	f, err := os.Open(c.Args[0])
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err // want `return may skip f.Close \(Open at line 206\)`
	}
	return f.Close()
}

var _ = &cli.Command{Name: "also", Action: alsoCalled}

type options struct{ path string }

func newOptions() *options { return &options{} }

// run is a method value stored as an action, and called where its error is dropped.
func (o *options) run(c *cli.Context) error {
	f, err := os.Open(o.path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err // want `return may skip f.Close \(Open at line 224\)`
	}
	return f.Close()
}

var _ = &cli.Command{Name: "method", Action: newOptions().run}

// converted is stored as cli.ActionFunc(converted): a conversion is the function still.
func converted(c *cli.Context) error {
	f, err := os.Open(c.Args[0])
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err
	}
	return f.Close()
}

var verbose bool

// halfAction says success on its helper's error when verbose: the command goes on.
func halfAction(c *cli.Context) error {
	if err := halfHelper(c.Args[0]); err != nil {
		if verbose {
			return nil
		}
		return err
	}
	return nil
}

func halfHelper(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err // want `return may skip f.Close \(Open at line 262\)`
	}
	return f.Close()
}
