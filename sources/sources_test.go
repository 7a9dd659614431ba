package sources

import (
	"strings"
	"testing"
)

func TestSourceOfTags(t *testing.T) {
	cases := []struct {
		query, referrer, want string
	}{
		{"utm_source=google", "", "Google"},
		{"utm_source=GOOGLE", "", "Google"},
		{"utm_source=GoOgLe", "bing.com", "Google"}, // a tag wins over the referrer
		{"utm_source=t.co", "", "X"},
		{"utm_source=Twitter", "", "X"},
		{"utm_source=ig", "", "Instagram"},
		{"utm_source=IG", "", "Instagram"},
		{"utm_source=fb", "", "Facebook"},
		{"utm_source=adwords", "", "Google"},
		{"utm_source=chatgpt.com", "", "ChatGPT"},
		{"utm_source=google.de", "", "Google"},
		{"utm_source=hacker+news", "", "Hacker News"},
		{"utm_source=Newsletter", "", "Newsletter"}, // unknown: as given
		{"utm_source=My%20Partner", "", "My Partner"},
		{"source=reddit&ref=github", "", "Reddit"}, // source before ref
		{"ref=github", "", "GitHub"},
		{"ref=producthunt", "news.ycombinator.com", "Product Hunt"},
		{"utm_source=&source=ig", "", "Instagram"}, // an empty tag is absent
		{"utm_medium=email", "", ""},               // no source tag and no referrer: direct
		{"", "", ""},
	}
	for _, c := range cases {
		if got := SourceOf(ReadTags(c.query), c.referrer); got != c.want {
			t.Errorf("SourceOf(%q, %q) = %q, want %q", c.query, c.referrer, got, c.want)
		}
	}
}

func TestSourceOfReferrer(t *testing.T) {
	cases := map[string]string{
		"www.google.com": "Google", "google.co.uk": "Google", "news.google.com": "Google", "www.google.com.br": "Google",
		"yandex.com.tr": "Yandex", "cn.bing.com": "Bing", "duckduckgo.com": "DuckDuckGo", "search.brave.com": "Brave",
		"www.ecosia.org": "Ecosia", "m.facebook.com": "Facebook", "l.instagram.com": "Instagram", "t.co": "X",
		"x.com": "X", "news.ycombinator.com": "Hacker News", "github.com": "GitHub", "bsky.app": "Bluesky",
		"mastodon.social": "Mastodon", "fosstodon.mastodon.example": "Mastodon", "mstdn.jp": "Mastodon",
		"chatgpt.com": "ChatGPT", "www.perplexity.ai": "Perplexity", "gemini.google.com": "Gemini", "claude.ai": "Claude",
		"mail.google.com": "Gmail", "outlook.live.com": "Outlook", "en.m.wikipedia.org": "Wikipedia",
		"WWW.Example.COM": "example.com", "blog.example.org": "blog.example.org", "www.": "www", "example.com.": "example.com",
		"google.example.com": "google.example.com", // a brand is its label before the suffix, not any label
		"":                   "",
	}
	for host, want := range cases {
		if got := SourceOf(Tags{}, host); got != want {
			t.Errorf("SourceOf(referrer %q) = %q, want %q", host, got, want)
		}
	}
}

func TestKnownNameCaseInsensitive(t *testing.T) {
	for in, want := range map[string]string{
		"google": "Google", "GOOGLE": "Google", "Google": "Google", "YouTube": "YouTube", "yt": "YouTube",
		"HACKER NEWS": "Hacker News", "chatgpt": "ChatGPT", "ChatGPT.com": "ChatGPT", "Fb-Ads": "Facebook",
		"unknown": "", "": "", "threads": "Threads",
	} {
		if got := KnownName(in); got != want {
			t.Errorf("KnownName(%q) = %q, want %q", in, got, want)
		}
	}
}

// The known list has one owner per key, and only deliberate shorthands are paid sources.
func TestKnownListConsistent(t *testing.T) {
	seen := map[string]string{}
	for _, k := range known {
		for _, key := range append(append([]string{strings.ToLower(k.name)}, k.keys...), k.paid...) {
			if key != strings.ToLower(key) || strings.TrimSpace(key) != key || key == "" {
				t.Errorf("%s: key %q must be lower-case and trimmed", k.name, key)
			}
			if owner, dup := seen[key]; dup && owner != k.name {
				t.Errorf("key %q belongs to both %s and %s", key, owner, k.name)
			}
			seen[key] = k.name
		}
	}
	if paidSources["threads"] || paidSources["google"] || !paidSources["adwords"] || !paidSources["fb-ads"] {
		t.Errorf("paid sources wrong: %v", paidSources)
	}
}

func TestResolve(t *testing.T) {
	cases := []struct {
		query, referrer string
		want            Visit
	}{
		{"", "", Visit{Channel: Direct}},
		{"", "www.google.de", Visit{Source: "Google", Channel: OrganicSearch}},
		{"gclid=abc", "www.google.com", Visit{Source: "Google", Channel: PaidSearch}},
		{"msclkid=abc", "www.bing.com", Visit{Source: "Bing", Channel: PaidSearch}},
		{"utm_source=newsletter&utm_medium=email&utm_campaign=Spring&utm_term=shoes&utm_content=hero", "",
			Visit{Source: "newsletter", Channel: Email, UTMSource: "newsletter", UTMMedium: "email", UTMCampaign: "Spring", UTMTerm: "shoes", UTMContent: "hero"}},
		{"utm_source=fb&utm_medium=paid_social", "l.facebook.com",
			Visit{Source: "Facebook", Channel: PaidSocial, UTMSource: "fb", UTMMedium: "paid_social"}},
		{"utm_source=chatgpt.com", "", Visit{Source: "ChatGPT", Channel: AIAssistants, UTMSource: "chatgpt.com"}},
		{"ref=producthunt", "", Visit{Source: "Product Hunt", Channel: OrganicSocial}},
		{"", "blog.example.org", Visit{Source: "blog.example.org", Channel: Referral}},
		{"utm_medium=cpc", "", Visit{Channel: PaidOther, UTMMedium: "cpc"}},
	}
	for _, c := range cases {
		if got := Resolve(c.query, c.referrer); got != c.want {
			t.Errorf("Resolve(%q, %q) =\n %+v, want\n %+v", c.query, c.referrer, got, c.want)
		}
	}
}

func TestCategoriesShipped(t *testing.T) {
	counts := map[category]int{}
	for _, c := range ga4Categories {
		counts[c]++
	}
	if counts[searchSite] < 100 || counts[socialSite] < 500 || counts[videoSite] < 40 || counts[shoppingSite] < 50 {
		t.Errorf("categories.txt looks cut short: %v", counts)
	}
	for name, want := range map[string]category{
		"google": searchSite, "ecosia": searchSite, "brave": searchSite, "hacker news": socialSite, "github": socialSite,
		"mastodon": socialSite, "bluesky": socialSite, "x": socialSite, "youtube": videoSite, "amazon.co.uk": shoppingSite,
		"google shopping": shoppingSite, "meneame.net": socialSite, "gmail": emailSite, "chatgpt": aiAssistant,
		"wikipedia": noCategory, "example.com": noCategory,
	} {
		if got := categoryOf(name); got != want {
			t.Errorf("categoryOf(%q) = %d, want %d", name, got, want)
		}
	}
}

func TestCategoriesFileRefusesMistakes(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("an unknown category line was accepted")
		}
	}()
	mustParseCategories("serch: google\n")
}
