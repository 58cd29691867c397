// Command fatal runs its app under log.Fatal, which ends the process whatever Run returns.
package main

import (
	"log"
	"os"

	"github.com/urfave/cli/v2"
)

func main() {
	app := &cli.App{Action: build}
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
