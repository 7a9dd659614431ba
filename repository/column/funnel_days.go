package column

import (
	"context"
	"fmt"
	"time"

	"github.com/analytics-service/analytics/repository/ttlcache"
)

// An unfiltered funnel's counts are kept by day: a visitor-day lies within its day, so a
// range's counts are the sum of its days', and a closed day's copy never changes. The mask
// tables need not be in the key: a range's tables are its goals matched with the range's
// pages, and a page of another day than this one matches none of this day's visits, so every
// range that holds the day counts it alike; the goals' definitions (FunnelPart.Goals) are.
// The service counts each new day of its websites' funnels once it has copied it
// (repository's CountColumnFunnels), so the first view of a dashboard reads only the sums.

// funnelDay names a day's counts of a funnel: the website, the funnel's goals, the day and
// the copy of the day they were read from (a day copied again is counted again).
type funnelDay struct {
	site  int64
	goals string
	day   time.Time
	copy  uint64
}

// funnelDayTTL is how long a day's counts are kept past their last count; funnelDaysKept how
// many at most (about 60 MB): two months of 2 funnels of 2,000 websites, or a year of 20 of 30.
const (
	funnelDayTTL   = 7 * 24 * time.Hour
	funnelDaysKept = 250_000
)

func newFunnelDays() *ttlcache.Cache[funnelDay, FunnelCounts] {
	return ttlcache.New[funnelDay](funnelDayTTL, funnelDaysKept, func(FunnelCounts) int { return 1 })
}

// ForgetFunnelDays empties the funnels' counts by day, which ForgetKept keeps (they are the
// days' copies' own): a benchmark of a funnel's first count calls it.
func (s *Store) ForgetFunnelDays() { s.funnelDays.Clear() }

// byDay tells whether the part's counts are kept by day: of every visit (a filter's kept
// visits are the filter's values matched over the range's, which the key would need), not
// sampled, of goals named whatever the range.
func (p FunnelPart) byDay() bool {
	return p.Goals != "" && len(p.Filters) == 0 && (p.Fraction <= 0 || p.Fraction >= 1)
}

// startFunnelDays sums the part's days' kept counts and reads the run of days from the first
// not kept to the last in one statement, beside the caller, counting each day apart.
func (s *Store) startFunnelDays(ctx context.Context, p FunnelPart) (wait func() (FunnelCounts, error)) {
	sum := FunnelCounts{Steps: make([]int64, p.Steps)}
	keys := s.funnelDayKeys(p)
	var first, last int = -1, -1
	kept := make([]FunnelCounts, len(keys))
	now := time.Now()
	for i, k := range keys {
		c, ok := s.funnelDays.Get(k, now)
		if ok && k.copy != 0 {
			kept[i] = c
			continue
		}
		if first < 0 {
			first = i
		}
		last = i
	}
	for i := range keys {
		if first < 0 || i < first || i > last {
			sum.add(kept[i])
		}
	}
	if first < 0 {
		return func() (FunnelCounts, error) { return sum, nil }
	}
	run := p
	run.From, run.To = keys[first].day, keys[last].day
	b := &partBuild{p: run.Part, s: s}
	sqlText, err := b.funnelStatement(ctx, run, true)
	if err != nil {
		return func() (FunnelCounts, error) { return FunnelCounts{}, err }
	}
	return runBeside(ctx, b, sqlText, func(sqlText string) (FunnelCounts, error) {
		byDay, err := s.readFunnel(ctx, sqlText, b.args, p.Steps)
		if err != nil {
			return FunnelCounts{}, fmt.Errorf("column store: funnel by day: %w", err)
		}
		sum.DaysRead = last - first + 1
		for _, k := range keys[first : last+1] {
			c, ok := byDay[k.day]
			if !ok {
				c = FunnelCounts{Steps: make([]int64, p.Steps)} // a day of no visits
			}
			if k.copy != 0 {
				s.funnelDays.Put(k, c.clone(), time.Now())
			}
			sum.add(c)
		}
		return sum, nil
	})
}

// funnelDayKeys are the part's days' keys, each with the copy the file holds now, copy 0 for
// a day it does not hold. They are taken before the read: counts read from a copy made since
// are kept under the copy before it, which no read asks for again.
func (s *Store) funnelDayKeys(p FunnelPart) []funnelDay {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var keys []funnelDay
	for day := dayOf(p.From); !day.After(dayOf(p.To)); day = day.AddDate(0, 0, 1) {
		keys = append(keys, funnelDay{site: p.WebsiteID, goals: p.Goals, day: day, copy: s.held[p.WebsiteID][day].copy})
	}
	return keys
}
