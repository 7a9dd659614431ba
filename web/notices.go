package web

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/analytics-service/analytics/stats"
)

// RangeFacts are what a range's numbers rest on beside the counts: the website's first day
// counted by visits (websites.visits_from), whether the range holds a day with counts before
// it (CountedBefore), and the range's imported days.
type RangeFacts struct {
	Range         stats.Range
	VisitsFrom    time.Time
	CountedBefore bool
	ImportedDays  int64
	Sources       []string      // "phpanalytics", "plausible", "goatcounter"
	Resets        []stats.Reset // the ranges of its stats its owner deleted that overlap it
}

// VisitNotices are the sentences the dashboard and the e-mail reports show under numbers
// whose meaning changes inside them (docs/visits.md, docs/imports.md): a range or its
// comparison that holds days counted before the changeover to visits (not merely days before
// it: a website added today has none), and imported days. what names the
// range ("this range", "November 2026") and before its comparison ("the 30 days before",
// "October 2026"). Plain text: templates escape it.
func VisitNotices(what, before string, now, prev RangeFacts) []string {
	var out []string
	var early []string
	if now.CountedBefore && now.Range.From.Before(now.VisitsFrom) {
		early = append(early, what)
	}
	if prev.CountedBefore && prev.Range.From.Before(prev.VisitsFrom) {
		early = append(early, before)
	}
	if len(early) > 0 {
		out = append(out, fmt.Sprintf("Days before %s (in %s) were counted before visits were recognised: "+
			"their visitors and visits are the pageviews that came from another site, and they have no bounce rate "+
			"or visit duration, so those two numbers leave them out.",
			now.VisitsFrom.Format("2 Jan 2006"), strings.Join(early, " and ")))
	}
	for _, f := range []struct {
		facts RangeFacts
		label string
	}{{now, what}, {prev, before}} {
		if f.facts.ImportedDays == 0 {
			continue
		}
		out = append(out, importedNotice(f.label, f.facts))
	}
	return append(out, resetNotices(what, before, now.Resets, prev.Resets)...)
}

// resetNotices say, once each, which deleted ranges lie in a range or its comparison: their
// numbers lack what was counted on those days before the deletion.
func resetNotices(what, before string, now, prev []stats.Reset) []string {
	var out []string
	seen := map[stats.Reset]bool{}
	for _, r := range now {
		seen[r] = true
		out = append(out, resetNotice(r, what))
	}
	for _, r := range prev {
		if !seen[r] {
			out = append(out, resetNotice(r, before))
		}
	}
	return out
}

func resetNotice(r stats.Reset, in string) string {
	days := "every day up to " + r.To.Format("2 Jan 2006")
	switch {
	case r.From.IsZero():
	case r.From.Equal(r.To):
		days = r.From.Format("2 Jan 2006")
	default:
		days = r.From.Format("2 Jan 2006") + " to " + r.To.Format("2 Jan 2006")
	}
	return fmt.Sprintf("The stats of %s (in %s) were deleted on %s: what had been counted for those days by then is not in these numbers.",
		days, in, r.At.UTC().Format("2 Jan 2006, 15:04 UTC"))
}

func importedNotice(label string, f RangeFacts) string {
	days := Counted(int64(f.ImportedDays), "", "day", "days")
	verb := Plural(int64(f.ImportedDays), "was", "were")
	var names []string
	for _, s := range f.Sources {
		names = append(names, sourceName(s))
	}
	msg := fmt.Sprintf("%s of %s %s imported from %s", days, label, verb, strings.Join(names, " and "))
	for _, s := range f.Sources {
		if s == "phpanalytics" {
			return msg + ": phpAnalytics' days count a visit per visitor and have no bounce rate or visit duration."
		}
	}
	return msg + "."
}

func sourceName(s string) string {
	switch s {
	case "phpanalytics":
		return "phpAnalytics"
	case "plausible":
		return "Plausible"
	case "goatcounter":
		return "GoatCounter"
	}
	return s
}

// FilterNotices are the sentences a page shows under filtered numbers (docs/filters.md).
// from is the first day with visit details (repository.FilteredFrom) of the earliest range
// the page shows, zero when every day of it has them: for the dashboard the range before
// days, which its changes compare with (named by before), for a full list days itself (before
// ""). fraction is the fraction of the visitors read (repository.Basis): under 1, a view of
// more than stats.MaxExactPageviews is estimated from a sample, and says so. Plain text:
// templates escape it.
func FilterNotices(days stats.Range, before string, from time.Time, fraction float64) []string {
	var out []string
	day := from.Format("2 Jan 2006")
	switch {
	case from.IsZero():
	case from.After(days.To):
		out = append(out, fmt.Sprintf("With filters, numbers start on %s, after this range: none of its days has visit details.", day))
	case from.After(days.From):
		out = append(out, fmt.Sprintf("With filters, numbers start on %s: earlier days have no visit details.", day))
	case before != "":
		out = append(out, fmt.Sprintf("With filters, the numbers of %s start on %s: earlier days have no visit details.", before, day))
	}
	if fraction < 1 {
		out = append(out, fmt.Sprintf("Estimated from %g %% of visitors (views of more than %d million pageviews are sampled).",
			math.Round(fraction*100), stats.MaxExactPageviews/1_000_000))
	}
	return out
}
