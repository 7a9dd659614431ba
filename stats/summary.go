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

// Part is one of the summed numbers of Totals: every metric is made of parts, summed over the
// days and the stores of a range before any ratio is taken (a ratio of sums, never a sum or
// mean of ratios).
type Part uint8

const (
	VisitorsPart Part = iota
	VisitsPart
	PageviewsPart
	EventsPart
	BouncesPart
	VisitSecondsPart
	TimedVisitsPart
)

// Part is the sum of part p.
func (t Totals) Part(p Part) int64 {
	return [...]int64{t.Visitors, t.Visits, t.Pageviews, t.Events, t.Bounces, t.VisitSeconds, t.TimedVisits}[p]
}

// Ratio is a metric that divides one part by another, declared once for every store and
// every answer (the API, the pages, the reports, the query API's SQL): Scale times Num over
// Den, rounded half away from zero to Decimals; nothing to divide (Den 0) is undefined, which
// the numbers answer as 0.
type Ratio struct {
	Num, Den Part
	Scale    int64
	Decimals int
}

// The ratios of the summary. Bounces and durations are known for the timed visits only (days
// imported or counted before durations were kept have visits but none of these), so they
// divide by those; every visit row is timed.
var (
	BounceRateRatio    = Ratio{Num: BouncesPart, Den: TimedVisitsPart, Scale: 100, Decimals: 1}
	VisitDurationRatio = Ratio{Num: VisitSecondsPart, Den: TimedVisitsPart, Scale: 1}
	ViewsPerVisitRatio = Ratio{Num: PageviewsPart, Den: VisitsPart, Scale: 1, Decimals: 2}
)

// Units is the ratio of t in units of its last decimal (414 is 41.4 for one decimal). In
// integers, so no float rounding can move a digit.
func (r Ratio) Units(t Totals) int64 {
	return roundedRatio(r.Scale*pow10(r.Decimals)*t.Part(r.Num), t.Part(r.Den))
}

// Of is the ratio of t, rounded to its decimals.
func (r Ratio) Of(t Totals) float64 { return float64(r.Units(t)) / float64(pow10(r.Decimals)) }

// Defined tells whether t has something to divide: the pages show a dash where it has not.
func (r Ratio) Defined(t Totals) bool { return t.Part(r.Den) > 0 }

func pow10(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

// BounceRateTenths is the bounce rate in tenths of a percent (414 is 41.4%).
func (t Totals) BounceRateTenths() int64 { return BounceRateRatio.Units(t) }

// BounceRate is the percentage of timed visits that bounced, one decimal.
func (t Totals) BounceRate() float64 { return BounceRateRatio.Of(t) }

// VisitDuration is the mean duration of the timed visits in whole seconds.
func (t Totals) VisitDuration() int64 { return VisitDurationRatio.Units(t) }

// ViewsPerVisitHundredths is pageviews per visit in hundredths (286 is 2.86).
func (t Totals) ViewsPerVisitHundredths() int64 { return ViewsPerVisitRatio.Units(t) }

// ViewsPerVisit is pageviews per visit, two decimals.
func (t Totals) ViewsPerVisit() float64 { return ViewsPerVisitRatio.Of(t) }

// roundedRatio is n/d rounded half away from zero for n >= 0, and 0 when d is 0.
func roundedRatio(n, d int64) int64 {
	if d <= 0 || n <= 0 {
		return 0
	}
	return (2*n + d) / (2 * d)
}
