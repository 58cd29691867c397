// Command deferred defers a shutdown in main that takes the lock a command may keep: it
// runs after the command returns, so the command's returns keep their findings. A deferred
// cancel of a context is no such work.
package main

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/spf13/cobra"
)

var mu sync.Mutex

func shutdown() {
	mu.Lock()
	defer mu.Unlock()
}

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	defer shutdown()
	root := &cobra.Command{Use: "x", RunE: get}
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func get(cmd *cobra.Command, args []string) error {
	mu.Lock()
	if len(args) == 0 {
		return nil // want `return may skip mu.Unlock \(Lock at line 34\)`
	}
	mu.Unlock()
	return nil
}
