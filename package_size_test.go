package analytics_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxPackageLines bounds each Go package's non-test code (generated code apart): past it a
// package holds more than one job, and a newcomer cannot read it. Split by job when it fails
// (docs/structure.md, "The HTML side" for how pages was split).
const maxPackageLines = 6000

// TestNoPackageOverMaxLines counts the lines of every package's non-test Go files.
func TestNoPackageOverMaxLines(t *testing.T) {
	lines := map[string]int{}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "gen", "node_modules", ".git", ".cache", ".data", "tmp":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines[filepath.Dir(path)] += bytes.Count(data, []byte("\n"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if lines["pages"] == 0 || lines["repository"] == 0 {
		t.Fatalf("counted %v: expected the pages and repository packages", lines)
	}
	for dir, n := range lines {
		if n > maxPackageLines {
			t.Errorf("package %s has %d lines of non-test Go, more than %d: split it by job", dir, n, maxPackageLines)
		}
	}
}
