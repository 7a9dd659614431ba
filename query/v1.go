package query

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/analytics-service/analytics/stats"
)

// Plausible's Stats API v1 (GET /api/v1/stats/aggregate, timeseries, breakdown) is answered by
// translating its parameters into a query of this package (the body of POST /api/v2/query)
// and running that: one engine, the same numbers. This file is the translation and the v1
// checks, worded as Plausible words them (docs/plausible-v1.md).

// V1Kind is which v1 endpoint asks.
type V1Kind int

const (
	V1Aggregate V1Kind = iota
	V1Timeseries
	V1Breakdown
)

// V1Params are the v1 query parameters as sent; nil is absent.
type V1Params struct {
	Period, Date, Metrics, Filters, Compare, Interval, Property, Limit, Page, WithImported *string
}

// V1Query is a v1 request translated: the query body to run, and what the answer needs.
type V1Query struct {
	Body        map[string]any // a query body: Parse it with the website's Env
	Metrics     []string       // the v1 metric names, in the order asked
	Key         string         // breakdown: the key of the property's value in each row
	Compare     bool           // aggregate: also the previous period
	Interval    TimeUnit       // timeseries: Hour, DayUnit or Month
	From, To    time.Time      // the period's days
	WithImports bool
}

// PreviousBody is the same query over the days just before the period, as many as it has.
func (v *V1Query) PreviousBody() map[string]any {
	n := int(v.To.Sub(v.From).Hours()/24) + 1
	out := make(map[string]any, len(v.Body))
	for k, x := range v.Body {
		out[k] = x
	}
	out["date_range"] = []string{v.From.AddDate(0, 0, -n).Format(time.DateOnly), v.From.AddDate(0, 0, -1).Format(time.DateOnly)}
	return out
}

const v1Docs = "https://plausible.io/docs/stats-api"

var v1Periods = []string{"day", "7d", "30d", "month", "6mo", "12mo", "custom"}

// v1Properties are the properties v1 takes for breakdowns and filters (Plausible's list);
// event:props:<key> besides. Those this service keeps no value of are refused by the engine.
var v1Properties = []string{"event:page", "event:name", "event:goal", "event:hostname",
	"visit:source", "visit:channel", "visit:country", "visit:region", "visit:city", "visit:entry_page",
	"visit:exit_page", "visit:referrer", "visit:utm_medium", "visit:utm_source", "visit:utm_campaign",
	"visit:utm_content", "visit:utm_term", "visit:device", "visit:os", "visit:os_version",
	"visit:browser", "visit:browser_version"}

func v1Property(p string) bool {
	if key, ok := strings.CutPrefix(p, propsPrefix); ok {
		return key != ""
	}
	return slices.Contains(v1Properties, p)
}

// eventOnly are the properties of events, which no visit metric can be split or filtered by.
func eventOnly(p string) bool {
	return p == "event:name" || p == "event:goal" || strings.HasPrefix(p, propsPrefix)
}

// v1Unset are the breakdowns whose rows of no value Plausible leaves out.
var v1Unset = []string{"visit:country", "visit:utm_medium", "visit:utm_source", "visit:utm_campaign",
	"visit:utm_content", "visit:utm_term", "visit:entry_page", "visit:exit_page"}

// v1Filter is one parsed v1 filter.
type v1Filter struct {
	property string
	leaf     []any // the query filter
}

// ParseV1 translates a v1 request for the website's clock and zone (env) and its goals'
// names (goal filters must name one); a refusal is an *Invalid with Plausible's sentence.
func ParseV1(kind V1Kind, siteID string, p V1Params, env Env, goals []string) (*V1Query, error) {
	period := deref(p.Period, "30d")
	if p.Period != nil && !slices.Contains(v1Periods, period) {
		return nil, invalidf("Error parsing `period` parameter: invalid period `%s`. Please find accepted values in our docs: %s#time-periods", period, v1Docs)
	}
	from, to, err := v1Range(period, p.Date, env)
	if err != nil {
		return nil, err
	}
	v := &V1Query{From: from, To: to, Body: map[string]any{"site_id": siteID,
		"date_range": []string{from.Format(time.DateOnly), to.Format(time.DateOnly)}}}
	if kind == V1Breakdown {
		if p.Property == nil {
			return nil, invalidf("The `property` parameter is required. Please provide at least one property to show a breakdown by.")
		}
		switch prop := *p.Property; {
		case prop == "event:hostname":
			return nil, invalidf("Property 'event:hostname' is currently not supported for breakdowns.  Please provide a valid property for the breakdown endpoint: %s#properties", v1Docs)
		case !v1Property(prop):
			return nil, invalidf("Invalid property '%s'. Please provide a valid property for the breakdown endpoint: %s#properties", prop, v1Docs)
		}
	}
	if kind == V1Timeseries {
		if v.Interval, err = v1Interval(period, p.Interval); err != nil {
			return nil, err
		}
	}
	filters, err := parseV1Filters(deref(p.Filters, ""), goals)
	if err != nil {
		return nil, err
	}
	var dimension string
	if kind == V1Breakdown {
		dimension = *p.Property
	}
	if v.Metrics, err = v1Metrics(deref(p.Metrics, "visitors"), dimension, filters); err != nil {
		return nil, err
	}
	limit, page := 100, 1
	if kind == V1Breakdown {
		if limit, page, err = v1Paging(p.Limit, p.Page); err != nil {
			return nil, err
		}
	}
	if p.Compare != nil && kind == V1Aggregate {
		if *p.Compare != "previous_period" {
			return nil, invalidf("Error parsing `compare` parameter: invalid value `%s`. The only accepted value is `previous_period`.", *p.Compare)
		}
		v.Compare = true
	}
	if p.WithImported != nil {
		switch *p.WithImported {
		case "true":
			v.WithImports = true
		case "false":
		default:
			return nil, invalidf("Error parsing `with_imported` parameter: invalid value `%s`. Accepted values are `true` and `false`.", *p.WithImported)
		}
	}
	v.build(kind, dimension, filters, limit, page)
	return v, nil
}

// build writes the query body: the metrics as the engine names them, the dimension, the
// filters, the order and the page.
func (v *V1Query) build(kind V1Kind, dimension string, filters []v1Filter, limit, page int) {
	metrics := make([]string, len(v.Metrics))
	for i, m := range v.Metrics {
		metrics[i] = m
		// v1's conversion rate of a row that is no goal is the row's own (Plausible's remap).
		if m == string(ConversionRate) && (kind == V1Timeseries || (kind == V1Breakdown && dimension != "event:goal" && !strings.HasPrefix(dimension, propsPrefix))) {
			metrics[i] = string(GroupConversionRate)
		}
	}
	var leaves []any
	for _, f := range filters {
		leaves = append(leaves, f.leaf)
	}
	switch kind {
	case V1Timeseries:
		dim := map[TimeUnit]string{Hour: "time:hour", DayUnit: "time:day", Month: "time:month"}[v.Interval]
		v.Body["dimensions"] = []string{dim}
		v.Body["include"] = map[string]any{"time_labels": true, "imports": v.WithImports}
		v.Body["order_by"] = [][]string{{dim, "asc"}}
	case V1Breakdown:
		v.Key = v1Key(dimension)
		v.Body["dimensions"] = []string{dimension}
		if slices.Contains(v1Unset, dimension) {
			leaves = append(leaves, []any{"is_not", dimension, []string{""}})
		}
		order := [][]string{}
		if i := slices.IndexFunc(metrics, func(m string) bool { return m != string(TimeOnPage) }); i >= 0 {
			order = append(order, []string{metrics[i], "desc"})
		}
		if dimension != "event:goal" {
			order = append(order, []string{dimension, "asc"})
		}
		v.Body["order_by"] = order
		v.Body["pagination"] = map[string]int{"limit": limit, "offset": (page - 1) * limit}
		v.Body["include"] = map[string]any{"imports": v.WithImports}
	default:
		v.Body["include"] = map[string]any{"imports": v.WithImports}
	}
	v.Body["metrics"] = metrics
	if len(leaves) > 0 {
		v.Body["filters"] = leaves
	}
}

// v1Key is the key of a breakdown row's value: the property without its prefix.
func v1Key(property string) string {
	if key, ok := strings.CutPrefix(property, propsPrefix); ok {
		return key
	}
	_, key, _ := strings.Cut(property, ":")
	return key
}

func deref(s *string, def string) string {
	if s == nil {
		return def
	}
	return *s
}

// v1Range is the period's first and last day, as Plausible's v1 counts them: 7d is date and
// the 6 days before, 30d date and the 30 before, months whole.
func v1Range(period string, date *string, env Env) (time.Time, time.Time, error) {
	if period == "custom" {
		return v1Custom(date)
	}
	loc := env.Location
	if loc == nil {
		loc = time.UTC
	}
	now := env.Now.In(loc)
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	if date != nil && *date != "today" {
		d, err := v1Date(*date)
		if err != nil {
			return time.Time{}, time.Time{}, invalidf("Error parsing `date` parameter: %s. Please specify a valid date in ISO-8601 format.", err)
		}
		day = d
	}
	monthEnd := stats.MonthStart(day).AddDate(0, 1, -1)
	switch period {
	case "day":
		return day, day, nil
	case "7d":
		return day.AddDate(0, 0, -6), day, nil
	case "month":
		return stats.MonthStart(day), monthEnd, nil
	case "6mo":
		return stats.MonthStart(day).AddDate(0, -5, 0), monthEnd, nil
	case "12mo":
		return stats.MonthStart(day).AddDate(0, -11, 0), monthEnd, nil
	}
	return day.AddDate(0, 0, -30), day, nil // 30d
}

func v1Custom(date *string) (time.Time, time.Time, error) {
	if date == nil {
		return time.Time{}, time.Time{}, invalidf("The `date` parameter is required when using a custom period. See %s#time-periods", v1Docs)
	}
	bad := invalidf("Invalid format for `date` parameter. When using a custom period, please include two ISO-8601 formatted dates joined by a comma. See %s#time-periods", v1Docs)
	a, b, ok := strings.Cut(*date, ",")
	if !ok || strings.Contains(b, ",") {
		return time.Time{}, time.Time{}, bad
	}
	from, err1 := v1Date(strings.TrimSpace(a))
	to, err2 := v1Date(strings.TrimSpace(b))
	if err1 != nil || err2 != nil {
		return time.Time{}, time.Time{}, bad
	}
	if from.After(to) {
		return time.Time{}, time.Time{}, invalidf("Invalid `date` parameter: the first date must not be after the second. See %s#time-periods", v1Docs)
	}
	return from, to, nil
}

// v1Date reads YYYY-MM-DD; the error is Elixir's word for what was wrong, as Plausible
// quotes it.
func v1Date(s string) (time.Time, error) {
	if !regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`).MatchString(s) {
		return time.Time{}, fmt.Errorf("invalid_format")
	}
	d, err := time.Parse(time.DateOnly, s)
	if err != nil || !stats.InBounds(d) {
		return time.Time{}, fmt.Errorf("invalid_date")
	}
	return d, nil
}

func v1Interval(period string, interval *string) (TimeUnit, error) {
	if interval == nil {
		switch period {
		case "day":
			return Hour, nil
		case "6mo", "12mo":
			return Month, nil
		}
		return DayUnit, nil
	}
	switch *interval {
	case "date", "day":
		return DayUnit, nil
	case "month":
		return Month, nil
	}
	return 0, invalidf("Error parsing `interval` parameter: invalid interval `%s`. Valid intervals are `day`, `month`", *interval)
}

func v1Paging(limitParam, pageParam *string) (int, int, error) {
	limit, page := 100, 1
	if limitParam != nil {
		n, err := strconv.Atoi(*limitParam)
		if err != nil || n < 1 || n > 1000 {
			return 0, 0, invalidf("Please provide limit as a number between 1 and 1000.")
		}
		limit = n
	}
	if pageParam != nil {
		n, err := strconv.Atoi(*pageParam)
		if err != nil || n < 1 || n > v1MaxPage {
			return 0, 0, invalidf("Please provide page as a positive number.")
		}
		page = n
	}
	return limit, page, nil
}

// v1Metrics checks the metrics as Plausible's v1 does, against the breakdown's property
// (dimension, "" for none) and the filters.
func v1Metrics(list, dimension string, filters []v1Filter) ([]string, error) {
	names := strings.Split(list, ",")
	seen := map[string]bool{}
	for _, m := range names {
		if seen[m] {
			return nil, invalidf("Metrics cannot be queried multiple times.")
		}
		seen[m] = true
	}
	filtered := func(p string) bool {
		return slices.ContainsFunc(filters, func(f v1Filter) bool { return f.property == p })
	}
	for _, m := range names {
		if err := v1Metric(m, dimension, filters, filtered); err != nil {
			return nil, err
		}
	}
	return names, nil
}

func v1Metric(m, dimension string, filters []v1Filter, filtered func(string) bool) error {
	switch m {
	case "visitors", "pageviews", "events":
		return nil
	case "time_on_page":
		switch {
		case filtered("event:goal"), filtered("event:name"):
			p := "event:goal"
			if !filtered(p) {
				p = "event:name"
			}
			return invalidf("Metric `%s` cannot be queried when filtering by `%s`", m, p)
		case dimension == "event:page":
			return nil
		case dimension != "":
			return invalidf("Metric `%s` is not supported in breakdown queries (except `event:page` breakdown)", m)
		case filtered("event:page"):
			return nil
		}
		return invalidf("Metric `%s` can only be queried in a page breakdown or with a page filter.", m)
	case "conversion_rate":
		if dimension == "event:goal" || filtered("event:goal") {
			return nil
		}
		return invalidf("Metric `%s` can only be queried in a goal breakdown or with a goal filter", m)
	case "views_per_visit":
		if filtered("event:page") {
			return invalidf("Metric `%s` cannot be queried with a filter on `event:page`.", m)
		}
		if dimension != "" {
			return invalidf("Metric `%s` is not supported in breakdown queries.", m)
		}
		return v1SessionMetric(m, dimension, filters)
	case "visits", "bounce_rate", "visit_duration":
		return v1SessionMetric(m, dimension, filters)
	}
	return invalidf("The metric `%s` is not recognized. Find valid metrics from the documentation: %s#metrics", m, v1Docs)
}

func v1SessionMetric(m, dimension string, filters []v1Filter) error {
	if eventOnly(dimension) {
		return invalidf("Session metric `%s` cannot be queried for breakdown by `%s`.", m, dimension)
	}
	for _, f := range filters {
		if eventOnly(f.property) {
			return invalidf("Session metric `%s` cannot be queried when using a filter on `%s`.", m, f.property)
		}
	}
	return nil
}

// v1Ops are the v1 filter operators, the longer first where one begins another.
var v1Ops = []string{"==", "!=", "!~", "~"}

// unescapedBar is a | not preceded by a backslash: between two values.
var unescapedBar = regexp.MustCompile(`(^|[^\\])\|`)

// parseV1Filters reads `property==value;...`. Where Plausible drops a filter it cannot read
// (and answers as if it were not there), this refuses it: a number must never be answered
// for a question that was not asked.
func parseV1Filters(expr string, goals []string) ([]v1Filter, error) {
	var out []v1Filter
	for _, part := range strings.Split(expr, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		at, op := -1, ""
		for _, o := range v1Ops {
			if i := strings.Index(part, o); i > 0 && (at < 0 || i < at) {
				at, op = i, o
			}
		}
		if at < 0 {
			return nil, invalidf("Invalid filter '%s'. Please write each filter as a property, an operator (==, !=, ~ or !~) and a value: %s#filtering", part, v1Docs)
		}
		property, raw := strings.TrimSpace(part[:at]), strings.TrimSpace(part[at+len(op):])
		if !v1Property(property) {
			return nil, invalidf("Invalid filter property '%s'. Please provide a valid filter property: %s#properties", property, v1Docs)
		}
		values := splitValues(raw)
		if property == "event:goal" {
			for _, g := range values {
				if !slices.Contains(goals, g) {
					return nil, invalidf("%sFind out how to configure goals here: %s#filtering-by-goals", goalNotConfigured(g), v1Docs)
				}
			}
		}
		if property == "visit:country" {
			for _, c := range values {
				if len(c) != 2 && !strings.Contains(c, "*") {
					return nil, invalidf("Invalid filter value '%s' for visit:country: a country is its two-letter ISO 3166-1 code.", c)
				}
			}
		}
		out = append(out, v1Filter{property: property, leaf: v1Leaf(property, op, values)})
	}
	return out, nil
}

func goalNotConfigured(goal string) string {
	if page, ok := strings.CutPrefix(goal, "Visit "); ok {
		return fmt.Sprintf("The pageview goal for the pathname `%s` is not configured for this site. ", page)
	}
	return fmt.Sprintf("The goal `%s` is not configured for this site. ", goal)
}

// splitValues splits a value at its unescaped bars, `\|` being a bar within a value.
func splitValues(raw string) []string {
	marked := unescapedBar.ReplaceAllString(raw, "$1\x00")
	parts := strings.Split(marked, "\x00")
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(p, `\|`, "|")
	}
	return parts
}

// v1Leaf is the query filter of one v1 filter: a value with a * is a wildcard (* within a
// path segment, ** across them), matched whole.
func v1Leaf(property, op string, values []string) []any {
	negated := op == "!=" || op == "!~"
	if op == "~" || op == "!~" {
		return []any{map[bool]string{false: "contains", true: "contains_not"}[negated], property, values}
	}
	if property != "event:goal" && slices.ContainsFunc(values, func(s string) bool { return strings.Contains(s, "*") }) {
		patterns := make([]string, len(values))
		for i, s := range values {
			patterns[i] = wildcardPattern(s)
		}
		return []any{map[bool]string{false: "matches", true: "matches_not"}[negated], property, patterns}
	}
	return []any{map[bool]string{false: "is", true: "is_not"}[negated], property, values}
}

// wildcardPattern is the anchored regular expression of a v1 wildcard.
func wildcardPattern(s string) string {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(s); {
		switch {
		case strings.HasPrefix(s[i:], "**"):
			b.WriteString(".*")
			i += 2
		case s[i] == '*':
			b.WriteString("[^/]*")
			i++
		default:
			j := i
			for j < len(s) && s[j] != '*' {
				j++
			}
			b.WriteString(regexp.QuoteMeta(s[i:j]))
			i = j
		}
	}
	b.WriteString("$")
	return b.String()
}

// MarshalBody is the query body as JSON, for Parse.
func (v *V1Query) MarshalBody(body map[string]any) ([]byte, error) {
	out, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("query: v1 body: %w", err)
	}
	return out, nil
}

// v1MaxPage bounds page, so that its offset stays a number any database takes.
const v1MaxPage = 1_000_000
