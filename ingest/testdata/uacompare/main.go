// Command uacompare measures the candidate user-agent parsers and bot
// detectors on the published corpora that ingest/testdata/fetch-corpora.sh
// installs, and prints the tables recorded in docs/enrichment.md.
//
//	ingest/testdata/fetch-corpora.sh
//	cd ingest/testdata/uacompare && UA_CORPUS_DIR=$(realpath ../../../.cache/corpora) go run .
//
// It is a module of its own (the go tool skips testdata), so the candidates
// that lost stay out of the service's go.mod.
//
// Speeds are for one call on a string not seen before (no cache), averaged
// over the distinct browser user agents of the user-agents corpus.
// Browser and OS accuracy are agreement with uap-core (ua-parser/uap-go),
// the most thorough and slowest parser, after mapping every library's names
// to the contract's families; device accuracy is agreement with the corpus's
// own deviceCategory label.
package main

import (
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/avct/uasurfer"
	medama "github.com/medama-io/go-useragent"
	mileusna "github.com/mileusna/useragent"
	mssola "github.com/mssola/useragent"
	"github.com/ua-parser/uap-go/uaparser"
	"github.com/x-way/crawlerdetect"
	"zgo.at/isbot"
)

type client struct{ browser, os, device string }

type parser struct {
	name  string
	parse func(string) client
}

type detector struct {
	name  string
	isBot func(string) bool
}

func main() {
	dir := os.Getenv("UA_CORPUS_DIR")
	if dir == "" {
		log.Fatal("UA_CORPUS_DIR is not set: run ingest/testdata/fetch-corpora.sh first")
	}
	crawlers := readCrawlers(filepath.Join(dir, "crawler-user-agents", "crawler-user-agents.json"))
	browsers, labels := readBrowsers(filepath.Join(dir, "user-agents", "dist", "user-agents.json"))

	med := medama.NewParser()
	// Cache size 1: every distinct string misses, which is what is measured.
	uap, err := uaparser.New(uaparser.WithCacheSize(1))
	if err != nil {
		log.Fatal(err)
	}

	parsers := []parser{
		{"medama-io/go-useragent v1.2.4", func(ua string) client {
			p := med.Parse(ua)
			return client{string(p.Browser()), string(p.OS()), string(p.Device())}
		}},
		{"mileusna/useragent v1.3.5", func(ua string) client {
			p := mileusna.Parse(ua)
			device := ""
			switch {
			case p.Tablet:
				device = "tablet"
			case p.Mobile:
				device = "mobile"
			case p.Desktop:
				device = "desktop"
			}
			return client{p.Name, p.OS, device}
		}},
		{"avct/uasurfer (2025-12-03)", func(ua string) client {
			p := uasurfer.Parse(ua)
			return client{p.Browser.Name.StringTrimPrefix(), p.OS.Name.StringTrimPrefix(), p.DeviceType.StringTrimPrefix()}
		}},
	}
	reference := func(ua string) client {
		c := uap.Parse(ua)
		return client{c.UserAgent.Family, c.Os.Family, ""}
	}

	fmt.Println("| parser | browser = uap-core | OS = uap-core | device = corpus label | ns/op | allocs/op |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, p := range parsers {
		var browserOK, osOK, deviceOK int
		for i, ua := range browsers {
			got, want := normalize(p.parse(ua)), normalize(reference(ua))
			if got.browser == want.browser {
				browserOK++
			}
			if got.os == want.os {
				osOK++
			}
			if got.device == labels[i] {
				deviceOK++
			}
		}
		speed := measure(browsers, func(ua string) { p.parse(ua) })
		fmt.Printf("| %s | %s | %s | %s | %d | %d |\n", p.name,
			percent(browserOK, len(browsers)), percent(osOK, len(browsers)), percent(deviceOK, len(browsers)),
			speed.NsPerOp(), speed.AllocsPerOp())
	}
	speed := measure(browsers, func(ua string) { uap.Parse(ua) })
	fmt.Printf("| ua-parser/uap-go (2026-05-29) | (reference) | (reference) | n/a (models, not types) | %d | %d |\n",
		speed.NsPerOp(), speed.AllocsPerOp())

	detectors := []detector{
		{"x-way/crawlerdetect v0.2.31", crawlerdetect.IsCrawler},
		{"zgo.at/isbot v1.0.0", func(ua string) bool { return isbot.Is(isbot.UserAgent(ua)) }},
		{"isbot, then crawlerdetect (chosen)", func(ua string) bool {
			return isbot.Is(isbot.UserAgent(ua)) || crawlerdetect.IsCrawler(ua)
		}},
		{"mileusna/useragent .Bot", func(ua string) bool { return mileusna.Parse(ua).Bot }},
		{"mssola/useragent v1.0.0 .Bot()", func(ua string) bool { return mssola.New(ua).Bot() }},
		{"medama-io/go-useragent device Bot", func(ua string) bool { return med.Parse(ua).Device() == "Bot" }},
		{"avct/uasurfer .IsBot()", func(ua string) bool { return uasurfer.Parse(ua).IsBot() }},
		{"ua-parser/uap-go device Spider", func(ua string) bool { return uap.Parse(ua).Device.Family == "Spider" }},
	}
	fmt.Println()
	fmt.Println("| bot detector | recall (crawler-user-agents) | false positives (user-agents) | ns/op on browsers | allocs/op |")
	fmt.Println("|---|---|---|---|---|")
	for _, d := range detectors {
		var caught, flagged int
		for _, ua := range crawlers {
			if d.isBot(ua) {
				caught++
			}
		}
		for _, ua := range browsers {
			if d.isBot(ua) {
				flagged++
			}
		}
		speed := measure(browsers, func(ua string) { d.isBot(ua) })
		fmt.Printf("| %s | %s | %s | %d | %d |\n", d.name,
			percent(caught, len(crawlers)), percent(flagged, len(browsers)), speed.NsPerOp(), speed.AllocsPerOp())
	}
}

func measure(uas []string, f func(string)) testing.BenchmarkResult {
	return testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			f(uas[i%len(uas)])
		}
	})
}

func percent(n, of int) string {
	return fmt.Sprintf("%d/%d = %.2f%%", n, of, 100*float64(n)/float64(of))
}

// normalize maps each library's names onto the contract's families, so that
// the comparison counts real disagreements, not spelling.
func normalize(c client) client {
	browsers := map[string]string{
		"Chrome Mobile": "Chrome", "Chrome Mobile iOS": "Chrome", "Chrome Mobile WebView": "Chrome",
		"Mobile Safari": "Safari", "Mobile Safari UI/WKWebView": "Safari",
		"Firefox iOS": "Firefox", "Firefox Mobile": "Firefox", "Edge Mobile": "Edge",
		"Samsung Browser": "Samsung Internet", "Samsung": "Samsung Internet",
		"YaBrowser": "Yandex Browser", "Yandex": "Yandex Browser", "Opera Touch": "Opera",
	}
	systems := map[string]string{
		"Mac OS X": "macOS", "MacOS": "macOS", "MacOSX": "macOS", "iPadOS": "iOS",
		"ChromeOS": "Chrome OS", "Ubuntu": "Linux",
	}
	devices := map[string]string{"Phone": "mobile", "Computer": "desktop"}
	if b, ok := browsers[c.browser]; ok {
		c.browser = b
	}
	if o, ok := systems[c.os]; ok {
		c.os = o
	}
	if d, ok := devices[c.device]; ok {
		c.device = d
	}
	c.device = strings.ToLower(c.device)
	return c
}

func readCrawlers(path string) []string {
	var corpus []struct {
		Instances []string `json:"instances"`
	}
	readJSON(path, &corpus)
	var uas []string
	for _, c := range corpus {
		uas = append(uas, c.Instances...)
	}
	return uas
}

// readBrowsers returns the distinct user agents and their device labels.
func readBrowsers(path string) (uas, labels []string) {
	var corpus []struct {
		UserAgent      string `json:"userAgent"`
		DeviceCategory string `json:"deviceCategory"`
	}
	readJSON(path, &corpus)
	seen := make(map[string]bool)
	for _, b := range corpus {
		if !seen[b.UserAgent] {
			seen[b.UserAgent] = true
			uas = append(uas, b.UserAgent)
			labels = append(labels, b.DeviceCategory)
		}
	}
	return uas, labels
}

func readJSON(path string, v any) {
	data, err := os.ReadFile(path)
	if err != nil {
		log.Fatalf("uacompare: %v", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		log.Fatalf("uacompare: %s: %v", path, err)
	}
}
