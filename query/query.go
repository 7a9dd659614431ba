// Package query parses and checks a query of the query API (POST /api/v2/query, Plausible's
// Stats API v2 body) once, into a Query that the repository compiles to SQL over the visit
// rows. Every refusal is an *Invalid: a 400 whose sentence names what was wrong.
package query

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The limits of one query, each refused with a 400 that names it.
const (
	MaxDimensions    = 3     // besides one time dimension
	MaxNesting       = 3     // and/or/not inside each other
	MaxPatternLength = 255   // characters of a filter value or pattern
	MaxLimit         = 10000 // pagination.limit, also its default
	MaxFilterValues  = 1000  // values of one filter
	// and what the filters and the time dimension may cost together: bounds.go
)

// Invalid is a query that cannot run: the 400's sentence.
type Invalid struct{ Message string }

func (e *Invalid) Error() string { return e.Message }

func invalidf(format string, args ...any) error {
	return &Invalid{Message: fmt.Sprintf(format, args...)}
}

// quote writes a name given by the client into a message, bounded.
func quote(s string) string {
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return fmt.Sprintf("%q", s)
}

// Metric is one of the metrics the query asks for.
type Metric string

const (
	Visitors      Metric = "visitors"
	Visits        Metric = "visits"
	Pageviews     Metric = "pageviews"
	ViewsPerVisit Metric = "views_per_visit"
	BounceRate    Metric = "bounce_rate"
	VisitDuration Metric = "visit_duration"
	Events        Metric = "events"
	Percentage    Metric = "percentage"
	// ConversionRate: the converting visitors of a row over the visitors of the whole query
	// without its event:goal filters; GroupConversionRate: over those of the row's own
	// dimensions (event:goal aside) without them.
	ConversionRate      Metric = "conversion_rate"
	GroupConversionRate Metric = "group_conversion_rate"
	// TimeOnPage and ScrollDepth are the mean engaged seconds and deepest scroll of the visits
	// that sent engagement for the pages of an event:page dimension or filter.
	TimeOnPage  Metric = "time_on_page"
	ScrollDepth Metric = "scroll_depth"
	// TotalRevenue and AverageRevenue are the revenue of the revenue goals' events (event goals
	// with a currency) in the goals' currency: its sum, and that sum over the events.
	TotalRevenue   Metric = "total_revenue"
	AverageRevenue Metric = "average_revenue"
)

// The parts of the totals that no metric of the query API is: v1's summary and series ask the
// engine for every part and divide them after. They are not in metrics, so never parsed from
// a body.
const (
	CustomEvents Metric = "custom_events"
	Bounces      Metric = "bounces"
	VisitSeconds Metric = "visit_seconds"
)

var metrics = []Metric{Visitors, Visits, Pageviews, ViewsPerVisit, BounceRate, VisitDuration, Events, Percentage,
	ConversionRate, GroupConversionRate, TimeOnPage, ScrollDepth, TotalRevenue, AverageRevenue}

// IsRevenue tells whether m is a revenue metric, answered as an amount and its currency.
func (m Metric) IsRevenue() bool { return m == TotalRevenue || m == AverageRevenue }

// visitOnly are the metrics of whole visits, which a hit dimension other than event:page
// cannot split (as Plausible refuses them).
var visitOnly = []Metric{ViewsPerVisit, BounceRate, VisitDuration}

// Order is one key of order_by: a metric's index or a dimension's.
type Order struct {
	Metric    int // index in Metrics, or -1
	Dimension int // index in Dimensions, or -1
	Desc      bool
}

// Include are the query's include flags.
type Include struct {
	TotalRows  bool `json:"total_rows"`
	TimeLabels bool `json:"time_labels"`
	Imports    bool `json:"imports"`
}

// Query is a checked query.
type Query struct {
	SiteID     string
	Metrics    []Metric
	Range      Range
	Dimensions []Field
	Filters    []Filter // all must hold
	OrderBy    []Order
	Include    Include
	Limit      int
	Offset     int
	// raw are the parts echoed in the answer's `query` as given.
	raw rawQuery
}

type rawQuery struct {
	SiteID     string            `json:"site_id"`
	Metrics    []string          `json:"metrics"`
	DateRange  json.RawMessage   `json:"date_range"`
	Dimensions []string          `json:"dimensions"`
	Filters    []json.RawMessage `json:"filters"`
	OrderBy    []json.RawMessage `json:"order_by"`
	Include    *Include          `json:"include"`
	Pagination *struct {
		Limit  *int `json:"limit"`
		Offset *int `json:"offset"`
	} `json:"pagination"`
}

// Env is what a query is resolved against: the clock, the website's time zone and its first
// day (for "all").
type Env struct {
	Now      time.Time
	Location *time.Location
	Start    time.Time // the website's first day
	// Segment finds the website's segments that the caller sees (["is", "segment", [ID]]);
	// nil: none.
	Segment SegmentLookup
}

// Parse reads and checks a query body.
func Parse(body []byte, env Env) (*Query, error) {
	var raw rawQuery
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, invalidf("The body is not a query: %s", jsonProblem(err))
	}
	q := &Query{SiteID: raw.SiteID, raw: raw, Limit: MaxLimit}
	if err := CheckSiteID(raw.SiteID); err != nil {
		return nil, err
	}
	var err error
	if q.Metrics, err = parseMetrics(raw.Metrics); err != nil {
		return nil, err
	}
	if len(raw.DateRange) == 0 || string(raw.DateRange) == "null" {
		return nil, invalidf("date_range is required")
	}
	if q.Range, err = parseRange(raw.DateRange, env); err != nil {
		return nil, err
	}
	if q.Dimensions, err = parseDimensions(raw.Dimensions); err != nil {
		return nil, err
	}
	parser := filterParser{segment: env.Segment}
	if parser.segment == nil {
		parser.segment = noSegments
	}
	for _, f := range raw.Filters {
		filter, err := parser.parseFilter(f, 0)
		if err != nil {
			return nil, err
		}
		q.Filters = append(q.Filters, spliced(f, filter)...)
	}
	if err := checkCost(q.Filters); err != nil {
		return nil, err
	}
	if err := q.checkBuckets(); err != nil {
		return nil, err
	}
	if q.OrderBy, err = q.parseOrder(raw.OrderBy); err != nil {
		return nil, err
	}
	if len(q.OrderBy) == 0 {
		q.OrderBy = q.defaultOrder()
	}
	if raw.Include != nil {
		q.Include = *raw.Include
	}
	if p := raw.Pagination; p != nil {
		if p.Limit != nil {
			if *p.Limit < 1 || *p.Limit > MaxLimit {
				return nil, invalidf("pagination.limit must be from 1 to %d (the limit of one answer)", MaxLimit)
			}
			q.Limit = *p.Limit
		}
		if p.Offset != nil {
			if *p.Offset < 0 {
				return nil, invalidf("pagination.offset must be 0 or more")
			}
			q.Offset = *p.Offset
		}
	}
	if err := q.checkCombinations(); err != nil {
		return nil, err
	}
	return q, nil
}

func jsonProblem(err error) string {
	var typeErr *json.UnmarshalTypeError
	if e, ok := err.(*json.UnmarshalTypeError); ok {
		typeErr = e
		return fmt.Sprintf("%s must not be a JSON %s", typeErr.Field, typeErr.Value)
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	return msg
}

func parseMetrics(names []string) ([]Metric, error) {
	if len(names) == 0 {
		return nil, invalidf("metrics must name at least one metric")
	}
	var out []Metric
	for _, n := range names {
		m := Metric(n)
		switch {
		case slices.Contains(out, m):
			return nil, invalidf("metrics must be unique: %s is given twice", quote(n))
		case !slices.Contains(metrics, m):
			return nil, invalidf("Unknown metric %s", quote(n))
		}
		out = append(out, m)
	}
	return out, nil
}

func parseDimensions(names []string) ([]Field, error) {
	var out []Field
	var times, others int
	for _, n := range names {
		f, err := lookupField(n)
		if err != nil {
			return nil, &Invalid{Message: "Invalid dimensions: " + err.Error()}
		}
		if slices.ContainsFunc(out, func(x Field) bool { return x.Name == n }) {
			return nil, invalidf("dimensions must be unique: %s is given twice", quote(n))
		}
		if f.Level == TimeLevel {
			times++
		} else {
			others++
		}
		out = append(out, f)
	}
	if times > 1 {
		return nil, invalidf("dimensions may hold one time dimension only")
	}
	if others > MaxDimensions {
		return nil, invalidf("dimensions: at most %d dimensions besides time (the limit of one query)", MaxDimensions)
	}
	var events []string
	for _, f := range out {
		if f.Level == PageLevel || f.Level == NameLevel || f.Level == GoalLevel || f.Level == PropLevel {
			events = append(events, f.Name)
		}
	}
	if len(events) > 1 {
		// Each splits a visit into its hits; two would pair every hit of one with every hit of
		// the other.
		return nil, invalidf("dimensions %s cannot be combined here", strings.Join(events, " and "))
	}
	return out, nil
}

// parseOrder reads order_by: each key a metric or dimension of the query, asc or desc.
func (q *Query) parseOrder(raw []json.RawMessage) ([]Order, error) {
	var out []Order
	for _, r := range raw {
		var pair []string
		if err := json.Unmarshal(r, &pair); err != nil || len(pair) != 2 {
			return nil, invalidf(`order_by: each entry must be [metric or dimension, "asc" or "desc"]`)
		}
		o := Order{Metric: slices.Index(q.Metrics, Metric(pair[0])),
			Dimension: slices.IndexFunc(q.Dimensions, func(f Field) bool { return f.Name == pair[0] })}
		if o.Metric < 0 && o.Dimension < 0 {
			return nil, invalidf("order_by: %s is not one of the query's metrics or dimensions", quote(pair[0]))
		}
		switch pair[1] {
		case "asc":
		case "desc":
			o.Desc = true
		default:
			return nil, invalidf("order_by: the direction of %s must be \"asc\" or \"desc\"", quote(pair[0]))
		}
		out = append(out, o)
	}
	return out, nil
}

// defaultOrder is time ascending, then the first metric descending.
func (q *Query) defaultOrder() []Order {
	var out []Order
	if i := q.TimeIndex(); i >= 0 {
		out = append(out, Order{Metric: -1, Dimension: i})
	}
	return append(out, Order{Metric: 0, Dimension: -1, Desc: true})
}

// checkCombinations refuses what Plausible refuses: the metrics of whole visits with a hit
// dimension other than event:page, and the conversion rates without a goal to convert on.
func (q *Query) checkCombinations() error {
	for _, m := range []Metric{ConversionRate, GroupConversionRate} {
		if slices.Contains(q.Metrics, m) && !q.HasGoalFilter() && !q.HasGoalDimension() {
			return invalidf("Metric %s needs an event:goal filter (at the top level of filters) or the event:goal dimension", quote(string(m)))
		}
	}
	if err := q.checkEngagement(); err != nil {
		return err
	}
	if err := q.checkRevenue(); err != nil {
		return err
	}
	for _, f := range q.Dimensions {
		if f.Level == PropLevel && slices.Contains(q.Metrics, Pageviews) {
			// A visit row keeps its hits' properties, not which hit (pageview or event) had them.
			return invalidf("Metric \"pageviews\" cannot be queried with the dimension %s (use events)", f.Name)
		}
		if f.Level != NameLevel && f.Level != GoalLevel && f.Level != PropLevel {
			continue
		}
		for _, m := range q.Metrics {
			if slices.Contains(visitOnly, m) {
				return invalidf("Metric %s cannot be queried with the dimension %s", quote(string(m)), f.Name)
			}
		}
	}
	return nil
}

// checkEngagement refuses time_on_page and scroll_depth where Plausible does: they are a
// page's, so they need the event:page dimension or an event:page filter at the top level, and
// no other hit dimension.
func (q *Query) checkEngagement() error {
	for _, m := range []Metric{TimeOnPage, ScrollDepth} {
		if !slices.Contains(q.Metrics, m) {
			continue
		}
		pageDimension := slices.ContainsFunc(q.Dimensions, func(f Field) bool { return f.Level == PageLevel })
		pageFilter := slices.ContainsFunc(q.Filters, func(f Filter) bool { return f.Field.Level == PageLevel && len(f.Children) == 0 })
		if !pageDimension && !pageFilter {
			return invalidf("Metric %s needs the event:page dimension or an event:page filter (at the top level of filters)", quote(string(m)))
		}
		for _, f := range q.Dimensions {
			if f.Level == NameLevel || f.Level == GoalLevel || f.Level == PropLevel {
				return invalidf("Metric %s cannot be queried with the dimension %s", quote(string(m)), f.Name)
			}
		}
	}
	return nil
}

// checkRevenue refuses the revenue metrics with the event:page and event:props dimensions: a
// visit row keeps the revenue of its events by name, not the page an event was sent from nor
// which properties it carried.
func (q *Query) checkRevenue() error {
	for _, m := range q.Metrics {
		if !m.IsRevenue() {
			continue
		}
		for _, f := range q.Dimensions {
			if f.Level == PageLevel || f.Level == PropLevel {
				return invalidf("Metric %s cannot be queried with the dimension %s", quote(string(m)), f.Name)
			}
		}
	}
	return nil
}

// HasRevenue tells whether the query asks for a revenue metric.
func (q *Query) HasRevenue() bool {
	return slices.ContainsFunc(q.Metrics, Metric.IsRevenue)
}

// HasGoalFilter tells whether one of the filters that must all hold is on event:goal.
func (q *Query) HasGoalFilter() bool {
	return slices.ContainsFunc(q.Filters, Filter.IsGoal)
}

// HasGoalDimension tells whether event:goal is one of the dimensions.
func (q *Query) HasGoalDimension() bool {
	return slices.ContainsFunc(q.Dimensions, func(f Field) bool { return f.Level == GoalLevel })
}

// TimeIndex is the index of the time dimension, -1 without one.
func (q *Query) TimeIndex() int {
	return slices.IndexFunc(q.Dimensions, func(f Field) bool { return f.Level == TimeLevel })
}

// TimeUnit is the bucket of the time dimension: "time" picks hours for a range of one day,
// days for up to 90 days, months past that.
func (q *Query) TimeUnit() TimeUnit {
	i := q.TimeIndex()
	if i < 0 {
		return NoTime
	}
	u := q.Dimensions[i].Time
	if u != AutoTime {
		return u
	}
	switch days := q.Range.Days().Days(); {
	case days <= 1:
		return Hour
	case days <= 90:
		return DayUnit
	default:
		return Month
	}
}

// Echo is the query as it ran, for the answer's `query`: the range resolved, the defaults
// filled in.
func (q *Query) Echo() map[string]any {
	dims := q.raw.Dimensions
	if dims == nil {
		dims = []string{}
	}
	filters := []any{}
	for _, f := range q.raw.Filters {
		filters = append(filters, f)
	}
	order := []any{}
	for _, o := range q.OrderBy {
		key, dir := "", "asc"
		if o.Metric >= 0 {
			key = string(q.Metrics[o.Metric])
		} else {
			key = q.Dimensions[o.Dimension].Name
		}
		if o.Desc {
			dir = "desc"
		}
		order = append(order, []string{key, dir})
	}
	return map[string]any{
		"site_id":    q.SiteID,
		"metrics":    q.raw.Metrics,
		"date_range": q.Range.Labels(),
		"dimensions": dims,
		"filters":    filters,
		"order_by":   order,
		"include":    q.Include,
		"pagination": map[string]int{"limit": q.Limit, "offset": q.Offset},
	}
}
