// Command legacy registers its action with urfave/cli v1, whose Action field is an
// interface{}.
package main

import (
	"log"
	"os"

	"github.com/urfave/cli"
)

func main() {
	app := &cli.App{Commands: []cli.Command{{Name: "stat", Action: stat}}}
	if err := app.Run(os.Args); err != nil {
		log.Fatal(err)
	}
}

func stat(c *cli.Context) error {
	f, err := os.Open(c.Args[0])
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err
	}
	return f.Close()
}
