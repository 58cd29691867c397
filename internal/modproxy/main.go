// Command modproxy lays out modules at a candidate version as a file GOPROXY, the way a
// module proxy serves tagged releases, for .ci/rehearse-release:
//
//	go run . -out /tmp/proxy -version v0.1.0 /repo /repo/releasepath /repo/orphans
//
// Each argument is a module's directory. Its zip is built with golang.org/x/mod/zip from the
// files in that directory, without nested modules and .git, as the go command would
// download it; the list, .info, .mod and .zip files go under
// <out>/<escaped module path>/@v/.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

func main() {
	out := flag.String("out", "", "directory to lay the file GOPROXY out in")
	version := flag.String("version", "", "candidate version of every module, such as v0.1.0")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("modproxy: ")
	if *out == "" || *version == "" || flag.NArg() == 0 {
		log.Fatal("usage: modproxy -out dir -version vX.Y.Z moduledir...")
	}
	for _, dir := range flag.Args() {
		path, err := serve(*out, *version, dir)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s@%s\n", path, *version)
	}
}

// serve writes the module in dir at version under out and returns its module path.
func serve(out, version, dir string) (string, error) {
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "", err
	}
	path := modfile.ModulePath(gomod)
	mv := module.Version{Path: path, Version: version}
	if err := module.Check(path, version); err != nil {
		return "", err
	}
	esc, err := module.EscapePath(path)
	if err != nil {
		return "", err
	}
	v := filepath.Join(out, filepath.FromSlash(esc), "@v")
	if err := os.MkdirAll(v, 0o755); err != nil {
		return "", err
	}
	files, err := moduleFiles(dir)
	if err != nil {
		return "", err
	}
	z, err := os.Create(filepath.Join(v, version+".zip"))
	if err != nil {
		return "", err
	}
	if err := zip.Create(z, mv, files); err != nil {
		z.Close()
		return "", fmt.Errorf("zip %s: %w", path, err)
	}
	if err := z.Close(); err != nil {
		return "", err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, time.Now().UTC().Truncate(time.Second)})
	if err != nil {
		return "", err
	}
	for name, data := range map[string][]byte{
		"list":            []byte(version + "\n"),
		version + ".info": info,
		version + ".mod":  gomod,
	} {
		if err := os.WriteFile(filepath.Join(v, name), data, 0o644); err != nil {
			return "", err
		}
	}
	return path, nil
}

// moduleFiles lists the regular files of the module in dir: not .git, and not the
// directories of nested modules, which are modules of their own.
func moduleFiles(dir string) ([]zip.File, error) {
	var files []zip.File
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if p != dir {
				if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		files = append(files, file{rel: filepath.ToSlash(rel), abs: p})
		return nil
	})
	return files, err
}

// file is a zip.File read from disk.
type file struct{ rel, abs string }

func (f file) Path() string                 { return f.rel }
func (f file) Lstat() (os.FileInfo, error)  { return os.Lstat(f.abs) }
func (f file) Open() (io.ReadCloser, error) { return os.Open(f.abs) }
