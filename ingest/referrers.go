package ingest

import "strings"

// Search engines and social networks by referrer host: the value of
// search_engine or social_network of a visit that came from one. A host matches an entry when
// it is the entry or a subdomain of it; brands with one domain per country (google.de,
// google.co.uk, yandex.ru) match by their name as the label before the country's suffix.
var (
	searchEngineHosts = map[string]string{
		"duckduckgo.com": "DuckDuckGo", "bing.com": "Bing", "ecosia.org": "Ecosia",
		"search.yahoo.com": "Yahoo", "baidu.com": "Baidu", "qwant.com": "Qwant",
		"startpage.com": "Startpage", "search.brave.com": "Brave", "naver.com": "Naver",
		"seznam.cz": "Seznam", "sogou.com": "Sogou", "so.com": "360 Search", "kagi.com": "Kagi",
		"yahoo.co.jp": "Yahoo", "ya.ru": "Yandex", "perplexity.ai": "Perplexity",
	}
	searchEngineBrands = map[string]string{"google": "Google", "yandex": "Yandex"}

	socialNetworkHosts = map[string]string{
		"facebook.com": "Facebook", "fb.com": "Facebook", "fb.me": "Facebook",
		"x.com": "X", "twitter.com": "X", "t.co": "X",
		"reddit.com": "Reddit", "redd.it": "Reddit",
		"linkedin.com": "LinkedIn", "lnkd.in": "LinkedIn",
		"youtube.com": "YouTube", "youtu.be": "YouTube",
		"news.ycombinator.com": "Hacker News",
		"instagram.com":        "Instagram", "pinterest.com": "Pinterest", "tiktok.com": "TikTok",
		"threads.net": "Threads", "bsky.app": "Bluesky", "vk.com": "VKontakte",
		"t.me": "Telegram", "telegram.org": "Telegram", "tumblr.com": "Tumblr",
		"quora.com": "Quora", "discord.com": "Discord", "whatsapp.com": "WhatsApp",
		"mastodon.social": "Mastodon", "mastodon.online": "Mastodon", "mstdn.social": "Mastodon",
		"lobste.rs": "Lobsters", "weibo.com": "Weibo", "xing.com": "XING",
	}
)

// countrySuffixes are the second-level suffixes under which brands register per country
// (google.co.uk, google.com.br); one label suffixes (google.de) need no entry.
var countrySuffixes = map[string]bool{"co": true, "com": true, "org": true, "net": true, "ac": true, "gov": true, "ne": true, "or": true}

// classifyReferrer is the search engine and the social network of a referrer host ("" when
// none). Run once per visit, never per hit.
func classifyReferrer(host string) (searchEngine, socialNetwork string) {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "" {
		return "", ""
	}
	for h := host; ; {
		if name, ok := searchEngineHosts[h]; ok {
			return name, ""
		}
		if name, ok := socialNetworkHosts[h]; ok {
			return "", name
		}
		_, rest, ok := strings.Cut(h, ".")
		if !ok || !strings.Contains(rest, ".") {
			break
		}
		h = rest
	}
	if name := brand(host); name != "" {
		return name, ""
	}
	if isMastodon(host) {
		return "", "Mastodon"
	}
	return "", ""
}

// brand finds google.TLD, google.co.TLD and their subdomains.
// Its labels are found from the end in place: a visit's first hit called it, and a split of
// the host was an allocation of it.
func brand(host string) string {
	dot := strings.LastIndexByte(host, '.')
	if dot < 0 {
		return "" // one label
	}
	last, rest := host[dot+1:], host[:dot]
	dot = strings.LastIndexByte(rest, '.')
	name := rest[dot+1:] // the label before the last
	if dot >= 0 && countrySuffixes[name] && len(last) == 2 {
		rest = rest[:dot]
		name = rest[strings.LastIndexByte(rest, '.')+1:]
	}
	return searchEngineBrands[name]
}

// isMastodon: most Mastodon servers are named so (mastodon.example, mstdn.jp, example.social's
// own names vary and are not guessed).
func isMastodon(host string) bool {
	for label := range strings.SplitSeq(host, ".") {
		if label == "mastodon" || label == "mstdn" {
			return true
		}
	}
	return false
}
