// Command broad is checked with the broader tier on: what the default tier keeps silent for
// lack of evidence is reported.
package main

import (
	"errors"
	"log"
	"os"

	"github.com/urfave/cli/v2"
)

func main() {
	if err := run(os.Args[1]); err != nil {
		log.Fatal(err)
	}
}

// run's caller exits on its error: reported all the same.
func run(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err // want `return may skip f.Close \(Open at line 21\)`
	}
	return f.Close()
}

type fileHandler func(*os.File)

// serveWith passes f to a function value, which may only read it.
func serveWith(path string, h fileHandler) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	h(f)
	return nil // want `return may skip f.Close \(Open at line 35\)`
}

type volume struct{ ID string }

type cloud struct{}

func (c *cloud) CreateVolume(name string) (*volume, error) { return &volume{ID: name}, nil }
func (c *cloud) DeleteVolume(id string) error              { return nil }

func step() error { return errors.New("step") }

// provision undoes the volume on one error path; an error no test settled may be nil,
// which the default tier leaves alone and the broader tier reports.
func provision(c *cloud, name string) (*volume, error) {
	vol, err := c.CreateVolume(name)
	if err != nil {
		return nil, err
	}
	if err := step(); err != nil {
		c.DeleteVolume(vol.ID)
		return nil, err
	}
	return nil, step() // want `return may skip c.DeleteVolume \(CreateVolume at line 55\)`
}

// action is a command's action, whose error ends the process: reported all the same.
var action = &cli.Command{Name: "action", Action: func(c *cli.Context) error {
	f, err := os.Open(c.Args[0])
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err // want `return may skip f.Close \(Open at line 68\)`
	}
	return f.Close()
}}
