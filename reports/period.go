// Package reports sends each owner a periodic e-mail with the numbers of their websites whose
// `email` is 1: it builds them from the repository, renders a text and an HTML part, sends them
// over SMTP and claims each (owner, period) in PostgreSQL, so one message goes out however many
// nodes run. It also serves the messages' one-click unsubscribe page.
package reports

import (
	"fmt"
	"time"

	"github.com/analytics-service/analytics/stats"
)

// Kinds of period (REPORT_PERIOD).
const (
	Month = "month"
	Week  = "week"
)

// SendHour is the hour of the first day after a period, in the service's time zone, from
// which its reports go out: late enough that the last day's counters are flushed everywhere,
// early enough to be read that morning.
const SendHour = 6

// A period has ended in some zone from its end in firstZone on, and in every zone from its
// end in lastZone on (stats.FirstZone, stats.LastZone).
var (
	firstZone = stats.FirstZone
	lastZone  = stats.LastZone
)

// Period is a calendar month or a week starting Monday, as calendar days (From and To are
// stats.Day values of the first and last day).
type Period struct {
	Kind     string
	From, To time.Time
}

// Range is the period's days.
func (p Period) Range() stats.Range { return stats.Range{From: p.From, To: p.To} }

// ParseKind checks a REPORT_PERIOD or --period value.
func ParseKind(s string) (string, error) {
	if s != Month && s != Week {
		return "", fmt.Errorf("%q is not a report period: use month or week", s)
	}
	return s, nil
}

// periodOf returns the period of a kind that contains a calendar day.
func periodOf(kind string, day time.Time) Period {
	if kind == Week {
		from := stats.WeekStart(day)
		return Period{Kind: Week, From: from, To: from.AddDate(0, 0, 6)}
	}
	from := stats.MonthStart(day)
	return Period{Kind: Month, From: from, To: from.AddDate(0, 1, -1)}
}

// LastComplete returns the last period of a kind that ends before a calendar day.
func LastComplete(kind string, day time.Time) Period {
	return periodOf(kind, day).Prev()
}

// Due returns the latest period whose reports are due at now: the last one that ended, once
// SendHour of the day after it has come in loc.
func Due(kind string, now time.Time, loc *time.Location) Period {
	local := now.In(loc)
	p := LastComplete(kind, local)
	if local.Before(p.DueAt(loc)) {
		return p.Prev()
	}
	return p
}

// Prev is the period of the same kind just before.
func (p Period) Prev() Period {
	return periodOf(p.Kind, p.From.AddDate(0, 0, -1))
}

// End is the instant the period ends in loc: midnight after its last day.
func (p Period) End(loc *time.Location) time.Time {
	d := p.To.AddDate(0, 0, 1)
	return time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, loc)
}

// DueAt is when the period's reports go out: SendHour of the day after it, in loc, read on
// the clock (on a day whose clocks change at night, six hours after midnight is not 06:00).
func (p Period) DueAt(loc *time.Location) time.Time {
	d := p.To.AddDate(0, 0, 1)
	return time.Date(d.Year(), d.Month(), d.Day(), SendHour, 0, 0, 0, loc)
}

// Name says the period in words: "October 2026", "the week of 26 October 2026".
func (p Period) Name() string {
	if p.Kind == Week {
		return "the week of " + p.From.Format("2 January 2006")
	}
	return p.From.Format("January 2006")
}

// Span is the period's first and last day in words: "1 – 31 October 2026".
func (p Period) Span() string {
	switch {
	case p.From.Year() != p.To.Year():
		return p.From.Format("2 January 2006") + " – " + p.To.Format("2 January 2006")
	case p.From.Month() != p.To.Month():
		return p.From.Format("2 January") + " – " + p.To.Format("2 January 2006")
	}
	return p.From.Format("2") + " – " + p.To.Format("2 January 2006")
}

// key is the period in a Message-ID: "month-2026-10", "week-2026-10-26".
func (p Period) key() string {
	if p.Kind == Week {
		return "week-" + p.From.Format(time.DateOnly)
	}
	return "month-" + p.From.Format("2006-01")
}
