// Package cli stands in for github.com/urfave/cli v1, whose Action is an interface{}
// holding func(*Context) error: App.Run returns its error.
package cli

type Context struct{ Args []string }

type Command struct {
	Name   string
	Action interface{}
}

type App struct {
	Commands []Command
	Action   interface{}
}

func (a *App) Run(args []string) error { return nil }
