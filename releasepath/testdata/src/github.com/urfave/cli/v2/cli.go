// Package cli stands in for github.com/urfave/cli/v2: App.Run returns the error of the
// command's Action or Before.
package cli

type Context struct{ Args []string }

type ActionFunc func(*Context) error

type BeforeFunc func(*Context) error

type Command struct {
	Name        string
	Action      ActionFunc
	Before      BeforeFunc
	OnUsage     func(*Context)
	Subcommands []*Command
}

type App struct {
	Commands []*Command
	Action   ActionFunc
}

func (a *App) Run(args []string) error { return nil }
