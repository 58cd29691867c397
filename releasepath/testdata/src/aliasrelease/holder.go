package aliasrelease

import (
	"errors"
	"os"
)

// bundle keeps the files it is given; its Close closes them.
type bundle struct{ files []*os.File }

func (b *bundle) add(f *os.File) { b.files = append(b.files, f) }

func (b *bundle) Close() error {
	var errs []error
	for _, f := range b.files {
		errs = append(errs, f.Close())
	}
	return errors.Join(errs...)
}

func (b *bundle) describe() string { return "bundle" }

func consume(b *bundle) error { return nil }

// bundleDeferredFirst defers the holder's Close before it holds anything: the call reads b
// when deferred and what b points at when it runs.
func bundleDeferredFirst(paths []string) error {
	b := &bundle{}
	defer b.Close()
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		b.add(f)
	}
	return consume(b)
}

// bundleDeferredAfter defers it once b holds the file.
func bundleDeferredAfter(p string) error {
	b := &bundle{}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	b.add(f)
	defer b.Close()
	return consume(b)
}

// bundleClosed closes it before the return.
func bundleClosed(p string) error {
	b := &bundle{}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	b.add(f)
	err = consume(b)
	b.Close()
	return err
}

// bundleDescribed calls a method that releases nothing.
func bundleDescribed(p string) (string, error) {
	b := &bundle{}
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	b.add(f)
	return b.describe(), nil // want `return may skip f.Close \(Open at line 68\)`
}

// bundleReplaced defers the Close of the first bundle, then points b at another: the
// deferred call closes the first, which holds nothing.
func bundleReplaced(p string) error {
	b := &bundle{}
	defer b.Close()
	b = &bundle{}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	b.add(f)
	return consume(b) // want `return may skip f.Close \(Open at line 82\)`
}
