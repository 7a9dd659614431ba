package stats

// Totals are the counters behind the headline numbers of a range or of one bucket of a time
// series (docs/visits.md): sums of visitor, visit, pageview, event,
// bounce, visit_seconds and timed_visit (or their _hour counterparts). The derived numbers are
// computed here and nowhere else, so the API, the pages and the reports agree to the last
// decimal.
type Totals struct {
	Visitors     int64
	Visits       int64
	Pageviews    int64
	Events       int64
	Bounces      int64 // bounced visits among the timed ones
	VisitSeconds int64 // summed durations of the timed visits
	// TimedVisits are the visits whose bounce and duration are known: the denominator of the
	// bounce rate and of the mean duration. Days before the changeover and days imported
	// from phpAnalytics have visits but none of these.
	TimedVisits int64
}

// Add sums two totals (a month's days, a range's buckets).
func (t Totals) Add(o Totals) Totals {
	return Totals{
		Visitors: t.Visitors + o.Visitors, Visits: t.Visits + o.Visits, Pageviews: t.Pageviews + o.Pageviews,
		Events: t.Events + o.Events, Bounces: t.Bounces + o.Bounces, VisitSeconds: t.VisitSeconds + o.VisitSeconds,
		TimedVisits: t.TimedVisits + o.TimedVisits,
	}
}

// BounceRateTenths is the bounce rate in tenths of a percent (414 is 41.4%), rounded half
// away from zero; 0 without timed visits. In integers, so no float rounding can move a
// digit.
func (t Totals) BounceRateTenths() int64 { return roundedRatio(1000*t.Bounces, t.TimedVisits) }

// BounceRate is the percentage of timed visits that bounced, one decimal.
func (t Totals) BounceRate() float64 { return float64(t.BounceRateTenths()) / 10 }

// VisitDuration is the mean duration of the timed visits in whole seconds, rounded half up.
func (t Totals) VisitDuration() int64 { return roundedRatio(t.VisitSeconds, t.TimedVisits) }

// ViewsPerVisitHundredths is pageviews per visit in hundredths (286 is 2.86); 0 without visits.
func (t Totals) ViewsPerVisitHundredths() int64 { return roundedRatio(100*t.Pageviews, t.Visits) }

// ViewsPerVisit is pageviews per visit, two decimals.
func (t Totals) ViewsPerVisit() float64 { return float64(t.ViewsPerVisitHundredths()) / 100 }

// roundedRatio is n/d rounded half away from zero for n >= 0, and 0 when d is 0.
func roundedRatio(n, d int64) int64 {
	if d <= 0 || n <= 0 {
		return 0
	}
	return (2*n + d) / (2 * d)
}
