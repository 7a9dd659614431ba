package repotest

import (
	"context"
	"fmt"
	mathrand "math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// VisitDay is one day of the counters behind the summary and the time series of section 8,
// as collection writes them (docs/visits.md): tests write it with WriteVisitDays and compute
// what the API must answer from these fields themselves.
type VisitDay struct {
	Day                                  time.Time
	Visitors, Visits, Pageviews, Bounces int64
	VisitSeconds, TimedVisits            int64
	Events                               map[string]int64 // event value -> hits
	// Hours are the hourly counters by hour of the day in TZ; Hourly false writes none (a
	// day before the changeover, or imported).
	Hourly bool
	Hours  [24]VisitHour
}

// VisitHour is one hour's counters.
type VisitHour struct {
	Visitors, Visits, Pageviews, Bounces, VisitSeconds int64
}

// Counts are the day's counters as the stats writer takes them; zeros are left out (the
// tables keep count > 0).
func (d VisitDay) Counts(websiteID int64) []repository.StatCount {
	var out []repository.StatCount
	add := func(name stats.Name, value string, n int64) {
		if n != 0 {
			out = append(out, repository.StatCount{WebsiteID: websiteID, Name: string(name), Date: d.Day, Value: value, Count: n})
		}
	}
	day := stats.DayValue(d.Day)
	add(stats.Visitor, day, d.Visitors)
	add(stats.Visit, day, d.Visits)
	add(stats.Pageview, day, d.Pageviews)
	add(stats.Bounce, day, d.Bounces)
	add(stats.VisitSeconds, day, d.VisitSeconds)
	add(stats.TimedVisit, day, d.TimedVisits)
	for value, n := range d.Events {
		add(stats.Event, value, n)
	}
	if d.Hourly {
		for h, c := range d.Hours {
			hour := stats.HourValue(h)
			add(stats.VisitorHour, hour, c.Visitors)
			add(stats.VisitHour, hour, c.Visits)
			add(stats.PageviewHour, hour, c.Pageviews)
			add(stats.BounceHour, hour, c.Bounces)
			add(stats.VisitSecondsHour, hour, c.VisitSeconds)
		}
	}
	return out
}

// WriteVisitDays writes the days through the stats writer the flush uses (AddVisitBatch), in
// batches.
func WriteVisitDays(tb testing.TB, repo *repository.Repository, websiteID int64, days []VisitDay) {
	tb.Helper()
	var batch []repository.StatCount
	for i, d := range days {
		batch = append(batch, d.Counts(websiteID)...)
		if len(batch) >= 20_000 || i == len(days)-1 {
			if _, err := repo.AddVisitBatch(context.Background(), repository.VisitBatch{ID: uuid.NewString(), Counts: batch}, 0); err != nil {
				tb.Fatal(err)
			}
			batch = batch[:0]
		}
	}
}

// RandomVisitDay is a collected day of about visits visits (consistent: hours sum to the
// day, bounces and durations of the timed visits), drawn from rng.
func RandomVisitDay(rng *mathrand.Rand, day time.Time, visits int) VisitDay {
	d := VisitDay{Day: day, Hourly: true, Events: map[string]int64{}}
	if visits <= 0 {
		return d
	}
	for h := range d.Hours {
		// More in the day than at night.
		weight := 1 + 3*max(0, 6-abs(h-14))
		n := int64(rng.IntN(2*visits*weight/133 + 2)) // the weights sum to 133
		c := VisitHour{Visits: n}
		if n > 0 {
			c.Visitors = n - int64(rng.IntN(int(n/4)+1))
			c.Bounces = int64(rng.IntN(int(n) + 1))
			c.Pageviews = c.Bounces + (n-c.Bounces)*int64(2+rng.IntN(3)) + int64(rng.IntN(3))
			c.VisitSeconds = (n - c.Bounces) * int64(20+rng.IntN(200))
		}
		d.Hours[h] = c
		d.Visits += c.Visits
		d.Pageviews += c.Pageviews
		d.Bounces += c.Bounces
		d.VisitSeconds += c.VisitSeconds
	}
	d.TimedVisits = d.Visits
	d.Visitors = d.Visits - int64(rng.IntN(int(d.Visits/5)+1))
	for i := range 3 {
		if n := int64(rng.IntN(visits/20 + 1)); n > 0 {
			d.Events[fmt.Sprintf("Event %d::", i)] = n
		}
	}
	return d
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// VisitSums are the counters of the fixture's days from..to summed, as the tests expect a
// range's numbers, computed apart from the code under test.
type VisitSums struct {
	Visitors, Visits, Pageviews, Events, Bounces, VisitSeconds, TimedVisits int64
}

// SumVisitDays sums the days of the fixture that lie from..to.
func SumVisitDays(days []VisitDay, from, to time.Time) VisitSums {
	var s VisitSums
	for _, d := range days {
		if d.Day.Before(from) || d.Day.After(to) {
			continue
		}
		s.Visitors += d.Visitors
		s.Visits += d.Visits
		s.Pageviews += d.Pageviews
		s.Bounces += d.Bounces
		s.VisitSeconds += d.VisitSeconds
		s.TimedVisits += d.TimedVisits
		for _, n := range d.Events {
			s.Events += n
		}
	}
	return s
}
