package ingest

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics of the collection pipeline. A nil *Metrics records nothing (tests of parts).
type Metrics struct {
	accepted      prometheus.Counter
	ignored       *prometheus.CounterVec
	rejected      *prometheus.CounterVec
	flushes       prometheus.Counter
	flushFailures prometheus.Counter
	flushRows     prometheus.Counter
	flushDuration prometheus.Histogram
	overCap       prometheus.Counter
	endedEarly    *prometheus.CounterVec
	rowsDropped   prometheus.Counter
	rowsOverDay   prometheus.Counter
	// rowCut counts what visit rows were not given past their bounds (stats.MaxRowHits...),
	// batchDropped the items of flushes PostgreSQL refused for their content.
	rowCut       *prometheus.CounterVec
	batchDropped *prometheus.CounterVec
	// Custom properties and revenue (docs/properties.md); no label carries a key or value.
	propsDropped   *prometheus.CounterVec
	propsRedacted  prometheus.Counter
	propsOverCap   prometheus.Counter
	revenueDropped prometheus.Counter
}

// NewMetrics registers the pipeline's metrics; the buffer size is read from counters when
// scraped.
func NewMetrics(reg prometheus.Registerer, counters *Counters) *Metrics {
	m := &Metrics{
		accepted: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "analytics_events_accepted_total", Help: "Events counted (answered 202)."}),
		ignored: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "analytics_events_ignored_total", Help: "Events answered 202 but deliberately not counted, by reason."}, []string{"reason"}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "analytics_events_rejected_total", Help: "Events refused, by HTTP status."}, []string{"status"}),
		flushes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "analytics_flushes_total", Help: "Successful writes of counters to the database."}),
		flushFailures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "analytics_flush_failures_total", Help: "Failed writes (retried with the same batch)."}),
		flushRows: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "analytics_flush_rows_total", Help: "Counter rows written."}),
		flushDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "analytics_flush_duration_seconds", Help: "Duration of successful flushes.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 14)}),
		overCap: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "analytics_values_over_cap_total",
			Help: "Counts added to (other) rather than to a new value, on a day whose statistic already had MAX_VALUES_PER_DAY values."}),
		endedEarly: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "analytics_visits_ended_early_total",
			Help: "Visits ended before VISIT_TIMEOUT, by reason: max_open (MAX_OPEN_VISITS reached: the least recent ended) or address_bound (one client address holds too many: a new one counted as a visit of one hit)."},
			[]string{"reason"}),
		rowsDropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "analytics_visit_rows_dropped_total",
			Help: "Writes of visits' rows for filters skipped: their day had no partition (the job \"keep visit row partitions\" makes them ahead), their website was deleted, or the write would have taken the row past the bounds of a row (docs/filters.md)."}),
		rowsOverDay: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "analytics_visit_rows_over_day_total",
			Help: "Writes of visits' rows for filters not written because their website's rows of that day had taken VISIT_ROW_BYTES_PER_DAY; the hits still counted in the daily counters."}),
		rowCut: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "analytics_visit_row_cut_total",
			Help: "What visits' rows for filters were not given past their bounds (docs/filters.md), by part: hit (a pageview's page or an event, which still counted in the daily counters), property (a property pair of a counted hit), engagement (a page's time on page and scroll depth, past the pages a visit keeps them for) or write (a write of a row that carried more than a row may hold, written without its hits: never expected)."},
			[]string{"part"}),
		batchDropped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "analytics_flush_items_dropped_total",
			Help: "Items of flushes not written because PostgreSQL refused them for their content (each found by splitting the batch that failed; the rest was written), by kind: counter, member, minute, recent or visit_row."},
			[]string{"kind"}),
		propsDropped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "analytics_properties_dropped_total",
			Help: "Custom properties of counted hits not kept, by reason: invalid (not an object, a value that is null, an array or an object, a key or value of the wrong length, a key repeated), per_hit (past 30 a hit) or per_visit (past 64 distinct pairs a visit)."},
			[]string{"reason"}),
		propsRedacted: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "analytics_properties_redacted_total",
			Help: "Custom property keys and values stored as (redacted): they held an e-mail address or a run of 9 or more digits."}),
		propsOverCap: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "analytics_properties_over_cap_total",
			Help: "Custom properties written as (other): a new key on a day whose website had 300 keys, or a new value of a key that had MAX_VALUES_PER_DAY values that day."}),
		revenueDropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "analytics_revenue_dropped_total",
			Help: "Revenues not kept (the hit still counted): not an amount greater than 0 with at most 15 digits before the point and 3 after and a currency of three capitals, or sent with a pageview."}),
	}
	for _, reason := range []string{reasonPropInvalid, reasonPropPerHit, reasonPropPerVisit} {
		m.propsDropped.WithLabelValues(reason)
	}
	for _, reason := range []string{reasonBot, reasonIP, reasonUnknownWebsite, reasonNoVisit, reasonBlockedCountry, reasonBlockedPage, reasonHostname} {
		m.ignored.WithLabelValues(reason)
	}
	for _, reason := range []string{reasonMaxOpen, reasonAddressBound} {
		m.endedEarly.WithLabelValues(reason)
	}
	for _, part := range []string{rowPartHit, rowPartProperty, rowPartEngagement, rowPartWrite} {
		m.rowCut.WithLabelValues(part)
	}
	for _, kind := range batchItemKinds {
		m.batchDropped.WithLabelValues(kind)
	}
	reg.MustRegister(m.accepted, m.ignored, m.rejected, m.flushes, m.flushFailures, m.flushRows, m.flushDuration, m.overCap, m.endedEarly, m.rowsDropped,
		m.rowsOverDay, m.rowCut, m.batchDropped,
		m.propsDropped, m.propsRedacted, m.propsOverCap, m.revenueDropped,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "analytics_buffer_keys", Help: "Distinct counters in memory, not yet written."},
			func() float64 { return float64(counters.Size()) }))
	return m
}

// The reasons of analytics_events_ignored_total. No label names a website or a domain.
const (
	reasonBot            = "bot"
	reasonIP             = "excluded_ip"
	reasonUnknownWebsite = "unknown_website" // no website has the page's host
	reasonNoVisit        = "no_open_visit"   // an engagement hit of a visitor with no open visit
	// The shields (shields.go): the visitor's country is blocked, the page is, or its host is
	// not an allowed hostname.
	reasonBlockedCountry = "blocked_country"
	reasonBlockedPage    = "blocked_page"
	reasonHostname       = "hostname_not_allowed"
)

// The reasons of analytics_visits_ended_early_total.
const (
	reasonMaxOpen      = "max_open"
	reasonAddressBound = "address_bound"
)

func (m *Metrics) endEarly(reason string) {
	if m != nil {
		m.endedEarly.WithLabelValues(reason).Inc()
	}
}

// The parts of analytics_visit_row_cut_total.
const (
	rowPartHit        = "hit"
	rowPartProperty   = "property"
	rowPartEngagement = "engagement"
	rowPartWrite      = "write"
)

func (m *Metrics) cutRow(part string, n int) {
	if m != nil && n > 0 {
		m.rowCut.WithLabelValues(part).Add(float64(n))
	}
}

func (m *Metrics) dropBatchItem(kind string) {
	if m != nil {
		m.batchDropped.WithLabelValues(kind).Inc()
	}
}

// The reasons of analytics_properties_dropped_total.
const (
	reasonPropInvalid  = "invalid"
	reasonPropPerHit   = "per_hit"
	reasonPropPerVisit = "per_visit"
)

func (m *Metrics) dropProps(reason string, n int) {
	if m != nil && n > 0 {
		m.propsDropped.WithLabelValues(reason).Add(float64(n))
	}
}

func (m *Metrics) redactProp() {
	if m != nil {
		m.propsRedacted.Inc()
	}
}

func (m *Metrics) dropRevenue() {
	if m != nil {
		m.revenueDropped.Inc()
	}
}

func (m *Metrics) propsOverLimit(n int64) {
	if m != nil && n > 0 {
		m.propsOverCap.Add(float64(n))
	}
}

func (m *Metrics) rowsPastTheirDay(n int) {
	if m != nil && n > 0 {
		m.rowsOverDay.Add(float64(n))
	}
}

func (m *Metrics) dropRows(n int) {
	if m != nil && n > 0 {
		m.rowsDropped.Add(float64(n))
	}
}

func (m *Metrics) accept() {
	if m != nil {
		m.accepted.Inc()
	}
}

func (m *Metrics) ignore(reason string) {
	if m != nil {
		m.ignored.WithLabelValues(reason).Inc()
	}
}

func (m *Metrics) reject(status string) {
	if m != nil {
		m.rejected.WithLabelValues(status).Inc()
	}
}

// observeFlush records a write of rows counters that took d, overflow of whose counts went to
// (other).
func (m *Metrics) observeFlush(rows int, d time.Duration, overflow int64, err error) {
	if m == nil {
		return
	}
	if err != nil {
		m.flushFailures.Inc()
		return
	}
	m.flushes.Inc()
	m.flushRows.Add(float64(rows))
	m.flushDuration.Observe(d.Seconds())
	m.overCap.Add(float64(overflow))
}
