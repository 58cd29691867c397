// Package cobra stands in for github.com/spf13/cobra: Execute returns the error of the
// command's RunE.
package cobra

type Command struct {
	Use  string
	Run  func(cmd *Command, args []string)
	RunE func(cmd *Command, args []string) error
}

func (c *Command) Execute() error { return nil }

func (c *Command) ExecuteContext(ctx any) error { return nil }
