// Package skel stands in for the CNI plugin skeleton: PluginMainFuncs and PluginMain run
// one command and exit the process on its error.
package skel

type CmdArgs struct {
	Netns     string
	StdinData []byte
}

type CNIFuncs struct {
	Add   func(*CmdArgs) error
	Del   func(*CmdArgs) error
	Check func(*CmdArgs) error
}

func PluginMainFuncs(funcs CNIFuncs, about string) {}

func PluginMain(cmdAdd, cmdCheck, cmdDel func(*CmdArgs) error, about string) {}
