package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrecisionPageHoldsTheMeasuredFigures: PRECISION.md says "Every figure on this page is
// printed by the replay harness ... and written here by it", and the README sends readers to it
// for "Measured precision and recall". Each section the harness writes holds its table.
func TestPrecisionPageHoldsTheMeasuredFigures(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "PRECISION.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"precision", "recall", "cost"} {
		start, end := "<!-- replay:"+name+" -->", "<!-- replay:"+name+":end -->"
		i, j := strings.Index(string(b), start), strings.Index(string(b), end)
		if i < 0 || j < i {
			t.Errorf("no %s section", name)
			continue
		}
		if body := strings.TrimSpace(string(b[i+len(start) : j])); !strings.Contains(body, "|") {
			t.Errorf("the %s section holds no table: %q", name, body)
		}
	}
}
