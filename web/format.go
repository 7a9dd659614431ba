package web

import (
	"strconv"
	"strings"
)

// Change is a figure of a period and the same figure of the period before, as the stats
// pages and the e-mail reports both show it.
type Change struct {
	Now, Before int64
}

// Percent says the change in a few characters: "+12%", "−3%", "±0%", "new" (nothing before),
// "–" (nothing either time).
func (c Change) Percent() string {
	switch {
	case c.Now == 0 && c.Before == 0:
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
