package repository

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/lib/pq"

	"github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/stats"
)

// filterBuild compiles filters into conditions on visit rows, their values as arguments (or
// literals, inline): the part of the SQL builder that the query engine (queryBuild, which
// embeds it) and v1's reads of filtered rows (newRowSource) share. It does no I/O of its own:
// what a condition needs from the database (the goals' pages, the distinct values a matches
// filter is matched with) is read before and set here.
type filterBuild struct {
	sqlArgs
	goals   []goalMatch                 // the website's goals with a display name (readGoals)
	values  map[string][]string         // distinctValues by dimension name
	matches map[*regexp.Regexp][]string // the values a matches filter keeps, by its first pattern (matched)
}

// element stands for a hit's value in a hit-level predicate until it is placed.
const element = "$EL"

// filterWhere is the range's WHERE with every filter's condition, and sets b.pages. The
// arguments of the conditions come first, those of b.pages after them, so that the statement
// of percentage's whole can take the WHERE's alone.
func (b *queryBuild) filterWhere(ctx context.Context, filters []query.Filter) (string, int, error) {
	conds := []string{b.base}
	for _, f := range filters {
		cond, err := b.cond(ctx, f)
		if err != nil {
			return "", 0, err
		}
		conds = append(conds, cond)
	}
	whereArgs := len(b.args)
	// Under event:goal and event:props a row counts its own hits, whatever page filters keep
	// (and an argument no statement reads has no type for PostgreSQL).
	if ownHits := b.hitLevel() == query.GoalLevel || b.hitLevel() == query.PropLevel; !ownHits {
		// A lone is counts its pages' pageviews by array_positions, so the predicate may be in
		// no statement but an event:page dimension's: its values are literals then.
		kept := &b.filterBuild
		if b.pageIs = pagesIs(filters); b.pageIs != nil {
			kept = &filterBuild{sqlArgs: sqlArgs{inline: true}}
		}
		pages, err := kept.pagesKept(ctx, filters)
		if err != nil {
			return "", 0, err
		}
		b.pages = pages
	}
	return strings.Join(conds, " AND "), whereArgs, nil
}

// pagesIs are the values of the event:page filters among filters that must all hold when they
// are one case-sensitive is of at most 8 values (filter[page], filter_any[page]; not filters
// aside, which keep every page of their visits); nil otherwise. A visit's pageviews of those
// pages are counted by array_positions (pageCount), 4 to 6 times faster than pagesKept's
// predicate over unnest(pages).
func pagesIs(filters []query.Filter) []string {
	var kept []query.Filter
	for _, f := range filters {
		if f.Field.Level == query.PageLevel && f.Op != query.And && f.Op != query.Or && f.Op != query.Not {
			kept = append(kept, f)
		}
	}
	if len(kept) != 1 || kept[0].Op != query.Is || kept[0].IgnoreCase || len(kept[0].Values) > 8 {
		return nil
	}
	return slices.Compact(slices.Sorted(slices.Values(kept[0].Values)))
}

// pageCount is the SQL of a visit row's pageviews that its page filters keep: those of the
// pages of is (pagesIs) when there are some, else those of the pages that pred (pagesKept's)
// holds for, else all of them.
func pageCount(is []string, pred string) string {
	switch {
	case len(is) > 0:
		counts := make([]string, len(is))
		for i, p := range is {
			counts[i] = "cardinality(array_positions(pages, " + pq.QuoteLiteral(p) + "))"
		}
		return "(" + strings.Join(counts, " + ") + ")"
	case pred != "":
		return "(SELECT count(*) FROM unnest(pages) AS x (v) WHERE " + strings.ReplaceAll(pred, element, "x.v") + ")"
	}
	return "pageviews"
}

// pagesKept is the predicate on a pageview's page (element) of the event:page filters among
// filters that must all hold, or "": with them, only the pageviews they keep count (v2's
// query and v1's filter, filter_any and filter_contains alike). A not filter keeps the visits
// none of whose pages is a value, so each of their pageviews counts.
func (b *filterBuild) pagesKept(ctx context.Context, filters []query.Filter) (string, error) {
	var pages []string
	for _, f := range filters {
		if f.Field.Level == query.PageLevel && f.Op != query.And && f.Op != query.Or && f.Op != query.Not {
			pred, err := b.leafPredicate(ctx, f, element)
			if err != nil {
				return "", err
			}
			if f.Negated() {
				pred = "NOT (" + pred + ")"
			}
			pages = append(pages, pred)
		}
	}
	return strings.Join(pages, " AND "), nil
}

// cond is a filter's condition on a visit row.
func (b *filterBuild) cond(ctx context.Context, f query.Filter) (string, error) {
	switch f.Op {
	case query.And, query.Or:
		var parts []string
		for _, c := range f.Children {
			cond, err := b.cond(ctx, c)
			if err != nil {
				return "", err
			}
			parts = append(parts, cond)
		}
		return "(" + strings.Join(parts, " "+strings.ToUpper(string(f.Op))+" ") + ")", nil
	case query.Not:
		cond, err := b.cond(ctx, f.Children[0])
		if err != nil {
			return "", err
		}
		return "NOT (" + cond + ")", nil
	}
	switch f.Field.Level {
	case query.GoalLevel:
		return b.goalFilterCond(f), nil
	case query.PropLevel:
		if f.Op == query.Is && !f.IgnoreCase {
			// One of the visit's hits carried one of the pairs: && reads the array in place.
			pairs := make([]string, len(f.Values))
			for i, v := range f.Values {
				pairs[i] = stats.PropPair(f.Field.Key, v)
			}
			return "coalesce(" + b.overlaps("props", pairs) + ", false)", nil
		}
		fallthrough
	case query.EventLevel:
		if f.Field.Level == query.EventLevel && f.Op == query.Is && slices.Contains(f.Values, "") {
			return b.noEventCond(ctx, f)
		}
		fallthrough
	case query.PageLevel, query.NameLevel:
		column, list, ok, err := b.hitList(ctx, f)
		if err != nil {
			return "", err
		}
		if ok {
			// One of the visit's pages (events) is in the list: read in place, where unnesting
			// the array in a subquery took twice the time.
			return b.overlaps(column, list), nil
		}
		pred, err := b.leafPredicate(ctx, f, "x.v")
		if err != nil {
			return "", err
		}
		// On hit dimensions a negated filter keeps the hits that are not the value.
		if f.Negated() {
			pred = "NOT (" + pred + ")"
		}
		return "EXISTS (SELECT 1 FROM " + hitValues(f.Field) + " AS x (v) WHERE " + pred + ")", nil
	}
	pred, err := b.leafPredicate(ctx, f, storedColumn(f.Field))
	if err != nil {
		return "", err
	}
	if f.Negated() {
		return "NOT (" + pred + ")", nil
	}
	return pred, nil
}

// hitList is the array column (pages, events) and the list of its values a positive is or
// matches filter on event:page or on the stored events keeps, when the list is short (&&
// compares every pair, where = ANY of a long list is hashed); ok is false otherwise.
func (b *filterBuild) hitList(ctx context.Context, f query.Filter) (string, []string, bool, error) {
	column := "pages"
	if f.Field.Level == query.EventLevel {
		column = "events"
	} else if f.Field.Level != query.PageLevel {
		return "", nil, false, nil
	}
	if f.Negated() {
		return "", nil, false, nil
	}
	var list []string
	switch {
	case f.Op == query.Is && !f.IgnoreCase:
		list = f.Values
	case f.Op == query.Matches:
		var err error
		if list, err = b.matched(ctx, f); err != nil {
			return "", nil, false, err
		}
	default:
		return "", nil, false, nil
	}
	return column, list, len(list) <= 8, nil
}

// overlaps is the condition of an array column holding one of the values: = ANY of the
// column for one value, which took 3 to 7 % less CPU than && of a one-element list (the
// filtered reads' summary by country and by page, 2026-11-28), && otherwise.
func (b *filterBuild) overlaps(column string, values []string) string {
	if len(values) == 1 {
		return b.arg(values[0]) + " = ANY(" + column + ")"
	}
	return column + " && " + b.arg(pq.Array(values)) + "::text[]"
}

// noEventCond is the condition of an is filter on the stored events one of whose values is
// "": no event, which the visits without any have.
func (b *filterBuild) noEventCond(ctx context.Context, f query.Filter) (string, error) {
	f.Values = slices.DeleteFunc(slices.Clone(f.Values), func(v string) bool { return v == "" })
	if len(f.Values) == 0 {
		return "events = '{}'", nil
	}
	cond, err := b.cond(ctx, f)
	if err != nil {
		return "", err
	}
	return "(" + cond + " OR events = '{}')", nil
}

// hitValues is the SQL of a visit row's hit values of a hit-level field: its pages, its
// event names, its stored events, or the values of a property its hits carried.
func hitValues(f query.Field) string {
	switch f.Level {
	case query.PageLevel:
		return "unnest(pages)"
	case query.EventLevel:
		return "unnest(events)"
	case query.PropLevel:
		return propValues(f.Key)
	}
	return "(SELECT split_part(e, ':', 1) FROM unnest(events) AS e UNION ALL SELECT 'pageview' WHERE pageviews > 0)"
}

// leafPredicate is the positive predicate of a leaf on the stored value e (a column, or a
// hit's value).
func (b *filterBuild) leafPredicate(ctx context.Context, f query.Filter, e string) (string, error) {
	field := f.Field
	part := e
	if field.Level == query.VisitLevel {
		part = partExpr(field, e)
	}
	switch f.Positive() {
	case query.Is:
		if f.IgnoreCase {
			lowered := make([]string, len(f.Values))
			for i, v := range f.Values {
				lowered[i] = strings.ToLower(v)
			}
			return "lower(" + part + ") = ANY(" + b.arg(pq.Array(lowered)) + "::text[])", nil
		}
		if len(f.Values) == 1 {
			// = of one value took a few per cent less CPU than = ANY of a one-element list.
			return part + " = " + b.arg(f.Values[0]), nil
		}
		return part + " = ANY(" + b.arg(pq.Array(f.Values)) + "::text[])", nil
	case query.Contains:
		like := "LIKE"
		if f.IgnoreCase {
			like = "ILIKE"
		}
		patterns := make([]string, len(f.Values))
		for i, v := range f.Values {
			patterns[i] = likePattern(v)
		}
		p := b.arg(pq.Array(patterns)) + "::text[]"
		if field.Level == query.VisitLevel && len(field.Spell) > 0 {
			return fmt.Sprintf("(%s %s ANY(%s) OR %s %s ANY(%s))", answerExpr(field, e), like, p, part, like, p), nil
		}
		return fmt.Sprintf("%s %s ANY(%s)", part, like, p), nil
	}
	matched, err := b.matched(ctx, f)
	if err != nil {
		return "", err
	}
	return e + " = ANY(" + b.arg(pq.Array(matched)) + "::text[])", nil
}

// matched are the stored values of the filter's field over the range (b.values) that one of
// its RE2 patterns matches, in either spelling: the patterns run here, never in PostgreSQL,
// once a filter (its condition and the pages' predicate both need them). The work stops
// when the request's context ends (its client left, or its time is up), looked at before
// each value: a look costs tens of nanoseconds, a value up to milliseconds (query.MaxPrograms).
func (b *filterBuild) matched(ctx context.Context, f query.Filter) ([]string, error) {
	values, ok := b.values[f.Field.Name]
	if !ok {
		return nil, fmt.Errorf("distinct values of %s: not read", f.Field.Name)
	}
	if m, ok := b.matches[f.Patterns[0]]; ok { // each leaf compiles patterns of its own
		return m, nil
	}
	matched := []string{}
	for _, v := range values {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("match %s: %w", f.Field.Name, err)
		}
		if f.MatchesString(f.Field.Answer(v)) || f.MatchesString(partOf(f.Field, v)) {
			matched = append(matched, v)
		}
	}
	if b.matches == nil {
		b.matches = map[*regexp.Regexp][]string{}
	}
	b.matches[f.Patterns[0]] = matched
	return matched, nil
}

// partOf is the part of a stored value a field answers, in our spelling.
func partOf(f query.Field, v string) string {
	spell := f.Spell
	f.Spell = nil
	defer func() { f.Spell = spell }()
	return f.Answer(v)
}

// propValues is the SQL of the values of property key that a visit row's hits carried, one a
// hit (props holds KEY, 0x1F, VALUE a hit and property; NULL for none).
func propValues(key string) string {
	prefix := pq.QuoteLiteral(stats.PropPair(key, ""))
	return "(SELECT substr(y.p, char_length(" + prefix + ") + 1) FROM unnest(props) AS y (p) WHERE starts_with(y.p, " + prefix + "))"
}
