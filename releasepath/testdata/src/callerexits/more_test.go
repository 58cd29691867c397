package main

import (
	"log"
	"os"
	"testing"
)

// testHelper is called from a test that fails on its error with t.Fatal: that ends the
// test's goroutine, not the process, so what it leaves open outlives the test.
func testHelper(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err // want `return may skip f.Close \(Open at line 12\)`
	}
	return f.Close()
}

// testHelperExit is called from a test that ends the process with log.Fatal.
func testHelperExit(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err
	}
	return f.Close()
}

func TestHelpers(t *testing.T) {
	if err := testHelper(os.Args[0]); err != nil {
		t.Fatal(err)
	}
	if err := testHelperExit(os.Args[0]); err != nil {
		log.Fatal(err)
	}
}
