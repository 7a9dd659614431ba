package sources

import "strings"

// A category is what a source is to the channel rules: GA4's source categories plus e-mail and
// AI assistants. A known source without one (Wikipedia) is a plain referral.
type category uint8

const (
	noCategory category = iota
	searchSite
	socialSite
	videoSite
	shoppingSite
	emailSite
	aiAssistant
)

// knownSource is a source written with one spelling however it arrives: as a utm_source (any
// case), a shorthand marketers tag links with ("ig", "fb", "adwords") or a referrer host (a
// host matches its subdomains too: m.facebook.com is Facebook).
type knownSource struct {
	name     string
	category category
	keys     []string
	paid     []string // shorthands of the source's paid traffic (utm_source=fb-ads), keys too
}

// known is the list of known sources, shipped with the binary. Hosts are keys like any other;
// brands registered under every country's domain (google.de, google.co.uk) are in brands.
var known = []knownSource{
	// Search engines.
	{"Google", searchSite, []string{"google", "google.com", "googleadservices.com"}, []string{"adwords", "google-ads", "google_ads", "googleads", "google ads", "gads"}},
	{"Bing", searchSite, []string{"bing", "bing.com", "ntp.msn.com"}, []string{"bing-ads", "bing_ads", "bingads", "microsoft-ads", "microsoft_ads"}},
	{"DuckDuckGo", searchSite, []string{"duckduckgo", "duckduckgo.com", "ddg"}, nil},
	{"Yahoo", searchSite, []string{"yahoo", "yahoo!", "yahoo.com", "search.yahoo.com", "yahoo.co.jp"}, nil},
	{"Yandex", searchSite, []string{"yandex", "ya.ru"}, []string{"yandex-ads", "yandex_ads"}},
	{"Baidu", searchSite, []string{"baidu", "baidu.com"}, nil},
	{"Ecosia", searchSite, []string{"ecosia", "ecosia.org"}, nil},
	{"Brave", searchSite, []string{"brave", "search.brave.com"}, nil},
	{"Qwant", searchSite, []string{"qwant", "qwant.com"}, nil},
	{"Startpage", searchSite, []string{"startpage", "startpage.com"}, nil},
	{"Kagi", searchSite, []string{"kagi", "kagi.com"}, nil},
	{"Naver", searchSite, []string{"naver", "naver.com", "search.naver.com"}, nil},
	{"Seznam", searchSite, []string{"seznam", "seznam.cz", "search.seznam.cz"}, nil},
	{"Sogou", searchSite, []string{"sogou", "sogou.com"}, nil},
	{"360 Search", searchSite, []string{"360 search", "so.com", "360.cn"}, nil},
	{"Daum", searchSite, []string{"daum", "daum.net"}, nil},
	{"AOL", searchSite, []string{"aol", "search.aol.com"}, nil},
	{"Ask", searchSite, []string{"ask", "ask.com"}, nil},
	{"Mojeek", searchSite, []string{"mojeek", "mojeek.com"}, nil},
	// Social networks, forums and messengers.
	{"Facebook", socialSite, []string{"facebook", "facebook.com", "fb", "fb.com", "fb.me", "fcb"}, []string{"fb-ads", "fbads", "fbad", "facebook-ads", "facebook_ads", "facebook_ad", "facebook_feed_ad", "meta-ads", "meta_ads"}},
	{"Instagram", socialSite, []string{"instagram", "instagram.com", "ig"}, []string{"instagram-ads", "instagram_ads"}},
	{"X", socialSite, []string{"x", "x.com", "twitter", "twitter.com", "t.co", "x (twitter)"}, []string{"twitter-ads", "twitter_ads", "x-ads"}},
	{"LinkedIn", socialSite, []string{"linkedin", "linkedin.com", "lnkd.in"}, []string{"linkedin-ads", "linkedin_ads"}},
	{"Reddit", socialSite, []string{"reddit", "reddit.com", "redd.it"}, []string{"reddit-ads", "reddit_ads"}},
	{"Pinterest", socialSite, []string{"pinterest", "pinterest.com", "pin.it"}, []string{"pinterest-ads", "pinterest_ads"}},
	{"TikTok", socialSite, []string{"tiktok", "tiktok.com", "tik.tok"}, []string{"tiktokads", "tiktok-ads", "tiktok_ads"}},
	{"Snapchat", socialSite, []string{"snapchat", "snapchat.com"}, []string{"snapchat-ads", "snapchat_ads"}},
	{"Hacker News", socialSite, []string{"hacker news", "hackernews", "news.ycombinator.com"}, nil},
	{"GitHub", socialSite, []string{"github", "github.com"}, nil},
	{"Mastodon", socialSite, []string{"mastodon", "mastodon.social", "mastodon.online", "mstdn.social"}, nil},
	{"Bluesky", socialSite, []string{"bluesky", "bsky", "bsky.app"}, nil},
	{"Threads", socialSite, []string{"threads", "threads.net", "threads.com"}, nil},
	{"Telegram", socialSite, []string{"telegram", "t.me", "telegram.org"}, nil},
	{"Discord", socialSite, []string{"discord", "discord.com", "discordapp.com"}, nil},
	{"WhatsApp", socialSite, []string{"whatsapp", "whatsapp.com", "wa.me"}, nil},
	{"Slack", socialSite, []string{"slack", "slack.com"}, nil},
	{"Microsoft Teams", socialSite, []string{"microsoft teams", "teams.microsoft.com", "statics.teams.cdn.office.net"}, nil},
	{"VKontakte", socialSite, []string{"vkontakte", "vk", "vk.com"}, nil},
	{"Quora", socialSite, []string{"quora", "quora.com"}, nil},
	{"Tumblr", socialSite, []string{"tumblr", "tumblr.com"}, nil},
	{"Weibo", socialSite, []string{"weibo", "weibo.com"}, nil},
	{"XING", socialSite, []string{"xing", "xing.com"}, nil},
	{"Lobsters", socialSite, []string{"lobsters", "lobste.rs"}, nil},
	{"Product Hunt", socialSite, []string{"product hunt", "producthunt", "producthunt.com"}, nil},
	{"Stack Overflow", socialSite, []string{"stack overflow", "stackoverflow", "stackoverflow.com"}, nil},
	{"Steam", socialSite, []string{"steam", "steamcommunity.com"}, nil},
	// Video.
	{"YouTube", videoSite, []string{"youtube", "youtube.com", "youtu.be", "yt"}, []string{"yt-ads", "youtube-ads", "youtube_ads"}},
	{"Vimeo", videoSite, []string{"vimeo", "vimeo.com"}, nil},
	{"Twitch", videoSite, []string{"twitch", "twitch.tv"}, nil},
	{"Dailymotion", videoSite, []string{"dailymotion", "dailymotion.com"}, nil},
	// Shopping.
	{"Amazon", shoppingSite, []string{"amazon", "amazon.com"}, nil},
	{"eBay", shoppingSite, []string{"ebay", "ebay.com"}, nil},
	{"Etsy", shoppingSite, []string{"etsy", "etsy.com"}, nil},
	{"Temu", shoppingSite, []string{"temu", "temu.com"}, nil},
	// E-mail providers' web mail.
	{"Gmail", emailSite, []string{"gmail", "gmail.com", "mail.google.com"}, nil},
	{"Outlook", emailSite, []string{"outlook", "outlook.com", "outlook.live.com", "outlook.office.com", "outlook.office365.com"}, nil},
	{"Yahoo Mail", emailSite, []string{"yahoo mail", "mail.yahoo.com", "mail.yahoo.co.jp"}, nil},
	{"Proton Mail", emailSite, []string{"proton mail", "protonmail", "mail.proton.me"}, nil},
	{"iCloud Mail", emailSite, []string{"icloud mail", "icloud.com"}, nil},
	// AI assistants.
	{"ChatGPT", aiAssistant, []string{"chatgpt", "chatgpt.com", "chat.openai.com"}, nil},
	{"Claude", aiAssistant, []string{"claude", "claude.ai"}, nil},
	{"Perplexity", aiAssistant, []string{"perplexity", "perplexity.ai"}, nil},
	{"Gemini", aiAssistant, []string{"gemini", "google gemini", "gemini.google.com", "bard.google.com"}, nil},
	{"Copilot", aiAssistant, []string{"copilot", "copilot.microsoft.com"}, nil},
	{"DeepSeek", aiAssistant, []string{"deepseek", "deepseek.com", "chat.deepseek.com"}, nil},
	{"Grok", aiAssistant, []string{"grok", "grok.com"}, nil},
	{"Phind", aiAssistant, []string{"phind", "phind.com"}, nil},
	{"Le Chat", aiAssistant, []string{"le chat", "chat.mistral.ai"}, nil},
	// Well-known referrers of no category.
	{"Wikipedia", noCategory, []string{"wikipedia", "wikipedia.org"}, nil},
	{"Linktree", noCategory, []string{"linktree", "linktr.ee"}, nil},
}

// brands are the sources registered under every country's domain: the label before the
// country's suffix names them (google.de, google.co.uk, yandex.com.tr, amazon.fr).
var brands = map[string]string{"google": "Google", "yandex": "Yandex", "amazon": "Amazon", "ebay": "eBay", "pinterest": "Pinterest", "bing": "Bing"}

// countrySuffixes are the second-level labels under which a brand registers per country
// (google.co.uk, google.com.br); one-label suffixes (google.de) need none.
var countrySuffixes = map[string]bool{"co": true, "com": true, "org": true, "net": true, "ac": true, "ne": true, "or": true}

var (
	byKey       map[string]*knownSource // every key and every name, lower-cased
	paidSources map[string]bool         // every paid shorthand
	lowerNames  = map[string]string{}   // each name lower-cased once, as the channel rules read it
)

func init() {
	byKey = make(map[string]*knownSource, 4*len(known))
	paidSources = make(map[string]bool)
	for i := range known {
		s := &known[i]
		lowerNames[s.name] = strings.ToLower(s.name)
		byKey[lowerNames[s.name]] = s
		for _, key := range s.keys {
			byKey[key] = s
		}
		for _, key := range s.paid {
			byKey[key] = s
			paidSources[key] = true
		}
	}
}

// KnownName is the list's spelling of a source given in any case ("GOOGLE", "ig", "t.co"), or
// "" when the list does not know it.
func KnownName(s string) string {
	if k := lookup(s); k != nil {
		return k.name
	}
	return ""
}

// lookup finds a tag's value as a key; a host-like value also by its parent domains and brand.
func lookup(s string) *knownSource {
	if s == "" {
		return nil
	}
	s = strings.ToLower(s)
	if k := byKey[s]; k != nil {
		return k
	}
	if strings.Contains(s, " ") || !strings.Contains(s, ".") {
		return nil
	}
	return lookupHost(s)
}

// lookupHost finds a lower-cased host by its parent domains (m.facebook.com is facebook.com),
// then by brand (google.co.uk).
func lookupHost(host string) *knownSource {
	host = strings.TrimSuffix(host, ".")
	for h := host; ; {
		if k := byKey[h]; k != nil {
			return k
		}
		_, rest, ok := strings.Cut(h, ".")
		if !ok || !strings.Contains(rest, ".") {
			break
		}
		h = rest
	}
	if name := brand(host); name != "" {
		return byKey[strings.ToLower(name)]
	}
	if isMastodon(host) {
		return byKey["mastodon"]
	}
	return nil
}

// brand finds BRAND.TLD and BRAND.co.TLD and their subdomains, without splitting the host.
func brand(host string) string {
	last := strings.LastIndexByte(host, '.')
	if last < 0 {
		return ""
	}
	rest := host[:last]
	label := rest[strings.LastIndexByte(rest, '.')+1:]
	if countrySuffixes[label] && len(host)-last-1 == 2 && strings.Contains(rest, ".") {
		rest = rest[:strings.LastIndexByte(rest, '.')]
		label = rest[strings.LastIndexByte(rest, '.')+1:]
	}
	return brands[label]
}

// isMastodon: most Mastodon servers say so in their name (mastodon.example, mstdn.jp).
func isMastodon(host string) bool {
	for rest := host; rest != ""; {
		var label string
		label, rest, _ = strings.Cut(rest, ".")
		if label == "mastodon" || label == "mstdn" {
			return true
		}
	}
	return false
}
