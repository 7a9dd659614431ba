package main

// Fault tests of the collection pipeline, on the real binary run as subprocesses (so that
// SIGTERM, exit codes and connection refusals are real): a database that goes away and comes
// back, a SIGTERM in the middle of traffic, and two nodes writing the same rows. Each checks the
// one promise of POST /api/event: every hit answered 202 is in the stats exactly once, and a
// hit answered anything else is not.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
)

const (
	// uaMarker ends the user agent of every request the tests send: it must never reach a log
	// (CONTRACT.md section 4: no user agent is written to disk).
	uaMarker  = "FaultTestBrowser/7.3"
	browserUA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 " + uaMarker
	// visitorIP is what the trusted proxy (127.0.0.1) forwards: the collector uses it and must
	// drop it, so it must never reach a log either.
	visitorIP = "203.0.113.7"

	// senderLimit stops every sender by itself, even when a test fails before stopping it.
	senderLimit = 30 * time.Second
	// exitWithin bounds the wait for a server to exit after SIGTERM; SHUTDOWN_TIMEOUT is below.
	exitWithin = 25 * time.Second
)

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
func buildServerBinary(t *testing.T) string {
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
func freshDatabase(t *testing.T) string {
	t.Helper()
	_, url := repotest.New(t)
	return url
}

// ---------------------------------------------------------------------------------------------
// Server processes.

// lockedBuffer collects a child's output; exec copies into it from its own goroutine.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// serverProc is one `analytics serve` process on 127.0.0.1.
type serverProc struct {
	name string
	base string // http://127.0.0.1:PORT
	cmd  *exec.Cmd
	logs *lockedBuffer
	done chan struct{} // closed once the process has exited and its output is copied
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
func startServerProc(t *testing.T, bin, name, dbURL string, env ...string) *serverProc {
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

func launch(t *testing.T, bin, name, dbURL string, env []string) *serverProc {
	t.Helper()
	addr := freeAddr(t)
	s := &serverProc{name: name, base: "http://" + addr, logs: &lockedBuffer{}, done: make(chan struct{})}
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

func freeAddr(t *testing.T) string {
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

// metric reads one unlabelled sample from /metrics; ok is false when there is none.
func (s *serverProc) metric(name string) (float64, bool) {
	client := &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{Proxy: nil}}
	defer client.CloseIdleConnections()
	resp, err := client.Get(s.base + "/metrics")
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if value, found := strings.CutPrefix(sc.Text(), name+" "); found {
			v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
			return v, err == nil
		}
	}
	return 0, false
}

func (s *serverProc) mustMetric(t *testing.T, name string) float64 {
	t.Helper()
	v, ok := s.metric(name)
	if !ok {
		t.Fatalf("%s: no %s in /metrics", s.name, name)
	}
	return v
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

// anyIPv4 finds dotted quads in the logs; only the servers' own listen address may appear.
var anyIPv4 = regexp.MustCompile(`\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b`)

// checkLogPrivacy: no visitor IP and no user agent is ever written (CONTRACT.md section 4).
func checkLogPrivacy(t *testing.T, name, logs string) {
	t.Helper()
	for _, secret := range []string{visitorIP, uaMarker, "AppleWebKit"} {
		if strings.Contains(logs, secret) {
			t.Errorf("%s logged %q: no IP address or user agent may be written", name, secret)
		}
	}
	for _, ip := range anyIPv4.FindAllString(logs, -1) {
		if ip != "127.0.0.1" {
			t.Errorf("%s logged the IP address %s", name, ip)
		}
	}
}

// createAPIUser runs `analytics user create`, which prints the API key alone on its last line.
func createAPIUser(t *testing.T, bin, dbURL string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "user", "create", "--email", "fault@example.com")
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
func (s *serverProc) createSite(t *testing.T, key, domain string) int64 {
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

// ---------------------------------------------------------------------------------------------
// Senders of pageview hits.

// maxPhases is how many phases a test may mark; a hit whose phase changed while in flight is
// tallied apart (index maxPhases), so that "during the outage" means sent and answered in it.
const maxPhases = 4

type phaseTally struct {
	accepted    atomic.Int64 // 202: the server promised to count it
	unavailable atomic.Int64 // 503: the buffer was full; not counted
	failed      atomic.Int64 // no answer (refused, reset): the collector never ran for it
}

type hitTally struct {
	phase [maxPhases + 1]phaseTally
	// timedOut hits have an unknown fate (the server may have counted them): the exact
	// comparison would mean nothing, so any of them fails the test.
	timedOut atomic.Int64
	// other statuses are a bug of the test or of the server.
	other      atomic.Int64
	otherFirst atomic.Pointer[string]
}

func (h *hitTally) sum(get func(*phaseTally) *atomic.Int64) int64 {
	var n int64
	for i := range h.phase {
		n += get(&h.phase[i]).Load()
	}
	return n
}

func (h *hitTally) accepted() int64 {
	return h.sum(func(p *phaseTally) *atomic.Int64 { return &p.accepted })
}

func (h *hitTally) unavailable() int64 {
	return h.sum(func(p *phaseTally) *atomic.Int64 { return &p.unavailable })
}

func (h *hitTally) failed() int64 {
	return h.sum(func(p *phaseTally) *atomic.Int64 { return &p.failed })
}

// hitSender posts pageviews to one server, round-robin over hosts and paths, from a few
// goroutines, until stopped or senderLimit.
type hitSender struct {
	target *serverProc
	hosts  []string
	pages  int           // distinct paths per host; 0 means a new path for every hit
	pause  time.Duration // between two hits of one goroutine, to leave CPU to PostgreSQL
	phase  *atomic.Int32 // the test's phase, for the tally; nil means phase 0
	client *http.Client
	seq    atomic.Int64
	tally  hitTally
}

func newHitSender(target *serverProc, hosts []string, pages int, phase *atomic.Int32) *hitSender {
	return &hitSender{
		target: target, hosts: hosts, pages: pages, phase: phase,
		// A generous timeout: a client that gives up on a hit the server has counted would
		// break the exact comparison; timeouts are tallied and fail the test.
		client: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
			Proxy: nil, MaxIdleConnsPerHost: 16, DisableCompression: true,
		}},
	}
}

// start runs n goroutines; the returned stop waits for them and may be called more than once.
func (s *hitSender) start(t *testing.T, n int) (stop func()) {
	ctx, cancel := context.WithTimeout(context.Background(), senderLimit)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				s.hit()
				if s.pause > 0 {
					time.Sleep(s.pause)
				}
			}
		}()
	}
	stop = func() {
		cancel()
		wg.Wait()
		s.client.CloseIdleConnections()
	}
	t.Cleanup(stop)
	return stop
}

func (s *hitSender) currentPhase() int {
	if s.phase == nil {
		return 0
	}
	return int(s.phase.Load())
}

// hit posts one pageview. The request carries no context: cancelling it in flight could leave
// a hit counted by the server and not by the test.
func (s *hitSender) hit() {
	i := s.seq.Add(1)
	host := s.hosts[i%int64(len(s.hosts))]
	path := i
	if s.pages > 0 {
		path = (i / int64(len(s.hosts))) % int64(s.pages)
	}
	body := fmt.Sprintf(`{"page":"https://%s/p%d","referrer":"","screen_resolution":"1x1"}`, host, path)
	req, err := http.NewRequest(http.MethodPost, s.target.base+"/api/event", strings.NewReader(body))
	if err != nil {
		panic(err) // a constant URL shape: cannot happen
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", browserUA)
	req.Header.Set("Accept-Language", "en-US,en;q=0.8")
	req.Header.Set("X-Forwarded-For", visitorIP)

	before := s.currentPhase()
	resp, err := s.client.Do(req)
	after := s.currentPhase()
	bucket := &s.tally.phase[maxPhases]
	if before == after {
		bucket = &s.tally.phase[after]
	}
	if err != nil {
		var netErr net.Error
		if errors.As(err, &netErr) && netErr.Timeout() {
			s.tally.timedOut.Add(1)
			return
		}
		bucket.failed.Add(1)
		time.Sleep(5 * time.Millisecond) // a refusing port answers at once: do not spin
		return
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusAccepted:
		bucket.accepted.Add(1)
	case http.StatusServiceUnavailable:
		bucket.unavailable.Add(1)
	default:
		s.tally.other.Add(1)
		msg := fmt.Sprintf("%d for %s", resp.StatusCode, body)
		s.tally.otherFirst.CompareAndSwap(nil, &msg)
	}
}

// checkClean fails on hits of unknown fate or unexpected statuses.
func (s *hitSender) checkClean(t *testing.T, name string) {
	t.Helper()
	if n := s.tally.timedOut.Load(); n > 0 {
		t.Errorf("%s: %d hits timed out; their fate is unknown", name, n)
	}
	if n := s.tally.other.Load(); n > 0 {
		t.Errorf("%s: %d hits answered neither 202 nor 503, first: %s", name, n, *s.tally.otherFirst.Load())
	}
}

// ---------------------------------------------------------------------------------------------
// What the database holds.

type statSums struct {
	pageview, page, visitor int64
	monthlyPageview         int64
	batches                 int64
	bySite                  map[int64]int64 // pageviews
}

func (s statSums) of(sites []int64) int64 {
	var n int64
	for _, id := range sites {
		n += s.bySite[id]
	}
	return n
}

// readSums opens a fresh connection each time: the test's own cluster restarts under it.
func readSums(dbURL string) (statSums, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	db, err := repository.Open(ctx, dbURL)
	if err != nil {
		return statSums{}, err
	}
	defer db.Close()
	sums := statSums{bySite: map[int64]int64{}}
	var byName []struct {
		Name  string `db:"name"`
		Count int64  `db:"count"`
	}
	if err := db.SelectContext(ctx, &byName, `SELECT name, sum(count)::bigint AS count FROM stats
		WHERE name IN ('pageview', 'page', 'visitor') GROUP BY name`); err != nil {
		return statSums{}, err
	}
	for _, row := range byName {
		switch row.Name {
		case "pageview":
			sums.pageview = row.Count
		case "page":
			sums.page = row.Count
		case "visitor":
			sums.visitor = row.Count
		}
	}
	var bySite []struct {
		ID    int64 `db:"website_id"`
		Count int64 `db:"count"`
	}
	if err := db.SelectContext(ctx, &bySite, `SELECT website_id, sum(count)::bigint AS count FROM stats
		WHERE name = 'pageview' GROUP BY website_id`); err != nil {
		return statSums{}, err
	}
	for _, row := range bySite {
		sums.bySite[row.ID] = row.Count
	}
	// Flushes write the rollups of ended periods only: roll up as if this month had ended, so
	// that the monthly rows of these hits exist to compare with the daily ones.
	if err := repository.New(db, nil).RollUp(ctx, time.Now().AddDate(0, 2, 0)); err != nil {
		return statSums{}, err
	}
	if err := db.GetContext(ctx, &sums.monthlyPageview,
		`SELECT coalesce(sum(count), 0)::bigint FROM stats_monthly WHERE name = 'pageview'`); err != nil {
		return statSums{}, err
	}
	if err := db.GetContext(ctx, &sums.batches, `SELECT count(*) FROM ingest_batches`); err != nil {
		return statSums{}, err
	}
	return sums, nil
}

func mustReadSums(t *testing.T, dbURL string) statSums {
	t.Helper()
	sums, err := readSums(dbURL)
	if err != nil {
		t.Fatalf("read the stats: %v", err)
	}
	return sums
}

// checkExact: the pageviews counted equal the 202 answers, and the other rows of the same
// hits agree (every hit of these tests is a visit with one page), daily and monthly alike.
func checkExact(t *testing.T, sums statSums, accepted int64) {
	t.Helper()
	if sums.pageview != accepted {
		t.Errorf("stats hold %d pageviews, the servers answered 202 to %d hits (off by %+d)",
			sums.pageview, accepted, sums.pageview-accepted)
	}
	if sums.page != sums.pageview || sums.visitor != sums.pageview || sums.monthlyPageview != sums.pageview {
		t.Errorf("rows of the same hits disagree: pageview %d, page %d, visitor %d, monthly pageview %d",
			sums.pageview, sums.page, sums.visitor, sums.monthlyPageview)
	}
}

// waitUntil polls cond every 50 ms, at most for within.
func waitUntil(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %v waiting for %s", within, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ---------------------------------------------------------------------------------------------
// The tests.

// Phases of the outage test.
const (
	beforeOutage int32 = iota
	duringOutage
	recovering // the cluster is starting again; flushes retry with backoff
	recovered  // both servers wrote after the outage
)

// TestFlushSurvivesDatabaseOutage stops the database under two servers that keep receiving
// hits: "steady" with the default buffer, which keeps answering 202 from memory, and "tiny"
// with BUFFER_MAX_KEYS=50 and a new page on every hit, which fills up and answers 503. After
// the database is back, both write their retried batches (same ids) and then exit cleanly;
// every 202 is counted once and no 503 is.
func TestFlushSurvivesDatabaseOutage(t *testing.T) {
	start := time.Now()
	bin := buildServerBinary(t)
	pg := startOwnCluster(t)
	key := createAPIUser(t, bin, pg.url)

	steady := startServerProc(t, bin, "steady", pg.url, "FLUSH_INTERVAL=100ms")
	tiny := startServerProc(t, bin, "tiny", pg.url, "FLUSH_INTERVAL=100ms", "BUFFER_MAX_KEYS=50")
	steadyHosts := []string{"steady-1.fault.test", "steady-2.fault.test"}
	steadySites := []int64{steady.createSite(t, key, steadyHosts[0]), steady.createSite(t, key, steadyHosts[1])}
	tinySites := []int64{tiny.createSite(t, key, "tiny.fault.test")}

	var phase atomic.Int32
	steadyHits := newHitSender(steady, steadyHosts, 8, &phase)
	steadyHits.pause = time.Millisecond
	tinyHits := newHitSender(tiny, []string{"tiny.fault.test"}, 0, &phase)
	tinyHits.pause = 2 * time.Millisecond
	stopSteady := steadyHits.start(t, 2)
	stopTiny := tinyHits.start(t, 1)

	// Both pipelines write before the outage.
	waitUntil(t, 10*time.Second, "the first flushes of both servers", func() bool {
		sums, err := readSums(pg.url)
		return err == nil && sums.of(steadySites) > 0 && sums.of(tinySites) > 0
	})

	pg.stop(t)
	phase.Store(duringOutage)
	outageStart := time.Now()
	waitUntil(t, 5*time.Second, "/readyz to report the database gone", func() bool {
		return steady.status("/readyz") == http.StatusServiceUnavailable
	})
	// The API is not ready, but collection is while its buffer has room: steady's does, tiny's
	// fills up.
	if got := steady.status("/readyz/collect"); got != http.StatusOK {
		t.Errorf("steady /readyz/collect %d during the outage with room in its buffer, want 200", got)
	}
	waitUntil(t, 5*time.Second, "tiny's /readyz/collect to report its buffer full", func() bool {
		return tiny.status("/readyz/collect") == http.StatusServiceUnavailable
	})
	time.Sleep(3*time.Second - time.Since(outageStart))
	flushesAtRestart := steady.mustMetric(t, "analytics_flushes_total")
	tinyFlushesAtRestart := tiny.mustMetric(t, "analytics_flushes_total")
	phase.Store(recovering)
	pg.start(t)

	// A successful write after the outage is the retried batch: the flusher writes its pending
	// batch before taking a new one. The tiny buffer then has room again.
	waitUntil(t, 20*time.Second, "both servers to write after the outage", func() bool {
		a, okA := steady.metric("analytics_flushes_total")
		b, okB := tiny.metric("analytics_flushes_total")
		return okA && okB && a > flushesAtRestart && b > tinyFlushesAtRestart
	})
	phase.Store(recovered)
	waitUntil(t, 5*time.Second, "tiny's /readyz/collect to be ready again", func() bool {
		return tiny.status("/readyz/collect") == http.StatusOK
	})
	time.Sleep(time.Second)
	stopSteady()
	stopTiny()

	for _, s := range []*serverProc{steady, tiny} {
		if failures := s.mustMetric(t, "analytics_flush_failures_total"); failures == 0 {
			t.Errorf("%s saw no failed flush: the outage did not reach it", s.name)
		}
	}
	steady.terminate(t)
	tiny.terminate(t)
	steady.waitExit(t)
	tiny.waitExit(t)

	sums := mustReadSums(t, pg.url)
	steadyHits.checkClean(t, "steady")
	tinyHits.checkClean(t, "tiny")
	checkExact(t, sums, steadyHits.tally.accepted()+tinyHits.tally.accepted())
	if got, want := sums.of(steadySites), steadyHits.tally.accepted(); got != want {
		t.Errorf("steady: %d pageviews counted, %d answered 202", got, want)
	}
	if got, want := sums.of(tinySites), tinyHits.tally.accepted(); got != want {
		t.Errorf("tiny: %d pageviews counted, %d answered 202", got, want)
	}

	during := &steadyHits.tally.phase[duringOutage]
	if during.accepted.Load() == 0 {
		t.Error("steady answered no 202 during the outage: the endpoint must not need the database")
	}
	if during.unavailable.Load() != 0 {
		t.Errorf("steady answered 503 %d times during the outage, with a buffer far from full", during.unavailable.Load())
	}
	if tinyHits.tally.phase[duringOutage].unavailable.Load() == 0 {
		t.Error("tiny (BUFFER_MAX_KEYS=50) never answered 503 during the outage")
	}
	if tinyHits.tally.phase[recovered].accepted.Load() == 0 {
		t.Error("tiny answered no 202 after the database came back")
	}
	if steadyHits.tally.failed()+tinyHits.tally.failed() != 0 {
		t.Errorf("%d hits got no answer while the servers ran", steadyHits.tally.failed()+tinyHits.tally.failed())
	}

	for _, p := range []struct {
		name string
		n    int32
	}{{"before", beforeOutage}, {"during", duringOutage}, {"recovering", recovering}, {"recovered", recovered}, {"straddling", maxPhases}} {
		t.Logf("%-10s steady 202=%d 503=%d | tiny 202=%d 503=%d", p.name,
			steadyHits.tally.phase[p.n].accepted.Load(), steadyHits.tally.phase[p.n].unavailable.Load(),
			tinyHits.tally.phase[p.n].accepted.Load(), tinyHits.tally.phase[p.n].unavailable.Load())
	}
	t.Logf("202 steady=%d tiny=%d; 503 tiny=%d; pageviews in stats %d (steady %d, tiny %d); %d batches; %v",
		steadyHits.tally.accepted(), tinyHits.tally.accepted(), tinyHits.tally.unavailable(),
		sums.pageview, sums.of(steadySites), sums.of(tinySites), sums.batches, time.Since(start).Round(time.Millisecond))
}

// TestShutdownWhileEventsArrive sends SIGTERM to a server while four senders keep posting. The
// server must stop accepting (the senders then meet refusals), write every counter it holds and
// exit 0. With FLUSH_INTERVAL=1h nothing is written before the signal, so the shutdown drain
// alone must write every hit.
func TestShutdownWhileEventsArrive(t *testing.T) {
	bin := buildServerBinary(t)
	for _, tc := range []struct {
		name      string
		interval  string
		drainOnly bool
	}{
		{"drain-only", "1h", true},
		{"flushing", "50ms", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			dbURL := freshDatabase(t)
			key := createAPIUser(t, bin, dbURL)
			srv := startServerProc(t, bin, "server", dbURL, "FLUSH_INTERVAL="+tc.interval)
			hosts := []string{"shutdown-1.fault.test", "shutdown-2.fault.test"}
			sites := []int64{srv.createSite(t, key, hosts[0]), srv.createSite(t, key, hosts[1])}

			var phase atomic.Int32 // 1 once SIGTERM is sent
			hits := newHitSender(srv, hosts, 20, &phase)
			stop := hits.start(t, 4)
			waitUntil(t, 15*time.Second, "500 hits answered 202", func() bool { return hits.tally.accepted() >= 500 })

			acceptedAtRead := hits.tally.accepted()
			before := mustReadSums(t, dbURL)
			if tc.drainOnly && before.pageview != 0 {
				t.Fatalf("with FLUSH_INTERVAL=1h, %d pageviews were written before SIGTERM", before.pageview)
			}
			if !tc.drainOnly {
				waitUntil(t, 5*time.Second, "the periodic flusher to write", func() bool {
					sums, err := readSums(dbURL)
					return err == nil && sums.pageview > 0
				})
			}

			phase.Store(1)
			srv.terminate(t)
			srv.waitExit(t)
			// The senders keep going: the closed port must refuse them, and none may get a 202.
			waitUntil(t, 5*time.Second, "the senders to be refused", func() bool {
				return hits.tally.phase[1].failed.Load() > 0
			})
			refusedAt := hits.tally.phase[1].failed.Load()
			acceptedAt := hits.tally.accepted()
			time.Sleep(200 * time.Millisecond)
			stop()
			if hits.tally.accepted() != acceptedAt {
				t.Errorf("%d hits answered 202 after the server exited", hits.tally.accepted()-acceptedAt)
			}
			if hits.tally.phase[1].failed.Load() == refusedAt {
				t.Errorf("the senders stopped meeting refusals after the server exited")
			}

			if n := hits.tally.phase[0].failed.Load(); n != 0 {
				t.Errorf("%d hits got no answer before SIGTERM", n)
			}

			sums := mustReadSums(t, dbURL)
			hits.checkClean(t, "server")
			checkExact(t, sums, hits.tally.accepted())
			if got := sums.of(sites); got != sums.pageview {
				t.Errorf("%d pageviews belong to other websites", sums.pageview-got)
			}
			t.Logf("202=%d (before SIGTERM %d, after %d, in flight at SIGTERM %d); no answer=%d; "+
				"pageviews written before SIGTERM (at %d 202s) %d; pageviews in stats %d; %d batches; %v",
				hits.tally.accepted(), hits.tally.phase[0].accepted.Load(), hits.tally.phase[1].accepted.Load(),
				hits.tally.phase[maxPhases].accepted.Load(), hits.tally.failed(), acceptedAtRead, before.pageview,
				sums.pageview, sums.batches, time.Since(start).Round(time.Millisecond))
		})
	}
}

// TestTwoServersOneDatabase runs two nodes on one database, both receiving hits for the same
// websites and pages, both flushing every 50 ms so that their upserts of the same rows
// overlap. Sorted keys keep them from deadlocking (no flush may even fail); after SIGTERM to
// both, every 202 of either is counted once.
func TestTwoServersOneDatabase(t *testing.T) {
	start := time.Now()
	bin := buildServerBinary(t)
	dbURL := freshDatabase(t)
	key := createAPIUser(t, bin, dbURL)

	a := startServerProc(t, bin, "node-a", dbURL, "FLUSH_INTERVAL=50ms")
	hosts := []string{"shared-1.fault.test", "shared-2.fault.test", "shared-3.fault.test"}
	sites := make([]int64, len(hosts))
	for i, h := range hosts {
		sites[i] = a.createSite(t, key, h)
	}
	// node-b loads the websites when it starts, so it knows them without waiting for SETTINGS_TTL.
	b := startServerProc(t, bin, "node-b", dbURL, "FLUSH_INTERVAL=50ms")

	// Forty pages per website: each flush upserts some 150 rows that the other node's
	// flushes upsert too, in the same order.
	toA := newHitSender(a, hosts, 40, nil)
	toB := newHitSender(b, hosts, 40, nil)
	stopA := toA.start(t, 2)
	stopB := toB.start(t, 2)
	time.Sleep(3 * time.Second)
	running := mustReadSums(t, dbURL)
	if running.pageview == 0 {
		t.Fatal("nothing was written while both nodes ran")
	}

	a.terminate(t)
	b.terminate(t)
	a.waitExit(t)
	b.waitExit(t)
	waitUntil(t, 5*time.Second, "the senders to be refused", func() bool {
		return toA.tally.failed() > 0 && toB.tally.failed() > 0
	})
	stopA()
	stopB()

	sums := mustReadSums(t, dbURL)
	toA.checkClean(t, "node-a")
	toB.checkClean(t, "node-b")
	checkExact(t, sums, toA.tally.accepted()+toB.tally.accepted())
	if got := sums.of(sites); got != sums.pageview {
		t.Errorf("%d pageviews belong to other websites", sums.pageview-got)
	}
	if toA.tally.accepted() == 0 || toB.tally.accepted() == 0 {
		t.Errorf("each node must have counted hits: node-a %d, node-b %d", toA.tally.accepted(), toB.tally.accepted())
	}
	for _, s := range []*serverProc{a, b} {
		logs := s.logs.String()
		if strings.Contains(logs, "deadlock") || strings.Contains(logs, "flush failed") {
			t.Errorf("%s: a flush failed while the database was up (deadlock between the nodes?)", s.name)
		}
	}
	t.Logf("202 node-a=%d node-b=%d total=%d; 503=%d; pageviews in stats %d (%d while running); %d batches; %v",
		toA.tally.accepted(), toB.tally.accepted(), toA.tally.accepted()+toB.tally.accepted(),
		toA.tally.unavailable()+toB.tally.unavailable(), sums.pageview, running.pageview, sums.batches,
		time.Since(start).Round(time.Millisecond))
}
