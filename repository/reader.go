package repository

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/analytics-service/analytics/stats"
)

// Reader reads the numbers of one website's range of days: a statistic's list, the top lists,
// the events grouped by name, the totals and the time series, and what they rest on. Two
// stores answer them: the daily counters (and their rollups), which count every visit, and
// the visit rows, which can tell the visits that match filters. Repository.Reader chooses
// between them, in that one place; every caller (the API, the pages, the reports) reads
// through it. A Reader is safe for concurrent use: the dashboard runs its reads at once.
type Reader interface {
	// List is one page of a statistic's values, with the number of distinct values in all.
	List(ctx context.Context, q StatQuery) ([]StatEntry, int64, error)
	// Top is, for each of the names, its values in the API's default order (count
	// descending, value ascending): at most limit of each, all of them when limit is 0, with
	// how many distinct values each has. A name with no values is absent.
	Top(ctx context.Context, names []stats.Name, limit int) (map[stats.Name]StatList, error)
	// Events groups the event statistic (values `name:value:unit`) by event name: the limit
	// names with the largest totals (ties by name), each with its valuesEach most counted
	// `value:unit` parts, and the number of distinct names in all.
	Events(ctx context.Context, limit, valuesEach int) ([]EventGroup, int64, error)
	// Totals is the range's summary.
	Totals(ctx context.Context) (stats.Totals, error)
	// Series is the totals per bucket of the range, every bucket of it (empty ones with
	// zeros), oldest first; hours are those of the zone that counted each day (the website's).
	// The caller checks first that the interval allows the range (stats.Interval.Allows).
	// The counters' series have no events (zeros) but EventsReader's of days; the visit rows
	// have them.
	Series(ctx context.Context, interval stats.Interval, zone stats.Zone) ([]Bucket, error)
	// Basis is what the numbers rest on.
	Basis(ctx context.Context) (Basis, error)
	// Engagement is the time on page and scroll depth of the pages (values of the page
	// statistic) that have some (engagement.go).
	Engagement(ctx context.Context, pages []string) (map[string]PageEngagement, error)
	// ListEngaged is List of the page statistic with the Engagement of the listed pages.
	ListEngaged(ctx context.Context, q StatQuery) ([]StatEntry, int64, map[string]PageEngagement, error)
}

// Basis is what a range's numbers rest on. The counters count every visitor of every day;
// filtered numbers may rest on a sample of the visitors (a view of more than stats.MaxExactPageviews)
// and start after the range's first day (days before the website kept visit rows).
type Basis struct {
	// Fraction is the fraction of the visitors read: 1, or the sample's.
	Fraction float64
	// From is the first day counted, when after the range's first (see FilteredFrom); the
	// zero time when every day of the range is counted.
	From time.Time
}

// Reader is the reader of a website's range: the one the planner chooses (plan.go) for a read
// of the visits that match the filters (every visit without filters).
func (r *Repository) Reader(websiteID int64, days stats.Range, filters stats.Filters) Reader {
	return r.reader(websiteID, days, needs{filters: filters})
}

// EventsReader is Reader whose counters' series of days, weeks and months count the events
// too (the graph of events): the event counter has a row a name and property a day, which
// the other series leave unread.
func (r *Repository) EventsReader(websiteID int64, days stats.Range, filters stats.Filters) Reader {
	return r.reader(websiteID, days, needs{filters: filters, events: true})
}

// ListReader is the reader of a list's range, its name and filters: the planner's choice
// (plan.go), which only the rows answer for custom properties.
func (r *Repository) ListReader(websiteID int64, q stats.ListQuery) Reader {
	return r.reader(websiteID, q.Range, needs{filters: q.Filters, rowsOnly: q.Name == stats.Property})
}

var (
	_ Reader = counterReader{}
	_ Reader = rowReader{}
)

// aliasReader reads a name by its canonical name (stats.Name.Canonical): utm_campaign's
// values are campaign's, whichever store answers.
type aliasReader struct{ Reader }

func (a aliasReader) List(ctx context.Context, q StatQuery) ([]StatEntry, int64, error) {
	q.Name = q.Name.Canonical()
	return a.Reader.List(ctx, q)
}

func (a aliasReader) ListEngaged(ctx context.Context, q StatQuery) ([]StatEntry, int64, map[string]PageEngagement, error) {
	q.Name = q.Name.Canonical()
	return a.Reader.ListEngaged(ctx, q)
}

func (a aliasReader) Top(ctx context.Context, names []stats.Name, limit int) (map[stats.Name]StatList, error) {
	read := make([]stats.Name, 0, len(names))
	for _, n := range names {
		if c := n.Canonical(); !slices.Contains(read, c) {
			read = append(read, c)
		}
	}
	top, err := a.Reader.Top(ctx, read, limit)
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if list, ok := top[n.Canonical()]; ok {
			top[n] = list
		}
	}
	for _, c := range read {
		if !slices.Contains(names, c) {
			delete(top, c)
		}
	}
	return top, nil
}

// counterReader reads the daily counters and their rollups (stats.go, dashboard.go,
// visits_read.go).
type counterReader struct {
	repo      *Repository
	websiteID int64
	days      stats.Range
	events    bool // Series of days sums the event counter (EventsReader)
}

func (counterReader) Basis(context.Context) (Basis, error) { return Basis{Fraction: 1}, nil }

// rowReader reads the visit rows of the visits that match every filter (filtered_read.go).
type rowReader struct {
	repo      *Repository
	websiteID int64
	days      stats.Range
	filters   stats.Filters
	goal      *goalFilter // filter[goal], resolved by the first read that needs it
	fixed     float64     // when above 0, the fraction read whatever the range (a funnel's)
	// view is the range whose pageviews decide the sample (stats.SampleFraction) when it is
	// not days: a reader of part of a view (after) reads the same visitors as the rest of it.
	view *stats.Range
}

// fraction is the fraction of the visitors v reads: fixed when set, else the sample of its view.
func (v rowReader) fraction(ctx context.Context) (float64, error) {
	if v.fixed > 0 {
		return v.fixed, nil
	}
	view := v.days
	if v.view != nil {
		view = *v.view
	}
	return v.repo.sampleFraction(ctx, v.websiteID, view)
}

// source is a new rowSource of the reader's rows: one a read, as it collects its arguments.
// A goal filter is resolved first: its goal, and for a pageview goal the range's pages that
// match its pattern (goals_read.go).
func (v rowReader) source(ctx context.Context) (*rowSource, error) {
	var goal *goalMatch
	if name, ok := v.filters.Get(stats.GoalName); ok {
		var err error
		if goal, err = v.goal.resolve(ctx, v.repo, v.websiteID, v.days, name); err != nil {
			return nil, err
		}
	}
	fraction, err := v.fraction(ctx)
	if err != nil {
		return nil, err
	}
	return newRowSource(ctx, v.websiteID, v.days, fraction, v.filters, goal)
}

func (v rowReader) Basis(ctx context.Context) (Basis, error) {
	from, err := v.repo.FilteredFrom(ctx, v.websiteID, v.days)
	if err != nil {
		return Basis{}, fmt.Errorf("stats.basis: %w", err)
	}
	fraction, err := v.fraction(ctx)
	if err != nil {
		return Basis{}, fmt.Errorf("stats.basis: %w", err)
	}
	return Basis{Fraction: fraction, From: from}, nil
}

// StatQueryOf is the page of values that a list query asks for.
func StatQueryOf(q stats.ListQuery) StatQuery {
	return StatQuery{Name: q.Name, Search: q.Search, SortBy: q.SortBy, Desc: q.Desc(),
		Limit: q.Paging.Size, Offset: q.Paging.Offset(), Property: q.Property}
}
