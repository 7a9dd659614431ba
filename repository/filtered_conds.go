package repository

import (
	"context"
	"fmt"
	"strings"

	"github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/stats"
)

// One compiler of filters (docs/query.md, "One engine"): v1's filters (filter, filter_any,
// filter_not, filter_contains, property_filter, filter[goal]) are translated into the query
// engine's form and compiled by its condition code (filterBuild.cond, query_filters.go), so
// that each rule (a code before ':', a visit matching when one of its hits does, a property
// pair, a goal's conversion) is written once for both APIs.

// engineFilter is a v1 filter in the query engine's form: filter[NAME]=V and filter_any are
// is, filter_not is not(is) (page and event: no hit of the visit is one of the values),
// filter_contains is contains ignoring case. Values are as stored (v1 has no second
// spelling); continent and country compare the code before ':' except under filter_contains,
// which reads the whole value.
func engineFilter(f stats.Filter) (query.Filter, error) {
	field, err := engineField(f)
	if err != nil {
		return query.Filter{}, err
	}
	values := f.List()
	if field.Part == query.Code {
		codes := make([]string, len(values))
		for i, v := range values {
			codes[i], _, _ = strings.Cut(v, ":")
		}
		values = codes
	}
	out := query.Filter{Op: query.Is, Field: field, Values: values}
	switch f.Op {
	case stats.NoneOf:
		return query.Filter{Op: query.Not, Children: []query.Filter{out}}, nil
	case stats.ContainsAny:
		out.Op, out.IgnoreCase = query.Contains, true
	case stats.ContainsNone:
		out.Op, out.IgnoreCase = query.Contains, true
		return query.Filter{Op: query.Not, Children: []query.Filter{out}}, nil
	}
	return out, nil
}

// engineFilters are v1's filters as the engine's.
func engineFilters(filters stats.Filters) ([]query.Filter, error) {
	var out []query.Filter
	for _, f := range filters {
		ef, err := engineFilter(f)
		if err != nil {
			return nil, err
		}
		out = append(out, ef)
	}
	return out, nil
}

// engineField is the engine's field of a v1 filter's name.
func engineField(f stats.Filter) (query.Field, error) {
	switch f.Name {
	case stats.GoalName:
		return query.Field{Name: "event:goal", Level: query.GoalLevel}, nil
	case stats.Property:
		return query.Field{Name: "event:props:" + f.Key, Level: query.PropLevel, Key: f.Key}, nil
	case stats.Page:
		return query.Field{Name: "event:page", Level: query.PageLevel}, nil
	case stats.Event:
		return query.Field{Name: string(stats.Event), Level: query.EventLevel}, nil
	}
	d, _, ok := stats.DimensionOf(f.Name)
	if !ok {
		return query.Field{}, fmt.Errorf("%q is not a filter name", f.Name)
	}
	field := query.Field{Name: string(d.Name), Level: query.VisitLevel, Stat: d.Name}
	if d.Compare == stats.CodeBefore && f.Op != stats.ContainsAny && f.Op != stats.ContainsNone {
		field.Part = query.Code
	}
	return field, nil
}

// engineConds are the conditions of v1's filters compiled by b, with their arguments after
// b's; goal is filter[goal]'s goal (nil: no such goal, which matches nothing).
func engineConds(ctx context.Context, b *filterBuild, filters stats.Filters, goal *goalMatch) ([]string, error) {
	if goal != nil {
		b.goals = []goalMatch{*goal}
	}
	var conds []string
	for _, f := range filters {
		ef, err := engineFilter(f)
		if err != nil {
			return nil, err
		}
		// No v1 filter is a matches filter, whose values (b.values) are read beforehand.
		cond, err := b.cond(ctx, ef)
		if err != nil {
			return nil, err
		}
		conds = append(conds, cond)
	}
	return conds, nil
}
