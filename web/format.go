package web

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/analytics-service/analytics/stats"
)

// Change is a figure of a period and the same figure of the period before, as the stats
// pages and the e-mail reports both show it.
type Change struct {
	Now, Before int64
	// Undefined: a rate or mean with nothing to divide on either side; no change to say.
	Undefined bool
}

// Percent says the change in a few characters: "+12%", "−3%", "±0%", "new" (nothing before),
// "–" (nothing either time).
func (c Change) Percent() string {
	switch {
	case c.Undefined, c.Now == 0 && c.Before == 0:
		return "–"
	case c.Before == 0:
		return "new"
	}
	pct := float64(c.Now-c.Before) * 100 / float64(c.Before)
	if pct < 0 {
		pct -= 0.5
	} else {
		pct += 0.5
	}
	switch r := int64(pct); {
	case r > 0:
		return "+" + strconv.FormatInt(r, 10) + "%"
	case r < 0:
		return "−" + strconv.FormatInt(-r, 10) + "%"
	}
	return "±0%"
}

// Trend is 1 for a rise, -1 for a fall, 0 otherwise, for the colour of the change.
func (c Change) Trend() int {
	switch {
	case c.Undefined:
		return 0
	case c.Now > c.Before:
		return 1
	case c.Now < c.Before:
		return -1
	}
	return 0
}

// GroupDigits writes n with sep between groups of three digits: 1,234,567 (e-mail) or
// 1 234 567 with a narrow no-break space (the pages).
func GroupDigits(n int64, sep string) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteString(sep)
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Decimal writes n hundredths (places 2) or tenths (places 1) with its decimals, trailing
// zeros dropped: 286 -> "2.86", 410 -> "41", 414 -> "41.4". In integers: no float can print
// 1.9899999999999998.
func Decimal(n int64, places int) string {
	unit := int64(1)
	for range places {
		unit *= 10
	}
	whole, frac := n/unit, n%unit
	if frac == 0 {
		return strconv.FormatInt(whole, 10)
	}
	digits := fmt.Sprintf("%0*d", places, frac)
	return strconv.FormatInt(whole, 10) + "." + strings.TrimRight(digits, "0")
}

// Duration writes seconds as "1 min 13 s", "45 s", "2 h 5 min".
func Duration(s int64) string {
	switch {
	case s < 60:
		return fmt.Sprintf("%d s", s)
	case s < 3600:
		if s%60 == 0 {
			return fmt.Sprintf("%d min", s/60)
		}
		return fmt.Sprintf("%d min %d s", s/60, s%60)
	}
	return fmt.Sprintf("%d h %d min", s/3600, s%3600/60)
}

// Figure is one number of a period, written as shown, with its change against the period
// before.
type Figure struct {
	Now, Before string
	Change      Change // in the number's own unit (tenths of a percent for the bounce rate)
	// Inverse: a rise is bad news (the bounce rate).
	Inverse bool
}

// Trend is the colour of the change: 1 good, -1 bad, 0 neither.
func (f Figure) Trend() int {
	if f.Inverse {
		return -f.Change.Trend()
	}
	return f.Change.Trend()
}

// Figures are the headline numbers of section 8 of a period against the period before, as the
// dashboard and the e-mail reports write them; sep groups the digits of counts.
type Figures struct {
	Visitors, Visits, Pageviews, ViewsPerVisit, BounceRate, VisitDuration, Events Figure
}

// NewFigures writes the numbers of now and before. A rate or mean with nothing to divide
// (no visits, no timed visits) is "–", never a 0 that reads as a measured value, and has no
// change.
func NewFigures(now, before stats.Totals, sep string) Figures {
	count := func(a, b int64) Figure {
		return Figure{Now: GroupDigits(a, sep), Before: GroupDigits(b, sep), Change: Change{Now: a, Before: b}}
	}
	ratio := func(r stats.Ratio, write func(stats.Totals) string) Figure {
		f := Figure{Now: write(now), Before: write(before), Change: Change{Now: r.Units(now), Before: r.Units(before)}}
		if !r.Defined(now) {
			f.Now = "–"
		}
		if !r.Defined(before) {
			f.Before = "–"
		}
		f.Change.Undefined = !r.Defined(now) || !r.Defined(before)
		return f
	}
	return Figures{
		Visitors:  count(now.Visitors, before.Visitors),
		Visits:    count(now.Visits, before.Visits),
		Pageviews: count(now.Pageviews, before.Pageviews),
		Events:    count(now.Events, before.Events),
		ViewsPerVisit: ratio(stats.ViewsPerVisitRatio, func(t stats.Totals) string {
			return Decimal(t.ViewsPerVisitHundredths(), 2)
		}),
		BounceRate: func() Figure {
			f := ratio(stats.BounceRateRatio, func(t stats.Totals) string { return Decimal(t.BounceRateTenths(), 1) + "%" })
			f.Inverse = true
			return f
		}(),
		VisitDuration: ratio(stats.VisitDurationRatio, func(t stats.Totals) string { return Duration(t.VisitDuration()) }),
	}
}

// Plural is the noun of a count: one for exactly 1, else many. The one rule of plural forms
// on the pages and in e-mail (Counted writes the count with it).
func Plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Counted writes a count with its noun: "1 visitor", "2 visitors", "1 234 visitors" (digits
// grouped with sep, as GroupDigits).
func Counted(n int64, sep, one, many string) string {
	return GroupDigits(n, sep) + " " + Plural(n, one, many)
}
