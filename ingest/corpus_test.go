package ingest

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/x-way/crawlerdetect"
	"zgo.at/isbot"
)

// Targets for the bot verdict on published corpora (docs/enrichment.md has
// the measured figures).
const (
	minBotRecall         = 0.95
	maxFalsePositiveRate = 0.005
	// The user-agents corpus labels each user agent's device; phones,
	// tablets and desktops are what it holds.
	minDeviceAccuracy = 0.99
)

// crawlerCorpus is crawler-user-agents.json: one entry per crawler, with
// real user agents it was seen sending.
type crawlerCorpus []struct {
	Pattern   string   `json:"pattern"`
	Instances []string `json:"instances"`
}

// browserCorpus is the user-agents package's data: real browser visits,
// weighted by how often each was seen.
type browserCorpus []struct {
	UserAgent      string  `json:"userAgent"`
	DeviceCategory string  `json:"deviceCategory"`
	Weight         float64 `json:"weight"`
}

func TestBotDetectionOnPublishedCorpora(t *testing.T) {
	crawlers, browsers := loadCorpora(t)

	var (
		caught, caughtByIsbot, caughtByCrawlerdetect, total int
		missed                                              []string
	)
	for _, c := range crawlers {
		for _, ua := range c.Instances {
			total++
			if ParseUserAgent(ua).Bot {
				caught++
			} else {
				missed = append(missed, ua)
			}
			if isbot.Is(isbot.UserAgent(ua)) {
				caughtByIsbot++
			}
			if crawlerdetect.IsCrawler(ua) {
				caughtByCrawlerdetect++
			}
		}
	}
	if total == 0 {
		t.Fatal("crawler corpus holds no user agents")
	}
	recall := float64(caught) / float64(total)

	distinct := make(map[string]bool)
	var flagged []string
	var flaggedWeight, totalWeight float64
	for _, b := range browsers {
		bot := ParseUserAgent(b.UserAgent).Bot
		totalWeight += b.Weight
		if bot {
			flaggedWeight += b.Weight
		}
		if _, seen := distinct[b.UserAgent]; !seen {
			distinct[b.UserAgent] = bot
			if bot {
				flagged = append(flagged, b.UserAgent)
			}
		}
	}
	if len(distinct) == 0 {
		t.Fatal("browser corpus holds no user agents")
	}
	fpRate := float64(len(flagged)) / float64(len(distinct))

	t.Logf("recall on crawler-user-agents: %d/%d = %.2f%% (target >= %.0f%%)",
		caught, total, 100*recall, 100*minBotRecall)
	t.Logf("  zgo.at/isbot alone: %.2f%%, x-way/crawlerdetect alone: %.2f%%",
		100*float64(caughtByIsbot)/float64(total), 100*float64(caughtByCrawlerdetect)/float64(total))
	t.Logf("false positives on user-agents: %d/%d distinct = %.3f%% (target <= %.1f%%), %.3f%% of weighted visits",
		len(flagged), len(distinct), 100*fpRate, 100*maxFalsePositiveRate, 100*flaggedWeight/totalWeight)
	for _, ua := range flagged {
		t.Logf("  flagged browser: %s", ua)
	}
	if testing.Verbose() {
		for _, ua := range missed {
			t.Logf("  missed crawler: %s", ua)
		}
	}

	if recall < minBotRecall {
		t.Errorf("bot recall %.2f%% is below the %.0f%% target (go test -v lists the misses)", 100*recall, 100*minBotRecall)
	}
	if fpRate > maxFalsePositiveRate {
		t.Errorf("bot false-positive rate %.3f%% is above the %.1f%% target", 100*fpRate, 100*maxFalsePositiveRate)
	}
}

func TestDeviceTypeOnPublishedCorpus(t *testing.T) {
	_, browsers := loadCorpora(t)
	seen := make(map[string]bool)
	var right, total int
	for _, b := range browsers {
		if seen[b.UserAgent] {
			continue
		}
		seen[b.UserAgent] = true
		total++
		if got := ParseUserAgent(b.UserAgent).Device; got == b.DeviceCategory {
			right++
		} else if testing.Verbose() {
			t.Logf("  device %q, corpus says %q: %s", got, b.DeviceCategory, b.UserAgent)
		}
	}
	accuracy := float64(right) / float64(total)
	t.Logf("device type agrees with user-agents' label on %d/%d distinct = %.2f%%", right, total, 100*accuracy)
	if accuracy < minDeviceAccuracy {
		t.Errorf("device accuracy %.2f%% is below %.0f%%", 100*accuracy, 100*minDeviceAccuracy)
	}
}

// loadCorpora reads the corpora that testdata/fetch-corpora.sh installs. A
// missing corpus fails the test rather than skipping it: the figures are the
// evidence that the bot detector works.
func loadCorpora(t *testing.T) (crawlerCorpus, browserCorpus) {
	t.Helper()
	const howTo = "install the published corpora with\n" +
		"\tingest/testdata/fetch-corpora.sh [DIR]   (DIR defaults to .cache/corpora)\n" +
		"and run the tests with UA_CORPUS_DIR=DIR (an absolute path)"
	dir := os.Getenv("UA_CORPUS_DIR")
	if dir == "" {
		t.Fatalf("UA_CORPUS_DIR is not set: %s", howTo)
	}

	var crawlers crawlerCorpus
	readCorpus(t, howTo, &crawlers, filepath.Join(dir, "crawler-user-agents", "crawler-user-agents.json"))
	var browsers browserCorpus
	// The user-agents package has shipped its data both gzipped and plain.
	readCorpus(t, howTo, &browsers,
		filepath.Join(dir, "user-agents", "dist", "user-agents.json.gz"),
		filepath.Join(dir, "user-agents", "dist", "user-agents.json"))

	t.Logf("corpora: crawler-user-agents %s, user-agents %s",
		packageVersion(t, filepath.Join(dir, "crawler-user-agents")), packageVersion(t, filepath.Join(dir, "user-agents")))
	return crawlers, browsers
}

// readCorpus decodes the first of paths that exists, gunzipping it when it
// is compressed.
func readCorpus(t *testing.T, howTo string, v any, paths ...string) {
	t.Helper()
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatalf("read corpus: %v", err)
		}
		if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
			zr, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("read corpus %s: %v", path, err)
			}
			if data, err = io.ReadAll(zr); err != nil {
				t.Fatalf("read corpus %s: %v", path, err)
			}
		}
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatalf("read corpus %s: %v", path, err)
		}
		return
	}
	t.Fatalf("corpus not found (looked for %v): %s", paths, howTo)
}

func packageVersion(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return "(unknown version)"
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		return "(unknown version)"
	}
	return pkg.Version
}
