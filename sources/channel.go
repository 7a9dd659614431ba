package sources

import "strings"

// The channels, as Google Analytics 4's default channel group names them, plus AI Assistants.
const (
	Direct                  = "Direct"
	CrossNetwork            = "Cross-network"
	PaidShopping            = "Paid Shopping"
	PaidSearch              = "Paid Search"
	PaidSocial              = "Paid Social"
	PaidVideo               = "Paid Video"
	Display                 = "Display"
	PaidOther               = "Paid Other"
	OrganicShopping         = "Organic Shopping"
	OrganicSocial           = "Organic Social"
	OrganicVideo            = "Organic Video"
	AIAssistants            = "AI Assistants"
	OrganicSearch           = "Organic Search"
	Email                   = "Email"
	Affiliates              = "Affiliates"
	Audio                   = "Audio"
	SMS                     = "SMS"
	MobilePushNotifications = "Mobile Push Notifications"
	Referral                = "Referral"
)

// Channels are every channel a visit can be in.
var Channels = []string{Direct, CrossNetwork, PaidShopping, PaidSearch, PaidSocial, PaidVideo, Display, PaidOther,
	OrganicShopping, OrganicSocial, OrganicVideo, AIAssistants, OrganicSearch, Email, Affiliates, Audio, SMS,
	MobilePushNotifications, Referral}

// facts are what the rules read of a visit, lower-cased.
type facts struct {
	source, medium, campaign, utmSource string
	category                            category // of source
	clickID                             string   // "gclid", "msclkid" or ""
}

// rule puts a visit in its channel when its test holds; rules are tried in order and the first
// that holds decides.
type rule struct {
	channel string
	says    string // the rule in words, for the docs and the tests' messages
	test    func(f facts) bool
}

// rules are GA4's default channel group in the order Plausible applies them: paid before
// organic, AI assistants before search, and Direct when nothing else holds. Beyond GA4: a paid
// utm_source shorthand (fb-ads, adwords) makes a visit from a search, social or video source
// paid as a paid medium does; Google with gclid and Bing with msclkid are Paid Search; e-mail
// tags are matched as substrings and include "newsletter".
var rules = []rule{
	{CrossNetwork, "utm_campaign contains cross-network", func(f facts) bool { return strings.Contains(f.campaign, "cross-network") }},
	{PaidShopping, "a shopping source or campaign, and a paid medium", func(f facts) bool {
		return (f.category == shoppingSite || shoppingCampaign(f.campaign)) && paidMedium(f.medium)
	}},
	{PaidSearch, "a search source and a paid medium", func(f facts) bool { return f.category == searchSite && paidMedium(f.medium) }},
	{PaidSearch, "a search source and a paid utm_source shorthand", func(f facts) bool { return f.category == searchSite && paidSources[f.utmSource] }},
	{PaidSearch, "Google with gclid in the URL", func(f facts) bool { return f.source == "google" && f.clickID == "gclid" }},
	{PaidSearch, "Bing with msclkid in the URL", func(f facts) bool { return f.source == "bing" && f.clickID == "msclkid" }},
	{PaidSocial, "a social source and a paid medium", func(f facts) bool { return f.category == socialSite && paidMedium(f.medium) }},
	{PaidSocial, "a social source and a paid utm_source shorthand", func(f facts) bool { return f.category == socialSite && paidSources[f.utmSource] }},
	{PaidVideo, "a video source and a paid medium", func(f facts) bool { return f.category == videoSite && paidMedium(f.medium) }},
	{PaidVideo, "a video source and a paid utm_source shorthand", func(f facts) bool { return f.category == videoSite && paidSources[f.utmSource] }},
	{Display, "utm_medium is display, banner, expandable, interstitial or cpm", func(f facts) bool {
		return oneOf(f.medium, "display", "banner", "expandable", "interstitial", "cpm")
	}},
	{PaidOther, "a paid medium", func(f facts) bool { return paidMedium(f.medium) }},
	{OrganicShopping, "a shopping source or campaign", func(f facts) bool { return f.category == shoppingSite || shoppingCampaign(f.campaign) }},
	{OrganicSocial, "a social source", func(f facts) bool { return f.category == socialSite }},
	{OrganicSocial, "utm_medium is social, social-network, social-media, sm, social network or social media", func(f facts) bool {
		return oneOf(f.medium, "social", "social-network", "social-media", "sm", "social network", "social media")
	}},
	{OrganicVideo, "a video source", func(f facts) bool { return f.category == videoSite }},
	{OrganicVideo, "utm_medium contains video", func(f facts) bool { return strings.Contains(f.medium, "video") }},
	{AIAssistants, "an AI assistant source", func(f facts) bool { return f.category == aiAssistant }},
	{OrganicSearch, "a search source", func(f facts) bool { return f.category == searchSite }},
	{OrganicSearch, "utm_medium is organic", func(f facts) bool { return f.medium == "organic" }},
	{Email, "an e-mail source", func(f facts) bool { return f.category == emailSite }},
	{Email, "utm_source or utm_medium contains email, e-mail, e_mail, e mail or newsletter", func(f facts) bool {
		return emailTag(f.utmSource) || emailTag(f.medium)
	}},
	{Affiliates, "utm_medium is affiliate", func(f facts) bool { return f.medium == "affiliate" }},
	{Audio, "utm_medium is audio", func(f facts) bool { return f.medium == "audio" }},
	{SMS, "utm_source or utm_medium is sms", func(f facts) bool { return f.utmSource == "sms" || f.medium == "sms" }},
	{MobilePushNotifications, "utm_medium ends with push or contains mobile or notification, or the source is firebase", func(f facts) bool {
		return strings.HasSuffix(f.medium, "push") || strings.Contains(f.medium, "mobile") || strings.Contains(f.medium, "notification") || f.source == "firebase"
	}},
	{Referral, "utm_medium is referral, app or link", func(f facts) bool { return oneOf(f.medium, "referral", "app", "link") }},
	{Referral, "any other source", func(f facts) bool { return f.source != "" }},
	{Direct, "no source", func(facts) bool { return true }},
}

// Channel is the channel of a visit from its source (as Resolve names it), its utm_medium,
// utm_campaign and utm_source tags and the click id in its URL ("gclid", "msclkid" or "").
// Case does not matter.
func Channel(source, medium, campaign, utmSource, clickID string) string {
	return rules[decide(source, medium, campaign, utmSource, clickID)].channel
}

// decide is the index of the rule that puts a visit in its channel.
func decide(source, medium, campaign, utmSource, clickID string) int {
	f := facts{
		source: strings.ToLower(source), medium: strings.ToLower(medium), campaign: strings.ToLower(campaign),
		utmSource: strings.ToLower(utmSource), clickID: clickID,
	}
	return f.decide()
}

// decide is the index of the first rule whose test holds.
func (f *facts) decide() int {
	f.category = categoryOf(f.source)
	for i := range rules {
		if rules[i].test(*f) {
			return i
		}
	}
	return len(rules) - 1
}

// paidMedium is GA4's ^(.*cp.*|ppc|retargeting|paid.*)$: cpc, cpm, cpv, ppc, paid_social...
func paidMedium(medium string) bool {
	return strings.Contains(medium, "cp") || medium == "ppc" || medium == "retargeting" || strings.HasPrefix(medium, "paid")
}

// shoppingCampaign is GA4's ^(.*(([^a-df-z]|^)shop|shopping).*)$: "shop" at the start or after
// anything but a letter other than "e" (eshop, summer-shop, not workshop), or "shopping".
func shoppingCampaign(campaign string) bool {
	if strings.Contains(campaign, "shopping") {
		return true
	}
	for i := 0; ; {
		j := strings.Index(campaign[i:], "shop")
		if j < 0 {
			return false
		}
		at := i + j
		if at == 0 {
			return true
		}
		if c := campaign[at-1]; c == 'e' || c < 'a' || c > 'z' {
			return true
		}
		i = at + 1
	}
}

func emailTag(s string) bool {
	return strings.Contains(s, "email") || strings.Contains(s, "e-mail") || strings.Contains(s, "e_mail") ||
		strings.Contains(s, "e mail") || strings.Contains(s, "newsletter")
}

func oneOf(s string, values ...string) bool {
	for _, v := range values {
		if s == v {
			return true
		}
	}
	return false
}
