package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
)

// request is one precomputed tracker hit: the body and the headers a browser's sendBeacon
// sends through a reverse proxy. The header map is shared by every send of it and never
// written after construction (the Transport only reads it), so a send allocates little more
// than the *http.Request.
type request struct {
	body   []byte
	header http.Header
	event  bool
	bot    bool
}

// traffic makes the request mix. Shares are rough public figures for small and medium sites
// (browser market share, referrer mix, ~10% custom events, ~5% bots); what matters for the
// benchmark is the variety the server must classify and count, not the exact percentages.
type traffic struct {
	rng       *rand.Rand
	sites     []siteModel
	siteZipf  *rand.Zipf
	pageZipf  *rand.Zipf
	families  []uaFamily // browser families, each with its distinct user agents
	botUAs    []userAgent
	blogHosts []string
}

type siteModel struct {
	origin string // scheme://host the pages are served from
	paths  []string
}

type userAgent struct {
	ua    string
	class string // desktop, mobile, tablet, tv, bot
}

func newTraffic(seed uint64, domains []string, pages int) *traffic {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	t := &traffic{rng: rng}
	for i, d := range domains {
		origin := "https://" + d
		if i%2 == 1 { // half the sites serve from www., which the server strips
			origin = "https://www." + d
		}
		t.sites = append(t.sites, siteModel{origin: origin, paths: makePaths(rng, pages)})
	}
	// Zipf-like popularity: a few sites and a few pages take most of the traffic, with a long
	// tail of thousands of pages seen now and then.
	t.siteZipf = rand.NewZipf(rng, 1.3, 1, uint64(len(domains)-1))
	t.pageZipf = rand.NewZipf(rng, 1.1, 1, uint64(pages-1))
	t.families = makeUserAgents(rng, 1000)
	t.botUAs = makeBotUserAgents(rng)
	for i := 0; i < 200; i++ {
		t.blogHosts = append(t.blogHosts, fmt.Sprintf("%s%d.%s", pick(rng, blogWords), i, pick(rng, []string{"com", "net", "org", "io", "dev", "co.uk", "de"})))
	}
	return t
}

func (t *traffic) requests(n int) []*request {
	out := make([]*request, n)
	for i := range out {
		out[i] = t.request()
	}
	return out
}

// request makes one hit as the tracker script would send it through a reverse proxy.
func (t *traffic) request() *request {
	rng := t.rng
	site := &t.sites[t.siteZipf.Uint64()]
	f := &t.families[weightedIndex(rng, len(t.families), func(i int) float64 { return t.families[i].weight })]
	ua := f.uas[f.zipf.Uint64()]
	if rng.Float64() < 0.05 {
		ua = t.botUAs[rng.IntN(len(t.botUAs))]
	}
	page := site.origin + site.paths[t.pageZipf.Uint64()] + t.query()
	if rng.Float64() < 0.02 {
		page += "#" + pick(rng, []string{"top", "comments", "pricing", "faq", "section-2"})
	}
	if rng.Float64() < 0.02 {
		page = "http" + strings.TrimPrefix(page, "https") // the odd plain-http page
	}
	body := struct {
		Page             string            `json:"page"`
		Referrer         string            `json:"referrer"`
		ScreenResolution string            `json:"screen_resolution"`
		Event            map[string]string `json:"event,omitempty"`
	}{Page: page, Referrer: t.referrer(site), ScreenResolution: screenFor(rng, ua.class)}
	event := rng.Float64() < 0.10
	if event {
		body.Event = makeEvent(rng)
	}
	encoded, err := json.Marshal(body)
	if err != nil {
		panic(err) // strings and a map of strings always encode
	}

	h := http.Header{}
	// sendBeacon with a text/plain Blob: no CORS preflight.
	h.Set("Content-Type", "text/plain;charset=UTF-8")
	h["User-Agent"] = []string{ua.ua} // "" sends no User-Agent at all (net/http's rule)
	if lang := t.language(ua.class); lang != "" {
		h.Set("Accept-Language", lang)
	}
	h.Set("Accept", "*/*")
	h.Set("Accept-Encoding", "gzip, deflate, br, zstd")
	if ua.class != "bot" {
		// A browser's beacon to another origin; the Referer is the origin alone under the
		// default strict-origin-when-cross-origin policy.
		h.Set("Origin", site.origin)
		h.Set("Referer", site.origin+"/")
		h.Set("Sec-Fetch-Site", "cross-site")
		h.Set("Sec-Fetch-Mode", "no-cors")
		h.Set("Sec-Fetch-Dest", "empty")
	}
	// The reverse proxy in front of the service: many clients behind one peer address.
	h.Set("X-Forwarded-For", t.clientIP())
	h.Set("X-Forwarded-Proto", "https")
	return &request{body: encoded, header: h, event: event, bot: ua.class == "bot"}
}

// query: most pages have none; some carry campaign tags, paging, searches or click ids (the
// last make one-off page values, as they do in real data).
func (t *traffic) query() string {
	rng := t.rng
	switch x := rng.Float64(); {
	case x < 0.04:
		return "?utm_source=" + pick(rng, []string{"newsletter", "twitter", "facebook", "linkedin", "google"}) +
			"&utm_medium=" + pick(rng, []string{"email", "social", "cpc"}) +
			"&utm_campaign=" + pick(rng, campaigns)
	case x < 0.06:
		return "?utm_campaign=" + pick(rng, campaigns)
	case x < 0.09:
		return "?page=" + strconv.Itoa(2+rng.IntN(20))
	case x < 0.11:
		return "?q=" + pick(rng, blogWords) + "+" + pick(rng, slugWords)
	case x < 0.12:
		return "?gclid=" + token(rng, 24)
	case x < 0.13:
		return "?fbclid=" + token(rng, 32)
	case x < 0.14:
		return "?ref=" + pick(rng, []string{"producthunt", "hn", "github", "newsletter"})
	}
	return ""
}

// referrer: direct, search, social, another site, or the same site (an internal navigation,
// which is a pageview but not a visit).
func (t *traffic) referrer(site *siteModel) string {
	rng := t.rng
	switch x := rng.Float64(); {
	case x < 0.30:
		return ""
	case x < 0.55:
		return pick(rng, searchReferrers)
	case x < 0.63:
		return pick(rng, socialReferrers)
	case x < 0.68:
		return "https://" + pick(rng, t.blogHosts) + "/" + pick(rng, slugWords) + "-" + pick(rng, slugWords)
	}
	return site.origin + site.paths[t.pageZipf.Uint64()]
}

func (t *traffic) language(class string) string {
	if class == "bot" && t.rng.Float64() < 0.7 {
		return ""
	}
	return weighted(t.rng, languages)
}

// clientIP is a random public address, one in ten IPv6.
func (t *traffic) clientIP() string {
	rng := t.rng
	if rng.Float64() < 0.10 {
		var b [16]byte
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		b[0], b[1] = 0x2a, b[1]&0x0f // 2a00::/12: RIPE's allocations, which GeoIP knows
		return netip.AddrFrom16(b).String()
	}
	for {
		a := netip.AddrFrom4([4]byte{byte(1 + rng.IntN(223)), byte(rng.Uint32()), byte(rng.Uint32()), byte(1 + rng.IntN(254))})
		if !a.IsPrivate() && !a.IsLoopback() && !a.IsLinkLocalUnicast() && !cgnat.Contains(a) && a.As4()[0] != 0 {
			return a.String()
		}
	}
}

var cgnat = netip.MustParsePrefix("100.64.0.0/10")

func makeEvent(rng *rand.Rand) map[string]string {
	switch x := rng.Float64(); {
	case x < 0.30:
		return map[string]string{"name": "Signup"}
	case x < 0.50:
		return map[string]string{"name": "Purchase", "value": pick(rng, []string{"5", "9.99", "19", "49.90", "120"}), "unit": pick(rng, []string{"USD", "EUR", "GBP"})}
	case x < 0.70:
		return map[string]string{"name": "Outbound Link: Click", "value": "1"}
	case x < 0.85:
		return map[string]string{"name": "Download", "unit": pick(rng, []string{"pdf", "zip", "dmg"})}
	}
	return map[string]string{"name": pick(rng, []string{"Newsletter", "404", "Video Play", "Search", "Share"})}
}

func screenFor(rng *rand.Rand, class string) string {
	switch class {
	case "mobile":
		return weighted(rng, mobileScreens)
	case "tablet":
		return weighted(rng, tabletScreens)
	case "tv":
		return pick(rng, []string{"1920x1080", "1280x720", "3840x2160"})
	case "bot":
		return pick(rng, []string{"", "800x600", "1024x768", "1920x1080", "0x0"})
	}
	return weighted(rng, desktopScreens)
}

// makePaths makes a site's paths: the home page first (the most popular under Zipf), then
// section pages, then a long tail of articles and products.
func makePaths(rng *rand.Rand, n int) []string {
	paths := make([]string, 0, n)
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] && len(paths) < n {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	add("/")
	for _, s := range sections {
		add("/" + s + "/")
	}
	for len(paths) < n {
		p := "/" + pick(rng, sections) + "/" + pick(rng, slugWords) + "-" + pick(rng, slugWords) + "-" + pick(rng, slugWords)
		if rng.Float64() < 0.3 {
			p += "-" + strconv.Itoa(rng.IntN(1000))
		}
		add(p)
	}
	return paths
}

// uaFamily is one browser family's user agents (its versions, devices and builds), ordered by
// popularity: a family's share is its weight, and within it a few versions take most of it.
type uaFamily struct {
	weight float64
	uas    []userAgent
	zipf   *rand.Zipf
}

// makeUserAgents makes about n distinct browser user agents, shared among the families by
// their weights (at least a few each).
func makeUserAgents(rng *rand.Rand, n int) []uaFamily {
	total := 0.0
	for _, f := range browserFamilies {
		total += f.weight
	}
	seen := map[string]bool{}
	out := make([]uaFamily, 0, len(browserFamilies))
	for _, f := range browserFamilies {
		want := max(3, int(float64(n)*f.weight/total))
		var uas []userAgent
		for tries := 0; len(uas) < want && tries < 50*want; tries++ {
			if ua := f.make(rng); !seen[ua] {
				seen[ua] = true
				uas = append(uas, userAgent{ua: ua, class: f.class})
			}
		}
		out = append(out, uaFamily{weight: f.weight, uas: uas, zipf: rand.NewZipf(rng, 1.1, 1, uint64(len(uas)-1))})
	}
	return out
}

func makeBotUserAgents(rng *rand.Rand) []userAgent {
	var out []userAgent
	for _, f := range botFamilies {
		for i := 0; i < 3; i++ {
			out = append(out, userAgent{ua: f(rng), class: "bot"})
		}
	}
	return out
}

// recent picks a version in [lo, hi], skewed towards hi.
func recent(rng *rand.Rand, lo, hi int) int {
	v := hi - int(rng.ExpFloat64()*2)
	return max(v, lo)
}

type family struct {
	weight float64
	class  string
	make   func(rng *rand.Rand) string
}

var browserFamilies = []family{
	{30, "desktop", func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%d.0.%d.%d Safari/537.36", recent(r, 109, 131), 5000+r.IntN(1800), r.IntN(200))
	}},
	{8, "desktop", func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%d.0.0.0 Safari/537.36", recent(r, 115, 131))
	}},
	{7, "desktop", func(r *rand.Rand) string {
		v := recent(r, 115, 131)
		return fmt.Sprintf("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%d.0.0.0 Safari/537.36 Edg/%d.0.%d.%d", v, v, 2000+r.IntN(900), r.IntN(120))
	}},
	{6, "desktop", func(r *rand.Rand) string {
		v := recent(r, 115, 133)
		return fmt.Sprintf("Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:%d.0) Gecko/20100101 Firefox/%d.0", v, v)
	}},
	{2, "desktop", func(r *rand.Rand) string {
		v := recent(r, 115, 133)
		return fmt.Sprintf("Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:%d.0) Gecko/20100101 Firefox/%d.0", v, v)
	}},
	{5, "desktop", func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/%d.%d Safari/605.1.15", recent(r, 15, 18), r.IntN(6))
	}},
	{2, "desktop", func(r *rand.Rand) string {
		v := recent(r, 110, 131)
		return fmt.Sprintf("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%d.0.0.0 Safari/537.36 OPR/%d.0.0.0", v, v-14)
	}},
	{1, "desktop", func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (X11; CrOS x86_64 %d.%d.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%d.0.0.0 Safari/537.36", 15000+r.IntN(800), r.IntN(100), recent(r, 118, 131))
	}},
	{22, "mobile", func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%d.0.0.0 Mobile Safari/537.36", recent(r, 112, 131))
	}},
	{18, "mobile", func(r *rand.Rand) string {
		major := recent(r, 15, 18)
		minor := r.IntN(7)
		return fmt.Sprintf("Mozilla/5.0 (iPhone; CPU iPhone OS %d_%d like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/%d.%d Mobile/15E148 Safari/604.1", major, minor, major, minor)
	}},
	{4, "mobile", func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (Linux; Android %d; SAMSUNG SM-%s) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/%d.0 Chrome/%d.0.0.0 Mobile Safari/537.36",
			recent(r, 11, 14), pick(r, []string{"S918B", "A546B", "G991B", "A156B", "S928B"}), recent(r, 20, 26), recent(r, 110, 125))
	}},
	{2, "mobile", func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (Linux; Android %d; Pixel %d Build/AP1A.%d.005; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/%d.0.%d.%d Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/%d.0.0.%d.%d;]",
			recent(r, 12, 14), 5+r.IntN(4), 240000+r.IntN(999), recent(r, 118, 131), 6000+r.IntN(700), r.IntN(200), 430+r.IntN(50), r.IntN(60), r.IntN(200))
	}},
	{2, "mobile", func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (iPhone; CPU iPhone OS 17_%d like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram %d.0.0.%d.%d (iPhone14,5; iOS 17_%d; en_US; en; scale=3.00; 1170x2532; %d)",
			r.IntN(6), 300+r.IntN(60), r.IntN(40), r.IntN(120), r.IntN(6), 500000000+r.IntN(99999999))
	}},
	{1, "mobile", func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (Android 14; Mobile; rv:%d.0) Gecko/%d.0 Firefox/%d.0", recent(r, 120, 133), recent(r, 120, 133), recent(r, 120, 133))
	}},
	{3, "tablet", func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (iPad; CPU OS %d_%d like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/%d.0 Mobile/15E148 Safari/604.1", recent(r, 15, 18), r.IntN(7), recent(r, 15, 18))
	}},
	{1, "tablet", func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (Linux; Android %d; SM-X%d) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%d.0.0.0 Safari/537.36", recent(r, 11, 14), 200+r.IntN(700), recent(r, 115, 131))
	}},
	{0.5, "tv", func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (SMART-TV; Linux; Tizen %d.0) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/%d.0 Chrome/%d.0.0.0 TV Safari/537.36", recent(r, 5, 8), recent(r, 3, 7), recent(r, 76, 120))
	}},
	{0.2, "tv", func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (PlayStation; PlayStation 5/%d.%d) AppleWebKit/605.1.15 (KHTML, like Gecko)", recent(r, 2, 9), r.IntN(60))
	}},
}

// botFamilies: crawlers, scripts and headless browsers; some execute the tracker, and the
// server must recognise every one (it answers 202 either way).
var botFamilies = []func(r *rand.Rand) string{
	func(*rand.Rand) string {
		return "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%d.0.%d.%d Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", recent(r, 120, 131), 6000+r.IntN(700), r.IntN(200))
	},
	func(*rand.Rand) string {
		return "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"
	},
	func(*rand.Rand) string { return "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)" },
	func(*rand.Rand) string { return "Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)" },
	func(*rand.Rand) string {
		return "Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)"
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/%d.0.0.0 Safari/537.36", recent(r, 110, 131))
	},
	func(*rand.Rand) string {
		return "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)"
	},
	func(r *rand.Rand) string { return fmt.Sprintf("curl/8.%d.%d", r.IntN(12), r.IntN(2)) },
	func(r *rand.Rand) string { return fmt.Sprintf("python-requests/2.%d.0", 25+r.IntN(8)) },
	func(*rand.Rand) string { return "Go-http-client/1.1" },
	func(*rand.Rand) string { return "" }, // no user agent at all
}

// floodRequest is a visit (no referrer) of the site's home page from one client address, as a
// script would send it through the reverse proxy; each send gets a user agent of its own.
func floodRequest(site, addr string) *request {
	h := http.Header{}
	h.Set("Content-Type", "text/plain;charset=UTF-8")
	h.Set("X-Forwarded-For", addr)
	h.Set("X-Forwarded-Proto", "https")
	body := []byte(`{"page":"https://` + site + `/","referrer":"","screen_resolution":"1920x1080"}`)
	return &request{body: body, header: h}
}

// bigPropsRequests are n pageviews of site in Plausible's body, as its tracker sends them, from
// one client address and one user agent: each has a path of 240 random letters of its own and
// the same 30 properties, keys and values of 250 random letters (one visit whose row every hit
// appended 30 long elements to).
func bigPropsRequests(seed uint64, site, addr string, n int) []*request {
	rng := rand.New(rand.NewPCG(seed, 0xb16b00b5))
	letters := func(k int) string {
		b := make([]byte, k)
		for i := range b {
			b[i] = byte('a' + rng.IntN(26))
		}
		return string(b)
	}
	props := map[string]string{}
	for len(props) < 30 {
		props[letters(250)] = letters(250)
	}
	h := http.Header{}
	h.Set("Content-Type", "text/plain")
	h.Set("X-Forwarded-For", addr)
	h.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0")
	out := make([]*request, n)
	for i := range out {
		body, err := json.Marshal(map[string]any{"n": "pageview", "u": "https://" + site + "/" + letters(239), "d": site, "r": nil, "p": props})
		if err != nil {
			panic(err) // strings only
		}
		out[i] = &request{body: body, header: h}
	}
	return out
}

// withUserAgent is the request with another user agent (a copy: requests are shared).
func (r *request) withUserAgent(ua string) *request {
	h := r.header.Clone()
	h["User-Agent"] = []string{ua}
	return &request{body: r.body, header: h, event: r.event, bot: r.bot}
}

// withAddress is the request from another client address (a copy: requests are shared).
func (r *request) withAddress(addr string) *request {
	h := r.header.Clone()
	h["X-Forwarded-For"] = []string{addr}
	return &request{body: r.body, header: h, event: r.event, bot: r.bot}
}

// visitorsSent numbers the addresses of -visitors.
var visitorsSent atomic.Uint32

// newVisitorAddress is an address of 10.0.0.0/8 no request of this run has used (16 million of
// them), for -visitors.
func newVisitorAddress() string {
	n := visitorsSent.Add(1)
	return netip.AddrFrom4([4]byte{10, byte(n >> 16), byte(n >> 8), byte(n)}).String()
}

// neverSeenUserAgent is a browser-like user agent with random build numbers: it passes the
// cheap bot heuristics and misses every cache, so the server classifies each one in full.
func neverSeenUserAgent(rng *rand.Rand) string {
	return fmt.Sprintf("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%d.0.%d.%d Safari/537.36",
		100+rng.IntN(40), rng.IntN(1_000_000), rng.IntN(1_000_000))
}

var sections = []string{"blog", "docs", "products", "pricing", "about", "news", "category", "tag", "help", "careers", "guides", "changelog"}

var slugWords = []string{"how", "to", "choose", "the", "best", "privacy", "analytics", "tool", "for", "your", "website",
	"guide", "setup", "install", "release", "notes", "pricing", "plans", "team", "growth", "seo", "tips", "why",
	"we", "moved", "from", "cloud", "self", "hosted", "server", "fast", "simple", "open", "source", "api", "dashboard",
	"export", "import", "csv", "report", "weekly", "monthly", "goals", "events", "funnels", "tracking", "cookie",
	"banner", "gdpr", "compliance", "widget", "pro", "starter", "enterprise", "case", "study", "customer", "story"}

var blogWords = []string{"tech", "dev", "notes", "daily", "weekly", "review", "news", "blog", "hub", "lab", "digest", "radar"}

var campaigns = []string{"spring_sale", "black_friday", "launch_2024", "newsletter_42", "webinar", "retargeting",
	"brand", "summer", "product_hunt", "partners", "onboarding", "winback"}

var searchReferrers = []string{"https://www.google.com/", "https://www.google.com/", "https://www.google.com/",
	"https://www.google.de/", "https://www.google.co.uk/", "https://www.google.fr/", "https://www.bing.com/",
	"https://duckduckgo.com/", "https://search.yahoo.com/", "https://yandex.ru/", "https://www.ecosia.org/",
	"https://search.brave.com/", "https://www.baidu.com/"}

var socialReferrers = []string{"https://t.co/", "https://www.facebook.com/", "https://l.facebook.com/", "https://lm.facebook.com/",
	"https://www.reddit.com/", "https://out.reddit.com/", "https://news.ycombinator.com/", "https://www.linkedin.com/",
	"https://www.instagram.com/", "android-app://com.google.android.gm/", "https://mastodon.social/", "https://www.youtube.com/"}

type weightedValue struct {
	value  string
	weight float64
}

var languages = []weightedValue{
	{"en-US,en;q=0.9", 35}, {"en-GB,en;q=0.9", 8}, {"de-DE,de;q=0.9,en-US;q=0.8,en;q=0.7", 8},
	{"fr-FR,fr;q=0.9,en-US;q=0.8,en;q=0.7", 6}, {"es-ES,es;q=0.9", 5}, {"pt-BR,pt;q=0.9,en-US;q=0.8,en;q=0.7", 4},
	{"ja,en-US;q=0.9,en;q=0.8", 3}, {"zh-CN,zh;q=0.9", 3}, {"ru-RU,ru;q=0.9,en-US;q=0.8,en;q=0.7", 3},
	{"it-IT,it;q=0.9", 3}, {"nl-NL,nl;q=0.9,en;q=0.8", 2}, {"pl-PL,pl;q=0.9", 2}, {"en", 3},
	{"sv-SE,sv;q=0.9,en;q=0.8", 1}, {"ko-KR,ko;q=0.9", 1}, {"tr-TR,tr;q=0.9", 1}, {"*", 0.5},
}

var desktopScreens = []weightedValue{
	{"1920x1080", 30}, {"1366x768", 9}, {"1536x864", 9}, {"1440x900", 6}, {"2560x1440", 7}, {"1280x720", 4},
	{"1280x800", 3}, {"1600x900", 3}, {"1680x1050", 2}, {"3840x2160", 2}, {"1512x982", 3}, {"1728x1117", 2},
}

var mobileScreens = []weightedValue{
	{"390x844", 14}, {"393x873", 8}, {"414x896", 8}, {"375x667", 5}, {"412x915", 9}, {"360x800", 8},
	{"393x852", 10}, {"430x932", 6}, {"428x926", 4}, {"384x854", 3}, {"360x780", 3},
}

var tabletScreens = []weightedValue{{"820x1180", 4}, {"768x1024", 4}, {"810x1080", 3}, {"1024x1366", 2}, {"800x1280", 2}}

func weighted(rng *rand.Rand, values []weightedValue) string {
	return values[weightedIndex(rng, len(values), func(i int) float64 { return values[i].weight })].value
}

func weightedIndex(rng *rand.Rand, n int, weight func(int) float64) int {
	total := 0.0
	for i := 0; i < n; i++ {
		total += weight(i)
	}
	x := rng.Float64() * total
	for i := 0; i < n; i++ {
		if x -= weight(i); x < 0 {
			return i
		}
	}
	return n - 1
}

func pick[T any](rng *rand.Rand, values []T) T { return values[rng.IntN(len(values))] }

func token(rng *rand.Rand, n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

func fraction(requests []*request, is func(*request) bool) float64 {
	n := 0
	for _, r := range requests {
		if is(r) {
			n++
		}
	}
	return float64(n) / float64(len(requests))
}

func distinctUserAgents(requests []*request) int {
	seen := map[string]bool{}
	for _, r := range requests {
		seen[r.header.Get("User-Agent")] = true
	}
	return len(seen)
}

func averageBody(requests []*request) int {
	total := 0
	for _, r := range requests {
		total += len(r.body)
	}
	return total / len(requests)
}
