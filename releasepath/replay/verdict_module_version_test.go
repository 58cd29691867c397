package main

import (
	"strings"
	"testing"
)

// TestVerdictWithoutAModuleVersionIsRefused: verdicts.tsv's first column is module@version
// (corpus.tsv refuses a row without the version: "is not module@version"); a verdict row without
// it can match no finding, and is refused with the file's prefix, as the harness's bad files are
// (exit status 2).
func TestVerdictWithoutAModuleVersionIsRefused(t *testing.T) {
	rows, err := readTSV(strings.NewReader(verdictsHeader+"\nexample.com/m\ta.go:3\tOpen:2 → f.Close\treal\tw\n"), "v.tsv", 5, verdictsHeader)
	if err == nil {
		_, err = parseVerdicts(rows, "v.tsv")
	}
	if err == nil {
		t.Fatal("a verdict for example.com/m, without a version, was accepted")
	}
	if !strings.HasPrefix(err.Error(), "replay: v.tsv") {
		t.Errorf("error without the file's prefix: %v", err)
	}
}
