// Command plugin is a CNI plugin: the skeleton runs one command and exits the process on
// its error, which drops the lock the command holds.
package main

import (
	"errors"
	"sync"

	"github.com/containernetworking/cni/pkg/skel"
)

type fileLock struct{ mu sync.Mutex }

func (l *fileLock) Lock() error   { l.mu.Lock(); return nil }
func (l *fileLock) Unlock() error { l.mu.Unlock(); return nil }

var errNoNetns = errors.New("no netns")

func main() {
	skel.PluginMainFuncs(skel.CNIFuncs{Add: cmdAdd, Del: cmdDel}, "plugin")
	skel.PluginMain(cmdAdd, cmdCheck, cmdDel, "plugin")
}

// withLock returns its error to cmdAdd and cmdDel, which return it to the skeleton.
func withLock(l *fileLock, netns string, run func(string) error) error {
	if err := l.Lock(); err != nil {
		return err
	}
	if err := run(netns); err != nil {
		return err
	}
	return l.Unlock()
}

func cmdAdd(args *skel.CmdArgs) error {
	var l fileLock
	err := withLock(&l, args.Netns, func(string) error { return nil })
	if err != nil {
		return err
	}
	return nil
}

func cmdDel(args *skel.CmdArgs) error {
	var l fileLock
	err := withLock(&l, args.Netns, func(string) error { return errNoNetns })
	return err
}

// cmdCheck is a plugin command too; its success path still leaks.
func cmdCheck(args *skel.CmdArgs) error {
	var l fileLock
	if err := l.Lock(); err != nil {
		return err
	}
	if args.Netns == "" {
		return errNoNetns
	}
	if len(args.StdinData) == 0 {
		return nil // want `return may skip l.Unlock \(Lock at line 53\)`
	}
	return l.Unlock()
}

type netlinks struct{}

func (n *netlinks) AddLink(name string) error    { return nil }
func (n *netlinks) DelLink(name string) error    { return nil }
func (n *netlinks) Rename(from, to string) error { return nil }

var links netlinks

// cmdRename's callers exit on its error, but the link it adds outlives the process: the
// kernel keeps it.
func cmdRename(args *skel.CmdArgs) error {
	if err := links.AddLink("tmp0"); err != nil {
		return err
	}
	if err := links.Rename("tmp0", args.Netns); err != nil {
		return err // want `return may skip links.DelLink \(AddLink at line 76\)`
	}
	if args.Netns == "" {
		links.DelLink("tmp0")
		return errNoNetns
	}
	return nil
}

var _ = skel.CNIFuncs{Add: cmdRename}
