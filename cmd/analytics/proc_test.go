package main

// The harness of the fault tests (fault_test.go): the server binary, built once; a PostgreSQL
// cluster of the test's own, which a test may stop and start; `analytics serve` processes,
// their readiness, metrics and exit, and the user and websites the tests create through them.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/testkit"
)

// exitWithin bounds the wait for a server to exit after SIGTERM; SHUTDOWN_TIMEOUT is below.
const exitWithin = 25 * time.Second

// ---------------------------------------------------------------------------------------------
// The binary, built once per test binary.

var (
	buildOnce sync.Once
	buildDir  string
	buildBin  string
	buildErr  error
)

// TestMain removes the binary built for the fault tests once every test has run.
func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// buildServerBinary builds this command with `go build`, once per test binary. It mirrors -race
// from the test binary: a data race inside a server under fault then makes that server exit 66,
// which the exit-code checks catch.
func buildServerBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			buildErr = fmt.Errorf("the go command is not on PATH, so the server cannot be built: %w", err)
			return
		}
		if buildDir, err = os.MkdirTemp("", "analytics-fault-bin"); err != nil {
			buildErr = err
			return
		}
		buildBin = filepath.Join(buildDir, "analytics")
		args := []string{"build", "-o", buildBin}
		if raceEnabled() {
			args = append(args, "-race")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		// The test runs in the package directory, so "." is cmd/analytics.
		out, err := exec.CommandContext(ctx, goTool, append(args, ".")...).CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildBin
}

func raceEnabled() bool {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range info.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// ---------------------------------------------------------------------------------------------
// A PostgreSQL cluster of the test's own, which it can stop and start.

type ownCluster struct {
	script string
	dir    string
	url    string
}

// startOwnCluster initialises and starts a cluster in a fresh directory under /tmp (short, for
// the Unix socket path limit); it is stopped and removed when the test ends.
func startOwnCluster(t *testing.T) *ownCluster {
	t.Helper()
	script := filepath.Join(repoRoot(t), "scripts", "postgres.sh")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("scripts/postgres.sh is needed to run a cluster of the test's own: %v", err)
	}
	dir, err := os.MkdirTemp("/tmp", "pgfault")
	if err != nil {
		t.Fatal(err)
	}
	c := &ownCluster{script: script, dir: dir}
	t.Cleanup(func() {
		if _, err := c.run("stop", c.dir); err != nil {
			t.Errorf("stop the test's cluster: %v", err)
		}
		if err := os.RemoveAll(dir); err != nil {
			t.Errorf("remove the test's cluster: %v", err)
		}
	})
	c.start(t)
	return c
}

// start starts the cluster (initdb the first time) and records its DATABASE_URL; the same
// directory gives the same socket, so servers reconnect to it after a stop.
func (c *ownCluster) start(t *testing.T) {
	t.Helper()
	out, err := c.run("start", c.dir, "fast")
	if err != nil {
		t.Fatalf("start PostgreSQL in %s: %v", c.dir, err)
	}
	// The script prints the key=value connection string on its last line.
	lines := strings.Split(strings.TrimSpace(out), "\n")
	c.url = strings.TrimSpace(lines[len(lines)-1])
	if c.url == "" {
		t.Fatal("scripts/postgres.sh start printed no DATABASE_URL")
	}
}

func (c *ownCluster) stop(t *testing.T) {
	t.Helper()
	if _, err := c.run("stop", c.dir); err != nil {
		t.Fatalf("stop PostgreSQL in %s: %v", c.dir, err)
	}
}

func (c *ownCluster) run(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.script, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %v\n%s", filepath.Base(c.script), strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

// repoRoot is the directory of go.mod above the package directory the test runs in.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// freshDatabase is the URL of a new migrated database on the suite's cluster (DATABASE_URL,
// set by scripts/test.sh), dropped after the test; no DATABASE_URL is a failure, never a skip.
func freshDatabase(t testing.TB) string {
	t.Helper()
	_, url := repotest.New(t)
	return url
}

// ---------------------------------------------------------------------------------------------
// Server processes.

// serverProc is one `analytics serve` process on 127.0.0.1.
type serverProc struct {
	name string
	base string // http://127.0.0.1:PORT
	cmd  *exec.Cmd
	logs *testkit.SyncBuffer // the child's output; exec copies into it from its own goroutine
	done chan struct{}       // closed once the process has exited and its output is copied
}

// childEnv is the environment of every child: the test's own, with the settings these tests
// depend on. exec keeps the last value of a repeated name, so extra overrides the defaults.
func childEnv(dbURL string, extra ...string) []string {
	env := append(os.Environ(),
		"DATABASE_URL="+dbURL,
		"API_RATE_LIMIT=0",
		"EVENT_RATE_LIMIT=0", // every hit comes from one visitor address
		"TRUSTED_PROXIES=127.0.0.1/32",
		"SHUTDOWN_TIMEOUT=20s",
		"GEOIP_DB=",
	)
	return append(env, extra...)
}

// startServerProc starts `serve` on a free port and waits until /readyz answers 200. The
// process is killed at the end of the test if it still runs; its logs are printed when the test
// failed and always checked for IP addresses and user agents.
func startServerProc(t testing.TB, bin, name, dbURL string, env ...string) *serverProc {
	t.Helper()
	// The free port is found by binding and closing it, so another process may take it before
	// the server binds: try again on a new port then.
	for attempt := 1; ; attempt++ {
		s := launch(t, bin, name, dbURL, env)
		err := s.waitReady(30 * time.Second)
		if err == nil {
			return s
		}
		if attempt < 3 && strings.Contains(s.logs.String(), "address already in use") {
			continue
		}
		t.Fatalf("%s did not become ready: %v\n%s", name, err, s.logs.String())
	}
}

func launch(t testing.TB, bin, name, dbURL string, env []string) *serverProc {
	t.Helper()
	addr := freeAddr(t)
	s := &serverProc{name: name, base: "http://" + addr, logs: &testkit.SyncBuffer{}, done: make(chan struct{})}
	s.cmd = exec.Command(bin, "serve")
	s.cmd.Env = childEnv(dbURL, append([]string{"LISTEN_ADDR=" + addr}, env...)...)
	s.cmd.Stdout = s.logs
	s.cmd.Stderr = s.logs
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		_ = s.cmd.Wait() // the exit status is read from ProcessState
		close(s.done)
	}()
	t.Cleanup(func() {
		if !s.exited() {
			_ = s.cmd.Process.Kill()
			<-s.done
		}
		logs := s.logs.String()
		checkLogPrivacy(t, name, logs)
		if t.Failed() {
			t.Logf("--- %s logs ---\n%s", name, logs)
		}
	})
	return s
}

func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func (s *serverProc) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

func (s *serverProc) waitReady(within time.Duration) error {
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{Proxy: nil}}
	defer client.CloseIdleConnections()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if s.exited() {
			return fmt.Errorf("exited with %v", s.cmd.ProcessState)
		}
		if resp, err := client.Get(s.base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("no 200 from /readyz within %v", within)
}

// status is the HTTP status of a GET, or 0 when there is no answer.
func (s *serverProc) status(path string) int {
	client := &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{Proxy: nil}}
	defer client.CloseIdleConnections()
	resp, err := client.Get(s.base + path)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// metrics reads the server's /metrics, as its scraper does.
func (s *serverProc) metrics(t *testing.T) testkit.Metrics {
	t.Helper()
	return testkit.ScrapeMetrics(t, s.base+"/metrics")
}

func (s *serverProc) terminate(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM %s: %v", s.name, err)
	}
}

// waitExit waits for the exit that SIGTERM asked for and requires status 0: the server stops
// accepting, writes every counter and only then exits.
func (s *serverProc) waitExit(t *testing.T) {
	t.Helper()
	select {
	case <-s.done:
	case <-time.After(exitWithin):
		_ = s.cmd.Process.Kill()
		<-s.done
		t.Fatalf("%s did not exit within %v of SIGTERM", s.name, exitWithin)
	}
	if code := s.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("%s exited with status %d after SIGTERM, want 0", s.name, code)
	}
}

// createAPIUser runs `analytics user create`, which prints the API key alone on its last line.
func createAPIUser(t *testing.T, bin, dbURL string) string {
	t.Helper()
	return createUserKey(t, bin, dbURL, "fault@example.com")
}

// createUserKey creates the user email with `analytics user create` and returns its key.
func createUserKey(t testing.TB, bin, dbURL, email string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "user", "create", "--email", email)
	cmd.Env = childEnv(dbURL)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("analytics user create: %v\n%s", err, stderr.String())
	}
	fields := strings.Fields(string(out))
	if len(fields) == 0 {
		t.Fatal("analytics user create printed no key")
	}
	return fields[len(fields)-1]
}

// createSite stores a website through the API of s; s's settings cache sees it at once.
// exclude_bots=0 so that no hit of the tests is ignored as a bot, whatever its user agent.
func (s *serverProc) createSite(t testing.TB, key, domain string) int64 {
	t.Helper()
	form := url.Values{"domain": {domain}, "exclude_bots": {"0"}}
	req, err := http.NewRequest(http.MethodPost, s.base+"/api/v1/websites", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("User-Agent", browserUA)
	req.Header.Set("X-Forwarded-For", visitorIP)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Proxy: nil}}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("create website %s: %v", domain, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create website %s: %d %s", domain, resp.StatusCode, body)
	}
	var created struct {
		Data struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &created); err != nil || created.Data.ID == 0 {
		t.Fatalf("create website %s: no id in %s (%v)", domain, body, err)
	}
	return created.Data.ID
}
