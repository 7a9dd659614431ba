package graph

import (
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

func days(from string, n int) stats.Range {
	f, _ := time.Parse(time.DateOnly, from)
	return stats.Range{From: f, To: f.AddDate(0, 0, n-1)}
}

// Each range allows the intervals Plausible's does, and asks for a default that is never a
// hairline per day over a year.
func TestIntervalsOfRanges(t *testing.T) {
	for _, c := range []struct {
		days    int
		allowed string
		def     stats.Interval
	}{
		{1, "hour", stats.Hour}, {2, "hour day", stats.Hour}, {7, "hour day week", stats.Daily},
		{31, "hour day week", stats.Daily}, {32, "day week", stats.Daily}, {61, "day week", stats.Daily},
		{62, "day week month", stats.Daily}, {365, "day week month", stats.Week}, {800, "day week month", stats.Month},
	} {
		r := days("2026-01-01", c.days)
		var got []string
		for _, i := range Allowed(SpanOf(r, r.From.AddDate(0, 0, -1), false)) {
			got = append(got, string(i))
		}
		if strings.Join(got, " ") != c.allowed || Default(r) != c.def {
			t.Errorf("%d days: allowed %v default %s, want %s and %s", c.days, got, Default(r), c.allowed, c.def)
		}
		if !Allows(Default(r), Span{Range: r}) {
			t.Errorf("%d days: the default %s is not allowed", c.days, Default(r))
		}
	}
}

// Minutes are for Today alone, without filters, and draw the metrics a minute counts.
func TestMinutesAreTodaysAlone(t *testing.T) {
	today := days("2026-03-29", 1) // the clocks go forward in Europe: all the same to the rule
	when := today.From
	for _, c := range []struct {
		span    Span
		allowed string
		refusal string
	}{
		{SpanOf(today, when, false), "minute hour", ""},
		{SpanOf(today, when, true), "hour", "minute counts the whole website: it takes no filters; 29 Mar 2026 allows hour"},
		{SpanOf(today, when.AddDate(0, 0, 1), false), "hour", "minute is for Today only; 29 Mar 2026 allows hour"},
		{SpanOf(days("2026-03-28", 2), when, false), "hour day", "minute is for Today only; 28 Mar 2026 – 29 Mar 2026 allows hour, day"},
		{SpanOf(stats.Range{From: when.AddDate(0, 0, -1), To: when, Hours: stats.Hours{Set: true, From: 10, To: 10}}, when, false), "hour",
			"minute is for Today only; "},
	} {
		var got []string
		for _, i := range Allowed(c.span) {
			got = append(got, string(i))
		}
		i, msg := ParseInterval("minute", c.span)
		if strings.Join(got, " ") != c.allowed || !strings.HasPrefix(msg, c.refusal) || (c.refusal == "") != (msg == "") {
			t.Errorf("%s: allowed %v, minute %s %q; want %s and %q", c.span.Range, got, i, msg, c.allowed, c.refusal)
		}
		if msg == "" && (i != Minute || Default(c.span.Range) != stats.Hour || Next(Minute, Allowed(c.span)) != stats.Hour || Next(stats.Hour, Allowed(c.span)) != Minute) {
			t.Errorf("%s: minute parsed as %s, default %s", c.span.Range, i, Default(c.span.Range))
		}
	}
	for _, m := range Metrics {
		msg := MinuteMetric(m, Minute)
		if counted := m.Name == "visitors" || m.Name == "visits" || m.Name == "pageviews"; counted != (msg == "") {
			t.Errorf("%s by the minute: %q", m.Name, msg)
		}
		if MinuteMetric(m, stats.Hour) != "" {
			t.Errorf("%s by the hour refused", m.Name)
		}
	}
	if got := Switch(Metrics[4], SpanOf(today, when, false)); len(got) != 1 || got[0] != stats.Hour {
		t.Errorf("the bounce rate's switch on Today: %v, want hours alone", got)
	}
	if msg := MinuteMetric(Metrics[4], Minute); msg != "bounce_rate is not counted by the minute: interval=minute draws visitors, visits, pageviews" {
		t.Errorf("bounce rate by the minute: %q", msg)
	}
}

func TestParseIntervalAndMetric(t *testing.T) {
	year := Span{Range: days("2025-01-01", 365)}
	if i, msg := ParseInterval("", year); i != stats.Week || msg != "" {
		t.Errorf("no interval: %s %q", i, msg)
	}
	if i, msg := ParseInterval("month", year); i != stats.Month || msg != "" {
		t.Errorf("month: %s %q", i, msg)
	}
	if _, msg := ParseInterval("hour", year); msg != "hour is not allowed for 1 Jan 2025 – 31 Dec 2025 (365 days); it allows day, week, month" {
		t.Errorf("hour over a year: %q", msg)
	}
	if _, msg := ParseInterval("second", Span{Range: days("2025-01-01", 1)}); msg != "must be one of minute, hour, day, week, month" {
		t.Errorf("second: %q", msg)
	}
	if i := Next(stats.Month, Allowed(year)); i != stats.Daily {
		t.Errorf("after month: %s", i)
	}
	if m, msg := ParseMetric("bounce_rate", false); m.Name != "bounce_rate" || msg != "" {
		t.Errorf("bounce_rate: %s %q", m.Name, msg)
	}
	if m, msg := ParseMetric("", false); m.Name != "visitors" || msg != "" {
		t.Errorf("none: %s %q", m.Name, msg)
	}
	if _, msg := ParseMetric("<b>", true); msg != "must be one of visitors, visits, pageviews, views_per_visit, bounce_rate, visit_duration, events, conversion_rate (under a goal filter)" {
		t.Errorf("unknown: %q", msg)
	}
	if m, msg := ParseMetric("events", false); m.Name != "events" || msg != "" || !m.HourlyRows {
		t.Errorf("events: %s %q", m.Name, msg)
	}
	if m, msg := ParseMetric("conversion_rate", false); m.Name != "visitors" || msg != "conversion_rate is drawn under a goal filter only (filter[goal]=NAME)" {
		t.Errorf("conversion_rate without a goal: %s %q", m.Name, msg)
	}
	if m, msg := ParseMetric("conversion_rate", true); m.Name != "conversion_rate" || msg != "" || !m.Goal {
		t.Errorf("conversion_rate under a goal: %s %q", m.Name, msg)
	}
}

// A bucket's conversion rate divides its converted visitors by its base's, in tenths of a
// percent; a bucket whose base has no visitors has no rate (no point), not 0%.
func TestConversionRatePoints(t *testing.T) {
	m, _ := ParseMetric("conversion_rate", true)
	day := func(d string, visitors int64) repository.Bucket {
		start, _ := time.Parse(time.DateOnly, d)
		return repository.Bucket{Start: start, Totals: stats.Totals{Visitors: visitors}}
	}
	series := []repository.Bucket{day("2026-03-01", 1), day("2026-03-02", 0), day("2026-03-03", 2)}
	base := []repository.Bucket{day("2026-03-01", 3), day("2026-03-02", 0), day("2026-03-03", 8)}
	pts := Points(m, stats.Daily, series, base, time.UTC)
	if pts[0].Units != 333 || !pts[0].Defined || pts[1].Defined || pts[2].Units != 250 || m.Text(pts[0].Units) != "33.3%" {
		t.Errorf("points %+v", pts)
	}
	events, _ := ParseMetric("events", false)
	series[2].Totals.Events = 1204
	if pts := Points(events, stats.Daily, series, nil, time.UTC); pts[2].Units != 1204 || events.Text(pts[2].Units) != "1\u202f204" {
		t.Errorf("events %+v", pts)
	}
}

// The line breaks where a rate has nothing to divide (no 0 drawn), a lone point is a dot,
// and each point's title has its value and the compared one's with the change.
func TestDrawBreaksAndTitles(t *testing.T) {
	m, _ := ParseMetric("bounce_rate", false)
	pts := []Point{{Label: "d1", Units: 500, Defined: true}, {Label: "d2", Units: 250, Defined: true},
		{Label: "d3"}, {Label: "d4", Units: 1000, Defined: true}, {Label: "d5"}}
	cmp := []Point{{Label: "c1", Units: 250, Defined: true}, {Label: "c2"}, {Label: "c3", Units: 100, Defined: true},
		{Label: "c4", Units: 800, Defined: true}, {Label: "c5", Units: 1, Defined: true}}
	c := Draw(Shapes[0], m, pts, cmp)
	if strings.Count(c.Line, "M") != 2 || strings.Count(c.Line, "L") != 1 {
		t.Errorf("line %q: want a piece of two points and a lone one", c.Line)
	}
	if len(c.Dots) != 1 || len(c.Slots) != 5 {
		t.Errorf("%d dots (want 1), %d slots (want 5)", len(c.Dots), len(c.Slots))
	}
	if strings.Count(c.Compared, "M") != 2 {
		t.Errorf("compared line %q: want two pieces", c.Compared)
	}
	if got := c.Slots[0].Title; got != "d1: 50% bounce rate; compared with c1: 25% bounce rate (+100%)" {
		t.Errorf("title %q", got)
	}
	if got := c.Slots[2].Title; got != "d3: – bounce rate; compared with c3: 10% bounce rate (–)" || c.Slots[2].MarkY != "" {
		t.Errorf("title of a gap %q, mark %q", got, c.Slots[2].MarkY)
	}
	if c.Grid[4].Label != "100%" {
		t.Errorf("top of the scale %q", c.Grid[4].Label)
	}
	if len(Draw(Shapes[1], m, pts, nil).Slots) != 0 {
		t.Error("the compact chart has hover targets")
	}
	visits, _ := ParseMetric("visits", false)
	if got := title(visits, Point{Label: "d", Units: 1, Defined: true}, nil, 0); got != "d: 1 visit" {
		t.Errorf("one visit: %q", got)
	}
}
