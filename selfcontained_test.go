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
