// Command goeson logs after its commands have run: a command's success return is not the
// process's end, so a file it leaves open is reported there, and only there.
package main

import (
	"log"
	"os"

	"github.com/spf13/cobra"
)

func main() {
	root := &cobra.Command{Use: "tool", RunE: get}
	if err := root.Execute(); err != nil {
		log.Fatal(err)
	}
	log.Print("done")
}

func get(cmd *cobra.Command, args []string) error {
	f, err := os.Create(args[0])
	if err != nil {
		return err
	}
	if _, err := f.WriteString("x"); err != nil {
		return err
	}
	return nil // want `return may skip f.Close \(Create at line 21\)`
}
