package reports_test

import (
	"testing"
	"time"

	"github.com/analytics-service/analytics/reports"
)

func day(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

func TestPeriods(t *testing.T) {
	for _, c := range []struct {
		kind, date, from, to, prevFrom, prevTo string
	}{
		{reports.Month, "2026-11-01", "2026-10-01", "2026-10-31", "2026-09-01", "2026-09-30"},
		{reports.Month, "2026-11-30", "2026-10-01", "2026-10-31", "2026-09-01", "2026-09-30"},
		{reports.Month, "2026-01-15", "2025-12-01", "2025-12-31", "2025-11-01", "2025-11-30"},
		{reports.Month, "2024-03-01", "2024-02-01", "2024-02-29", "2024-01-01", "2024-01-31"},
		// Weeks start on Monday; 2026-11-02 is a Monday.
		{reports.Week, "2026-11-02", "2026-10-26", "2026-11-01", "2026-10-19", "2026-10-25"},
		{reports.Week, "2026-11-08", "2026-10-26", "2026-11-01", "2026-10-19", "2026-10-25"}, // Sunday
		{reports.Week, "2026-01-05", "2025-12-29", "2026-01-04", "2025-12-22", "2025-12-28"},
	} {
		p := reports.LastComplete(c.kind, day(c.date))
		prev := p.Prev()
		if got := [4]string{p.From.Format(time.DateOnly), p.To.Format(time.DateOnly), prev.From.Format(time.DateOnly), prev.To.Format(time.DateOnly)}; got != [4]string{c.from, c.to, c.prevFrom, c.prevTo} {
			t.Errorf("%s before %s: %v, want %s..%s and %s..%s", c.kind, c.date, got, c.from, c.to, c.prevFrom, c.prevTo)
		}
	}
}

// A period's reports are due at 06:00 in TZ on the day after it; before that, the period
// before is the latest due.
func TestDueAtSixInTheServiceTimeZone(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		kind string
		now  time.Time
		loc  *time.Location
		from string
	}{
		{reports.Month, time.Date(2026, 11, 1, 5, 59, 59, 0, time.UTC), time.UTC, "2026-09-01"},
		{reports.Month, time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC), time.UTC, "2026-10-01"},
		// 06:00 in Berlin (CET, UTC+1) is 05:00 UTC.
		{reports.Month, time.Date(2026, 11, 1, 4, 59, 0, 0, time.UTC), berlin, "2026-09-01"},
		{reports.Month, time.Date(2026, 11, 1, 5, 0, 0, 0, time.UTC), berlin, "2026-10-01"},
		// In Berlin it is already 1 November when it is still 31 October 23:30 UTC... at 00:30.
		{reports.Month, time.Date(2026, 10, 31, 23, 30, 0, 0, time.UTC), berlin, "2026-09-01"},
		{reports.Week, time.Date(2026, 11, 2, 5, 59, 0, 0, time.UTC), time.UTC, "2026-10-19"},
		{reports.Week, time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC), time.UTC, "2026-10-26"},
	} {
		p := reports.Due(c.kind, c.now, c.loc)
		if got := p.From.Format(time.DateOnly); got != c.from {
			t.Errorf("%s due at %s in %s: starts %s, want %s", c.kind, c.now, c.loc, got, c.from)
		}
	}
	p := reports.LastComplete(reports.Month, day("2026-11-05"))
	if due := p.DueAt(berlin); !due.Equal(time.Date(2026, 11, 1, 5, 0, 0, 0, time.UTC)) {
		t.Errorf("DueAt %s", due)
	}
	if end := p.End(berlin); !end.Equal(time.Date(2026, 10, 31, 23, 0, 0, 0, time.UTC)) {
		t.Errorf("End %s", end)
	}
	if id := reports.MessageID(7, p, "example.com"); id != "report-7-month-2026-10@example.com" {
		t.Errorf("MessageID %s", id)
	}
	w := reports.LastComplete(reports.Week, day("2026-11-02"))
	if id := reports.MessageID(7, w, "example.com"); id != "report-7-week-2026-10-26@example.com" {
		t.Errorf("MessageID %s", id)
	}
	if _, err := reports.ParseKind("year"); err == nil {
		t.Error("REPORT_PERIOD=year accepted")
	}
}
