package main

// Fault tests of the collection pipeline, on the real binary run as subprocesses (so that
// SIGTERM, exit codes and connection refusals are real): a database that goes away and comes
// back, a SIGTERM in the middle of traffic, and two nodes writing the same rows. Each checks the
// one promise of POST /api/event: every hit answered 202 is in the stats exactly once, and a
// hit answered anything else is not.
//
// The harness is in proc_test.go (the server binary, a cluster of the test's own, the server
// processes), traffic_test.go (the hit sender and its tallies) and sums_test.go (the stats the
// database holds, and the logs' privacy).

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const (
	// uaMarker ends the user agent of every request the tests send: it must never reach a log
	// (no user agent is written to disk).
	uaMarker  = "FaultTestBrowser/7.3"
	browserUA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 " + uaMarker
	// visitorIP is what the trusted proxy (127.0.0.1) forwards: the collector uses it and must
	// drop it, so it must never reach a log either.
	visitorIP = "203.0.113.7"
)

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
	flushesAtRestart := steady.metrics(t).Require(t, "analytics_flushes_total")
	tinyFlushesAtRestart := tiny.metrics(t).Require(t, "analytics_flushes_total")
	phase.Store(recovering)
	pg.start(t)

	// A successful write after the outage is the retried batch: the flusher writes its pending
	// batch before taking a new one. The tiny buffer then has room again.
	waitUntil(t, 20*time.Second, "both servers to write after the outage", func() bool {
		a, okA := steady.metrics(t).Lookup("analytics_flushes_total")
		b, okB := tiny.metrics(t).Lookup("analytics_flushes_total")
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
		if failures := s.metrics(t).Require(t, "analytics_flush_failures_total"); failures == 0 {
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
