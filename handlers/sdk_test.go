package handlers_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestTypeScriptSDK builds the TypeScript SDK (tsc, strict) and runs its tests (node --test,
// sdk/typescript/test) against the running service. Node and npm are required: without them
// the test fails, it never skips.
func TestTypeScriptSDK(t *testing.T) {
	dir := buildTypeScriptSDK(t)
	s := newLiveServer(t)
	run(t, dir, []string{"ANALYTICS_BASE_URL=" + s.URL, "ANALYTICS_API_KEY=" + s.Key, "ANALYTICS_DAY=" + s.Day},
		"node", "--test", "--test-reporter=spec", filepath.Join("dist", "test", "client.test.js"))
	s.requireEveryOperation(t, 200, 201, 202, 204, 400, 401, 404, 422)
}

// buildTypeScriptSDK installs the SDK's dependencies when package-lock.json changed, builds it
// with its tests (into dist/) and returns its directory. Node and npm are required: without
// them the test fails, it never skips.
func buildTypeScriptSDK(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not found: install it (apt-get install -y npm) to test the TypeScript SDK", tool)
		}
	}
	dir, err := filepath.Abs(filepath.Join("..", "sdk", "typescript"))
	if err != nil {
		t.Fatal(err)
	}
	if stale(filepath.Join(dir, "node_modules", ".package-lock.json"), filepath.Join(dir, "package-lock.json")) {
		run(t, dir, nil, "npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts")
	}
	run(t, dir, nil, "npm", "run", "--silent", "build")
	return dir
}

// stale reports whether installed is missing or older than lock.
func stale(installed, lock string) bool {
	i, err := os.Stat(installed)
	if err != nil {
		return true
	}
	l, err := os.Stat(lock)
	return err != nil || l.ModTime().After(i.ModTime())
}

func run(t *testing.T, dir string, env []string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v in %s: %v\n%s", name, args, dir, err, out)
	}
	t.Logf("%s %v: %s\n%s", name, args, time.Since(start).Round(time.Millisecond), out)
}
