package ingest

import (
	"fmt"
	"strings"

	lru "github.com/hashicorp/golang-lru/v2"
	useragent "github.com/medama-io/go-useragent"
	"github.com/medama-io/go-useragent/agents"
	"github.com/x-way/crawlerdetect"
	"zgo.at/isbot"
)

// Client is what the stats keep of a user agent: families only, never
// versions, so the values stay few and say nothing about one visitor.
type Client struct {
	Browser, OS, Device string
	Bot                 bool
}

const (
	// userAgentCacheSize bounds the memo of classified user agents. Real
	// traffic repeats a small set of strings (the published user-agents corpus
	// holds 952 distinct ones in 10,000 sampled visits), so a few thousand
	// entries hit almost always, while costing at most ~2.5 MiB (measured
	// with every key maxUserAgentLen long).
	userAgentCacheSize = 4096

	// maxUserAgentLen cuts what is parsed, because crawlerdetect's cost
	// grows with the length (about 0.8 ms per KiB) and a client can send a
	// header of any length. Cutting at 256 bytes changes no verdict on either
	// published corpus (their longest user agents are 268 and 285 bytes; the
	// tokens that decide come first) and keeps a never-seen user agent under
	// half a millisecond.
	maxUserAgentLen = 256
)

// userAgents is the package's one mutable global: ParseUserAgent has to be a
// plain function, and its memo changes no result, only how fast it comes.
var userAgents = newUserAgentParser(userAgentCacheSize)

// ParseUserAgent reports the browser and OS families, the device type and
// whether the user agent is a bot (a crawler, a script, a headless browser,
// or no user agent at all). It is safe for concurrent use.
func ParseUserAgent(ua string) Client {
	return userAgents.parse(ua)
}

type userAgentParser struct {
	families *useragent.Parser
	// A 2Q cache rather than a plain LRU: a flood of one-off user agents
	// (bots making up a new string per request) only churns its "recent"
	// queue and cannot evict the strings real visitors keep sending.
	cache *lru.TwoQueueCache[string, Client]
}

func newUserAgentParser(cacheSize int) *userAgentParser {
	cache, err := lru.New2Q[string, Client](cacheSize)
	if err != nil {
		// Only a size below 2 fails (the ghost queue gets half of it), and
		// the callers pass constants.
		panic(fmt.Sprintf("ingest.newUserAgentParser: %v", err))
	}
	return &userAgentParser{families: useragent.NewParser(), cache: cache}
}

func (p *userAgentParser) parse(ua string) Client {
	if len(ua) > maxUserAgentLen {
		ua = ua[:maxUserAgentLen]
	}
	if c, ok := p.cache.Get(ua); ok {
		return c
	}
	c := p.classify(ua)
	// Clone so the cache never pins the caller's (possibly much larger)
	// backing array, only the bytes of the key itself.
	p.cache.Add(strings.Clone(ua), c)
	return c
}

// classify does the real work; it costs about 120 µs for a browser user agent,
// almost all of it in crawlerdetect, hence the cache in front of it.
func (p *userAgentParser) classify(ua string) Client {
	parsed := p.families.Parse(ua)
	os := osFamily(parsed.OS())
	return Client{
		Browser: browserFamily(parsed.Browser()),
		OS:      os,
		Device:  deviceType(ua, os, parsed.Device()),
		Bot:     isBotUserAgent(ua),
	}
}

// isBotUserAgent combines two detectors because neither is enough alone on
// the published crawler corpus (see docs/enrichment.md): zgo.at/isbot's
// structural heuristics (no space or slash, a URL, a client library) catch
// the long tail of unknown crawlers, x-way/crawlerdetect's ~1,400 maintained
// patterns catch crawlers that pose as browsers. isbot runs first because it
// costs ~1 µs against crawlerdetect's ~115 µs.
func isBotUserAgent(ua string) bool {
	if strings.TrimSpace(ua) == "" {
		return true
	}
	if isbot.Is(isbot.UserAgent(ua)) {
		return true
	}
	for _, token := range automationTokens {
		if strings.Contains(ua, token) {
			return true
		}
	}
	return crawlerdetect.IsCrawler(ua)
}

// automationTokens are browser-automation drivers that announce themselves
// in an otherwise ordinary browser user agent. The contract counts them as
// headless browsers, crawler-user-agents 1.60.0 lists them, and neither
// library catches them.
var automationTokens = [...]string{"Playwright/", "Selenium"}

// browserFamily keeps the library's names except where the contract spells
// a family differently.
func browserFamily(b agents.Browser) string {
	if b == agents.BrowserSamsung {
		return "Samsung Internet"
	}
	return string(b)
}

func osFamily(o agents.OS) string {
	switch o {
	case agents.OSMacOS:
		return "macOS"
	case agents.OSChromeOS:
		return "Chrome OS"
	}
	return string(o)
}

// deviceTokens fill the library's gaps: it files game consoles under TV or
// tablet and misses some TV platforms. Each token names a device family
// unambiguously (uap-core's or medama's own device patterns key on it); the
// first match wins.
var deviceTokens = [...]struct{ token, device string }{
	{"PlayStation", "console"},
	{"PLAYSTATION", "console"},
	{"Xbox", "console"},
	{"XBOX", "console"},
	{"Nintendo", "console"},
	{"SMART-TV", "tv"},
	{"SmartTV", "tv"},
	{"Web0S", "tv"},
	{"HbbTV", "tv"},
	{"CrKey", "tv"},
}

func deviceType(ua, os string, d agents.Device) string {
	for _, t := range deviceTokens {
		if strings.Contains(ua, t.token) {
			return t.device
		}
	}
	switch d {
	case agents.DeviceDesktop:
		return "desktop"
	case agents.DeviceTablet:
		return "tablet"
	case agents.DeviceTV:
		return "tv"
	case agents.DeviceMobile:
		return handheldType(ua, os)
	}
	// The library answers "Bot" instead of a device for some user agents
	// that are real browsers (in-app browsers, for one); whether it is a bot
	// is decided separately, so fall back on what the OS implies.
	switch os {
	case "Windows", "macOS", "Linux", "Chrome OS", "FreeBSD", "OpenBSD":
		return "desktop"
	case "Android", "iOS":
		return handheldType(ua, os)
	}
	return ""
}

// handheldType tells phones from tablets the way the platforms document it:
// Android browsers drop the "Mobile" token on tablets, and iPads say "iPad"
// (an iPad in desktop mode sends a Mac user agent and counts as desktop).
func handheldType(ua, os string) string {
	switch {
	case os == "Android" && !strings.Contains(ua, "Mobile"):
		return "tablet"
	case os == "iOS" && strings.Contains(ua, "iPad"):
		return "tablet"
	}
	return "mobile"
}
