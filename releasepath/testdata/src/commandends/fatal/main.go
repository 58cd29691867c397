// Command fatal runs its app under log.Fatal, which ends the process whatever Run returns.
// A Before hook is no command: the action runs after its success.
package main

import (
	"log"
	"os"

	"github.com/urfave/cli/v2"
)

func main() {
	app := &cli.App{Action: build, Commands: []*cli.Command{{Name: "b", Before: prepare, Action: build}}}
	log.Fatal(app.Run(os.Args))
}

func build(c *cli.Context) error {
	f, err := os.Create(c.Args[0])
	if err != nil {
		return err
	}
	_, err = f.WriteString("x")
	return err
}

func prepare(c *cli.Context) error {
	f, err := os.Create(c.Args[0])
	if err != nil {
		return err
	}
	if len(c.Args) > 1 {
		return nil // want `return may skip f.Close \(Create at line 27\)`
	}
	return f.Close()
}
