package stats_test

import (
	"testing"
	"time"

	"github.com/analytics-service/analytics/stats"
)

func date(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

// A day is the calendar date where the time is read, whatever its clock and zone.
func TestDay(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	for _, c := range []struct {
		t    time.Time
		want string
	}{
		{time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC), "2026-03-04"},
		{time.Date(2026, 3, 4, 23, 59, 59, 999, time.UTC), "2026-03-04"},
		{time.Date(2026, 3, 5, 1, 0, 0, 0, tokyo), "2026-03-05"}, // 2026-03-04 16:00 UTC
		{time.Date(2026, 3, 4, 20, 0, 0, 0, time.UTC).In(tokyo), "2026-03-05"},
	} {
		got := stats.Day(c.t)
		if !got.Equal(date(c.want)) || got.Location() != time.UTC {
			t.Errorf("Day(%v) = %v, want %s UTC", c.t, got, c.want)
		}
	}
}

func TestMonthAndWeekStart(t *testing.T) {
	for _, c := range []struct{ day, month, week string }{
		{"2026-11-02", "2026-11-01", "2026-11-02"}, // a Monday
		{"2026-11-08", "2026-11-01", "2026-11-02"}, // a Sunday
		{"2026-01-01", "2026-01-01", "2025-12-29"}, // a Thursday
		{"2024-02-29", "2024-02-01", "2024-02-26"},
	} {
		if got := stats.MonthStart(date(c.day)); !got.Equal(date(c.month)) {
			t.Errorf("MonthStart(%s) = %v, want %s", c.day, got, c.month)
		}
		if got := stats.WeekStart(date(c.day)); !got.Equal(date(c.week)) {
			t.Errorf("WeekStart(%s) = %v, want %s", c.day, got, c.week)
		}
	}
}

func TestRange(t *testing.T) {
	r := stats.Range{From: date("2026-02-25"), To: date("2026-03-03")}
	if r.Days() != 7 {
		t.Errorf("%v has %d days, want 7", r, r.Days())
	}
	if p := r.Previous(); !p.From.Equal(date("2026-02-18")) || !p.To.Equal(date("2026-02-24")) {
		t.Errorf("the range before %v is %v", r, p)
	}
	if q := r.Query().Encode(); q != "from=2026-02-25&to=2026-03-03" {
		t.Errorf("query %s", q)
	}
	if s := r.String(); s != "25 Feb 2026 – 3 Mar 2026" {
		t.Errorf("%q", s)
	}
	one := stats.Range{From: date("2026-03-03"), To: date("2026-03-03")}
	if one.Days() != 1 || one.String() != "3 Mar 2026" {
		t.Errorf("one day: %d, %q", one.Days(), one.String())
	}
}

func TestDayValue(t *testing.T) {
	if v := stats.DayValue(date("2026-03-04")); v != "2026-03-04" {
		t.Fatalf("%q", v)
	}
}
