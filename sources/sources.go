// Package sources says where a visit came from as marketers read it: its source (Google,
// Newsletter, example.com), its UTM tags and its channel (Organic Search, Paid Social, Email...).
// It is resolved once per visit, from its first hit's URL and referrer, with lists that ship
// with the binary: known sources (known.go) and GA4's source categories (categories.txt).
package sources

import (
	"strings"

	"github.com/analytics-service/analytics/stats"
)

// Visit is where a visit came from; every field "" when it has none (Channel is never "").
type Visit struct {
	Source, Channel                                        string
	UTMSource, UTMMedium, UTMCampaign, UTMTerm, UTMContent string
}

// Resolve is where a visit came from, given its first URL's raw query as sent and its
// referrer's host ("" for none and for the website's own pages).
func Resolve(rawQuery, referrerHost string) Visit {
	t := ReadTags(rawQuery)
	source, k := sourceOf(t, referrerHost)
	f := facts{source: lowerSource(source, k), medium: strings.ToLower(t.UTMMedium), campaign: strings.ToLower(t.UTMCampaign),
		utmSource: strings.ToLower(t.UTMSource), clickID: t.ClickID}
	return Visit{
		Source:    source,
		Channel:   rules[f.decide()].channel,
		UTMSource: t.UTMSource, UTMMedium: t.UTMMedium, UTMCampaign: t.UTMCampaign, UTMTerm: t.UTMTerm, UTMContent: t.UTMContent,
	}
}

// Tag is the value of the UTM tag param ("utm_medium"...); ok is false for another name.
func (v *Visit) Tag(param string) (value string, ok bool) {
	switch param {
	case "utm_source":
		return v.UTMSource, true
	case "utm_medium":
		return v.UTMMedium, true
	case "utm_campaign":
		return v.UTMCampaign, true
	case "utm_term":
		return v.UTMTerm, true
	case "utm_content":
		return v.UTMContent, true
	}
	return "", false
}

// SourceOf is a visit's source: its utm_source tag, else source, else ref, else its referrer's
// host without "www."; written as the known list spells it ("ig" is Instagram, google.de is
// Google), else as given. "" for a direct visit.
func SourceOf(t Tags, referrerHost string) string {
	source, _ := sourceOf(t, referrerHost)
	return source
}

// sourceOf is SourceOf and the known source it names (nil when none).
func sourceOf(t Tags, referrerHost string) (string, *knownSource) {
	tag := t.UTMSource
	if tag == "" {
		tag = t.Source
	}
	if tag == "" {
		tag = t.Ref
	}
	if tag != "" {
		if k := lookup(tag); k != nil {
			return k.name, k
		}
		return tag, nil
	}
	return referrerSource(referrerHost)
}

// lowerSource is a source lower-cased without copying a known one's name again.
func lowerSource(source string, k *knownSource) string {
	if k != nil {
		return lowerNames[k.name]
	}
	return strings.ToLower(source)
}

// referrerSource is the source of a referrer host: its known name, else the host lower-cased
// without "www." (not redacted: a host is no tag someone typed a number into).
func referrerSource(host string) (string, *knownSource) {
	if host == "" {
		return "", nil
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if k := lookupHost(host); k != nil {
		return k.name, k
	}
	if rest, ok := strings.CutPrefix(host, "www."); ok && rest != "" {
		host = rest
	}
	return stats.Truncate(stats.Storable(host), MaxLength), nil
}
