package ingest

import (
	"strings"
	"sync"
	"testing"
)

// userAgentTests are real user agents as the browsers, devices and bots send
// them.
var userAgentTests = []struct {
	name string
	ua   string
	want Client
}{
	// Browsers on the contract's families.
	{
		"Chrome on Windows",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
		Client{Browser: "Chrome", OS: "Windows", Device: "desktop"},
	},
	{
		"Safari on iPhone",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
		Client{Browser: "Safari", OS: "iOS", Device: "mobile"},
	},
	{
		"Safari on iPad",
		"Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
		Client{Browser: "Safari", OS: "iOS", Device: "tablet"},
	},
	{
		"Safari on macOS",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
		Client{Browser: "Safari", OS: "macOS", Device: "desktop"},
	},
	{
		"Chrome on iPhone",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1",
		Client{Browser: "Chrome", OS: "iOS", Device: "mobile"},
	},
	{
		"Samsung Internet on a Galaxy phone",
		"Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36",
		Client{Browser: "Samsung Internet", OS: "Android", Device: "mobile"},
	},
	{
		// No "Mobile" token: Android's own way of saying tablet.
		"Samsung Internet on a Galaxy Tab",
		"Mozilla/5.0 (Linux; Android 13; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Safari/537.36",
		Client{Browser: "Samsung Internet", OS: "Android", Device: "tablet"},
	},
	{
		"Chrome on Android with the reduced user agent",
		"Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
		Client{Browser: "Chrome", OS: "Android", Device: "mobile"},
	},
	{
		"Chrome on Pixel Tablet",
		"Mozilla/5.0 (Linux; Android 14; Pixel Tablet) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
		Client{Browser: "Chrome", OS: "Android", Device: "tablet"},
	},
	{
		"Firefox on Android",
		"Mozilla/5.0 (Android 14; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0",
		Client{Browser: "Firefox", OS: "Android", Device: "mobile"},
	},
	{
		"Firefox on an Android tablet",
		"Mozilla/5.0 (Android 14; Tablet; rv:133.0) Gecko/133.0 Firefox/133.0",
		Client{Browser: "Firefox", OS: "Android", Device: "tablet"},
	},
	{
		"Edge on Windows",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
		Client{Browser: "Edge", OS: "Windows", Device: "desktop"},
	},
	{
		"Opera on Windows",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 OPR/115.0.0.0",
		Client{Browser: "Opera", OS: "Windows", Device: "desktop"},
	},
	{
		"Opera on Android",
		"Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36 OPR/86.0.0.0",
		Client{Browser: "Opera", OS: "Android", Device: "mobile"},
	},
	{
		"Firefox on Linux",
		"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
		Client{Browser: "Firefox", OS: "Linux", Device: "desktop"},
	},
	{
		"Firefox on Ubuntu",
		"Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
		Client{Browser: "Firefox", OS: "Linux", Device: "desktop"},
	},
	{
		"Chrome on Chrome OS",
		"Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
		Client{Browser: "Chrome", OS: "Chrome OS", Device: "desktop"},
	},
	{
		"Yandex Browser",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 YaBrowser/24.12.0.0 Safari/537.36",
		Client{Browser: "Yandex Browser", OS: "Windows", Device: "desktop"},
	},
	{
		"Vivaldi",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Vivaldi/7.0",
		Client{Browser: "Vivaldi", OS: "Windows", Device: "desktop"},
	},
	{
		// In-app browsers are people; the library's own bot flag says
		// otherwise, which is why it is not used.
		"Instagram in-app browser",
		"Mozilla/5.0 (Linux; Android 14; SM-S918B Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/131.0.6778.39 Mobile Safari/537.36 Instagram 357.0.0.25.101 Android (34/14; 450dpi; 1080x2340; samsung; SM-S918B; dm3q; qcom; en_US; 656172813)",
		Client{Browser: "Chrome", OS: "Android", Device: "mobile"},
	},
	{
		"Facebook in-app browser on iPhone",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/470.0.0.38.108;FBBV/620766482;FBDV/iPhone15,3;FBMD/iPhone;FBSN/iOS;FBSV/17.5;FBSS/3;FBID/phone;FBLC/en_US;FBOP/5;FBRV/622345654]",
		Client{Browser: "Safari", OS: "iOS", Device: "mobile"},
	},

	// Televisions and consoles.
	{
		"Samsung smart TV",
		"Mozilla/5.0 (SMART-TV; Linux; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/4.0 Chrome/76.0.3809.146 TV Safari/537.36",
		Client{Browser: "Samsung Internet", OS: "Linux", Device: "tv"},
	},
	{
		"PlayStation 5",
		"Mozilla/5.0 (PlayStation; PlayStation 5/2.26) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.0 Safari/605.1.15",
		Client{Browser: "Safari", Device: "console"},
	},
	{
		"Xbox One",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64; Xbox; Xbox One) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edge/44.18363.8131",
		Client{Browser: "Edge", OS: "Windows", Device: "console"},
	},
	{
		"Nintendo Switch",
		"Mozilla/5.0 (Nintendo Switch; WifiWebAuthApplet) AppleWebKit/606.4 (KHTML, like Gecko) NF/6.0.1.15.4 NintendoBrowser/5.1.0.20393",
		Client{Browser: "Nintendo Browser", Device: "console"},
	},

	// Crawlers, scripts, headless browsers.
	{
		"Googlebot",
		"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
		Client{Bot: true},
	},
	{
		"Googlebot smartphone",
		"Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.69 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
		Client{Browser: "Chrome", OS: "Android", Device: "mobile", Bot: true},
	},
	{
		"bingbot",
		"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
		Client{Bot: true},
	},
	{"curl", "curl/8.5.0", Client{Bot: true}},
	{"Wget", "Wget/1.21.4", Client{Bot: true}},
	{"python-requests", "python-requests/2.32.3", Client{Bot: true}},
	{"Go-http-client", "Go-http-client/1.1", Client{Bot: true}},
	{
		"HeadlessChrome",
		"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36",
		Client{Browser: "Chrome", OS: "Linux", Device: "desktop", Bot: true},
	},
	{
		"Playwright",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Playwright/1.40.0",
		Client{Browser: "Chrome", OS: "Windows", Device: "desktop", Bot: true},
	},
	{
		"PhantomJS",
		"Mozilla/5.0 (Unknown; Linux x86_64) AppleWebKit/538.1 (KHTML, like Gecko) PhantomJS/2.1.1 Safari/538.1",
		Client{Browser: "Safari", OS: "Linux", Device: "desktop", Bot: true},
	},
	{"no user agent", "", Client{Bot: true}},
	{"blank user agent", "  ", Client{Bot: true}},
}

func TestParseUserAgent(t *testing.T) {
	for _, tt := range userAgentTests {
		t.Run(tt.name, func(t *testing.T) {
			// Twice: the second answer comes from the cache.
			for range 2 {
				if got := ParseUserAgent(tt.ua); got != tt.want {
					t.Fatalf("ParseUserAgent(%q)\n got %+v\nwant %+v", tt.ua, got, tt.want)
				}
			}
		})
	}
}

func TestParseUserAgentConcurrent(t *testing.T) {
	p := newUserAgentParser(8) // small, so goroutines also race on evictions
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 3 {
				for _, tt := range userAgentTests {
					if got := p.parse(tt.ua); got != tt.want {
						t.Errorf("parse(%q) = %+v, want %+v", tt.ua, got, tt.want)
					}
				}
			}
		})
	}
	wg.Wait()
	if n := p.cache.Len(); n > 8 {
		t.Errorf("cache holds %d entries, bound is 8", n)
	}
}

func TestParseUserAgentLongInput(t *testing.T) {
	chrome := userAgentTests[0]
	long := chrome.ua + strings.Repeat(" padding", 100_000)
	if got := ParseUserAgent(long); got != chrome.want {
		t.Errorf("ParseUserAgent(800 KB user agent) = %+v, want %+v", got, chrome.want)
	}
	// A crawler token past the cut is not seen: the price of bounding the work.
	if got := ParseUserAgent(chrome.ua + strings.Repeat(" ", maxUserAgentLen) + "Googlebot/2.1"); got.Bot {
		t.Errorf("token beyond maxUserAgentLen was read: %+v", got)
	}
}

// BenchmarkParseUserAgent mixes real browser user agents. "cached" is the
// steady state of a running service, where the same strings keep coming;
// "uncached" is the price of a string the first time it is seen.
func BenchmarkParseUserAgent(b *testing.B) {
	var browsers []string
	for _, tt := range userAgentTests {
		if !tt.want.Bot {
			browsers = append(browsers, tt.ua)
		}
	}
	b.Run("cached", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			ParseUserAgent(browsers[i%len(browsers)])
		}
	})
	b.Run("uncached", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			userAgents.classify(browsers[i%len(browsers)])
		}
	})
	b.Run("cached-parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for i := 0; pb.Next(); i++ {
				ParseUserAgent(browsers[i%len(browsers)])
			}
		})
	})
}
