package web

import (
	"reflect"
	"testing"
	"time"

	"github.com/analytics-service/analytics/stats"
)

func day(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

// What filtered numbers rest on: the first day with visit details when the range (or the
// range it is compared with) starts earlier, and the sample's fraction when under 1.
func TestFilterNotices(t *testing.T) {
	week := stats.Range{From: day("2026-03-14"), To: day("2026-03-20")}
	const starts = "With filters, numbers start on 16 Mar 2026: earlier days have no visit details."
	for _, c := range []struct {
		days     stats.Range
		before   string
		from     time.Time
		fraction float64
		want     []string
	}{
		{week, "the 7 days before", time.Time{}, 1, nil},
		{week, "the 7 days before", day("2026-03-16"), 1, []string{starts}},
		{week, "", day("2026-03-16"), 1, []string{starts}},
		{week, "the 7 days before", day("2026-03-10"), 1, []string{"With filters, the numbers of the 7 days before start on 10 Mar 2026: earlier days have no visit details."}},
		{week, "the 7 days before", day("2026-03-21"), 1, []string{"With filters, numbers start on 21 Mar 2026, after this range: none of its days has visit details."}},
		{stats.Range{From: day("2026-03-01"), To: day("2026-03-31")}, "", time.Time{}, 1, nil}, // exact: no notice, whatever the length
		{stats.Range{From: day("2026-03-14"), To: day("2026-03-20")}, "", time.Time{}, 0.2, []string{"Estimated from 20 % of visitors (views of more than 10 million pageviews are sampled)."}},
		{stats.Range{From: day("2020-01-01"), To: day("2026-03-20")}, "", day("2025-02-15"), 0.01, []string{
			"With filters, numbers start on 15 Feb 2025: earlier days have no visit details.",
			"Estimated from 1 % of visitors (views of more than 10 million pageviews are sampled).",
		}},
	} {
		if got := FilterNotices(c.days, c.before, c.from, c.fraction); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v, %q, %v:\n got %q\nwant %q", c.days, c.before, c.from, got, c.want)
		}
	}
}
