// Command elsebranch cleans up in the else of Execute's error test: that runs after a
// command's success, which is no end of the process.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func main() {
	root := &cobra.Command{Use: "tool", RunE: get}
	if err := root.Execute(); err != nil {
		os.Exit(1)
	} else {
		fmt.Println("ok")
	}
}

func get(cmd *cobra.Command, args []string) error {
	f, err := os.Create(args[0])
	if err != nil {
		return err
	}
	if len(args) > 1 {
		return nil // want `return may skip f.Close \(Create at line 22\)`
	}
	return f.Close()
}
