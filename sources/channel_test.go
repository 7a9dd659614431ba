package sources

import (
	"slices"
	"testing"
)

// channelCase is a visit and the rule that must decide its channel, named by its words.
type channelCase struct {
	source, medium, campaign, utmSource, clickID string
	rule                                         string
}

var channelCases = []channelCase{
	{"Google", "cpc", "spring-cross-network", "google", "", "utm_campaign contains cross-network"},
	{"", "", "Cross-Network-Q3", "", "", "utm_campaign contains cross-network"},
	{"amazon.com", "cpc", "", "", "", "a shopping source or campaign, and a paid medium"},
	{"newsletter", "paid", "summer-shop", "", "", "a shopping source or campaign, and a paid medium"},
	{"Google", "cpc", "", "google", "", "a search source and a paid medium"},
	{"Bing", "PPC", "", "bing", "", "a search source and a paid medium"},
	{"DuckDuckGo", "retargeting", "", "", "", "a search source and a paid medium"},
	{"Google", "", "", "adwords", "", "a search source and a paid utm_source shorthand"},
	{"Google", "", "", "Google-Ads", "", "a search source and a paid utm_source shorthand"},
	{"Google", "", "", "", "gclid", "Google with gclid in the URL"},
	{"Bing", "", "", "", "msclkid", "Bing with msclkid in the URL"},
	{"Facebook", "paid_social", "", "facebook", "", "a social source and a paid medium"},
	{"Facebook", "", "", "fb-ads", "", "a social source and a paid utm_source shorthand"},
	{"YouTube", "cpv", "", "youtube", "", "a video source and a paid medium"},
	{"YouTube", "", "", "yt-ads", "", "a video source and a paid utm_source shorthand"},
	{"example.com", "banner", "", "example.com", "", "utm_medium is display, banner, expandable, interstitial or cpm"},
	{"Google", "cpm", "", "google", "", "a search source and a paid medium"}, // cpm is paid before it is display
	{"partner.example", "display", "", "", "", "utm_medium is display, banner, expandable, interstitial or cpm"},
	{"partner.example", "cpc", "", "", "", "a paid medium"},
	{"Facebook", "", "", "", "gclid", "a social source"}, // gclid makes only Google paid
	{"etsy", "", "", "etsy", "", "a shopping source or campaign"},
	{"", "", "eshop-launch", "", "", "a shopping source or campaign"},
	{"", "", "holiday shopping", "", "", "a shopping source or campaign"},
	{"Hacker News", "", "", "", "", "a social source"},
	{"GitHub", "", "", "", "", "a social source"},
	{"Mastodon", "", "", "", "", "a social source"},
	{"Bluesky", "", "", "", "", "a social source"},
	{"X", "", "", "", "", "a social source"},
	{"m.facebook.com", "", "", "", "", "a social source"},
	{"partner.example", "social media", "", "", "", "utm_medium is social, social-network, social-media, sm, social network or social media"},
	{"YouTube", "", "", "", "", "a video source"},
	{"partner.example", "promo-video", "", "", "", "utm_medium contains video"},
	{"ChatGPT", "", "", "", "", "an AI assistant source"},
	{"Perplexity", "", "", "", "", "an AI assistant source"},
	{"Google", "", "", "", "", "a search source"},
	{"Ecosia", "", "", "", "", "a search source"},
	{"Brave", "", "", "", "", "a search source"},
	{"yandex.ru", "", "", "", "", "a search source"},
	{"partner.example", "Organic", "", "", "", "utm_medium is organic"},
	{"Gmail", "", "", "", "", "an e-mail source"},
	{"Newsletter", "", "", "Newsletter", "", "utm_source or utm_medium contains email, e-mail, e_mail, e mail or newsletter"},
	{"acme", "E-Mail", "", "acme", "", "utm_source or utm_medium contains email, e-mail, e_mail, e mail or newsletter"},
	{"partner.example", "affiliate", "", "", "", "utm_medium is affiliate"},
	{"podcast", "audio", "", "podcast", "", "utm_medium is audio"},
	{"sms", "", "", "sms", "", "utm_source or utm_medium is sms"},
	{"", "SMS", "", "", "", "utm_source or utm_medium is sms"},
	{"", "web-push", "", "", "", "utm_medium ends with push or contains mobile or notification, or the source is firebase"},
	{"", "mobile", "", "", "", "utm_medium ends with push or contains mobile or notification, or the source is firebase"},
	{"firebase", "", "", "firebase", "", "utm_medium ends with push or contains mobile or notification, or the source is firebase"},
	{"", "link", "", "", "", "utm_medium is referral, app or link"},
	{"blog.example.org", "", "", "", "", "any other source"},
	{"Wikipedia", "", "", "", "", "any other source"},
	{"(redacted)", "", "", "(redacted)", "", "any other source"},
	{"", "", "", "", "", "no source"},
	{"", "unknown-medium", "spring", "", "gclid", "no source"},
}

func ruleIndex(t *testing.T, says string) int {
	t.Helper()
	i := slices.IndexFunc(rules, func(r rule) bool { return r.says == says })
	if i < 0 {
		t.Fatalf("no rule says %q", says)
	}
	return i
}

func TestChannelRules(t *testing.T) {
	for _, c := range channelCases {
		want := ruleIndex(t, c.rule)
		got := decide(c.source, c.medium, c.campaign, c.utmSource, c.clickID)
		if got != want {
			t.Errorf("%+v: decided by %q (%s), want %q (%s)", c, rules[got].says, rules[got].channel, c.rule, rules[want].channel)
		}
		if ch := Channel(c.source, c.medium, c.campaign, c.utmSource, c.clickID); ch != rules[want].channel {
			t.Errorf("%+v: channel %q, want %q", c, ch, rules[want].channel)
		}
	}
}

// Every rule and every channel is decided by at least one case above, so a rule moved, dropped
// or mistyped fails a test.
func TestEveryRuleAndChannelHasACase(t *testing.T) {
	ruled := map[string]bool{}
	channels := map[string]bool{}
	for _, c := range channelCases {
		ruled[c.rule] = true
		channels[rules[ruleIndex(t, c.rule)].channel] = true
	}
	for _, r := range rules {
		if !ruled[r.says] {
			t.Errorf("rule %q (%s) has no case", r.says, r.channel)
		}
		if !slices.Contains(Channels, r.channel) {
			t.Errorf("rule %q puts visits in %q, which is not in Channels", r.says, r.channel)
		}
	}
	for _, ch := range Channels {
		if !channels[ch] {
			t.Errorf("channel %q has no case", ch)
		}
	}
	if len(Channels) != 19 {
		t.Errorf("%d channels, want 19", len(Channels))
	}
	if last := rules[len(rules)-1]; last.channel != Direct || !last.test(facts{}) {
		t.Errorf("the last rule must put every remaining visit in Direct, got %+v", last)
	}
}

func TestShoppingCampaign(t *testing.T) {
	for campaign, want := range map[string]bool{
		"shop": true, "eshop": true, "summer-shop": true, "big_shop_sale": true, "shopping": true, "christmasshopping": true,
		"workshop": false, "bishop": false, "": false, "sho": false, "workshop-shop": true,
	} {
		if got := shoppingCampaign(campaign); got != want {
			t.Errorf("shoppingCampaign(%q) = %v, want %v", campaign, got, want)
		}
	}
}

func TestPaidMedium(t *testing.T) {
	for medium, want := range map[string]bool{
		"cpc": true, "cpm": true, "cpv": true, "ppc": true, "retargeting": true, "paid": true, "paid_social": true, "paidsearch": true,
		"organic": false, "email": false, "": false, "ppc-2": false, "unpaid": false,
	} {
		if got := paidMedium(medium); got != want {
			t.Errorf("paidMedium(%q) = %v, want %v", medium, got, want)
		}
	}
}
