package analytics_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestNoTrackedFileCitesOutsideDocuments keeps the repository explaining itself: the product's
// rules are stated where they are needed (comments, docs/), never by pointing at a document that
// is not in the repository. openapi.yaml matters most, since its text reaches the generated
// clients.
func TestNoTrackedFileCitesOutsideDocuments(t *testing.T) {
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	outside := [][]byte{[]byte("CONTRACT" + ".md"), []byte("DESIGN" + ".md"), []byte("STYLE" + ".md")}
	files := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	if len(files) < 100 {
		t.Fatalf("git ls-files listed %d files; expected the whole repository", len(files))
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			if os.IsNotExist(err) {
				continue // deleted in the work tree, not yet committed
			}
			t.Fatal(err)
		}
		for _, doc := range outside {
			if i := bytes.Index(data, doc); i >= 0 {
				line := bytes.Count(data[:i], []byte("\n")) + 1
				t.Errorf("%s:%d cites %s, which is not in this repository: state the rule here or in docs/", name, line, doc)
			}
		}
	}
}

// TestReadmeConfigurationListsEachVariableOnce: the README's table of environment variables
// has one row a variable, so that a reader never meets two texts for one setting.
func TestReadmeConfigurationListsEachVariableOnce(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(data), "| variable | default | meaning |\n")
	if !ok {
		t.Fatal("README.md has no configuration table")
	}
	rows := map[string]int{}
	for _, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "|") {
			break
		}
		if name, _, ok := strings.Cut(strings.TrimPrefix(line, "| "), " |"); ok && strings.HasPrefix(name, "`") {
			rows[name]++
		}
	}
	if len(rows) < 10 {
		t.Fatalf("read %d variables from the configuration table; expected the whole table", len(rows))
	}
	for name, n := range rows {
		if n > 1 {
			t.Errorf("README.md's configuration table lists %s %d times", name, n)
		}
	}
}
