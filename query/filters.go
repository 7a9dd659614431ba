package query

import (
	"encoding/json"
	"regexp"
	"slices"
	"sort"
	"unicode/utf8"

	"github.com/analytics-service/analytics/stats"
)

// Op is a filter's operator.
type Op string

const (
	Is          Op = "is"
	IsNot       Op = "is_not"
	Contains    Op = "contains"
	ContainsNot Op = "contains_not"
	Matches     Op = "matches"
	MatchesNot  Op = "matches_not"
	And         Op = "and"
	Or          Op = "or"
	Not         Op = "not"
)

var leafOps = []Op{Is, IsNot, Contains, ContainsNot, Matches, MatchesNot}

// Filter is one node of the filter tree: a leaf (Op on Field with Values) or And/Or over
// Children, or Not of its one child.
type Filter struct {
	Op       Op
	Field    Field
	Values   []string
	Patterns []*regexp.Regexp // Matches, MatchesNot: Values compiled (RE2)
	// IgnoreCase: {"case_sensitive": false}.
	IgnoreCase bool
	Children   []Filter
}

// Negated tells whether a leaf keeps what does not match its values.
func (f Filter) Negated() bool { return f.Op == IsNot || f.Op == ContainsNot || f.Op == MatchesNot }

// IsGoal tells whether f is a leaf on event:goal.
func (f Filter) IsGoal() bool {
	return f.Field.Level == GoalLevel && len(f.Children) == 0 && f.Op != Not
}

// Positive is the leaf's operator without its negation.
func (f Filter) Positive() Op {
	switch f.Op {
	case IsNot:
		return Is
	case ContainsNot:
		return Contains
	case MatchesNot:
		return Matches
	}
	return f.Op
}

// MatchesString tells whether a value matches one of a matches filter's patterns.
func (f Filter) MatchesString(v string) bool {
	return slices.ContainsFunc(f.Patterns, func(p *regexp.Regexp) bool { return p.MatchString(v) })
}

// filterParser reads the filters of one query (or one segment being saved). leaves counts
// the leaves so far, so that a tree past MaxFilters is refused as soon as it is (the 480
// leaves of a 48 KB body would take milliseconds of CPU to read whole), the leaves of the
// segments it names included.
type filterParser struct {
	leaves  int
	segment SegmentLookup // nil: a segment filter is refused (a segment being saved)
}

// parseFilter reads one filter at nesting depth (the number of and/or/not around it).
func (p *filterParser) parseFilter(raw json.RawMessage, depth int) (Filter, error) {
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil || len(parts) < 2 {
		return Filter{}, invalidf("filters: each filter must be an array [operator, dimension, [values]]")
	}
	var op Op
	if err := json.Unmarshal(parts[0], &op); err != nil {
		return Filter{}, invalidf("filters: a filter's first element must be its operator")
	}
	switch op {
	case And, Or, Not:
		return p.parseLogical(op, parts, depth)
	case "has_done", "has_not_done":
		return Filter{}, invalidf("filters: the operator %s is not available on this service", quote(string(op)))
	}
	if !slices.Contains(leafOps, op) {
		return Filter{}, invalidf("filters: unknown operator %s", quote(string(op)))
	}
	if isSegment(parts) {
		return p.parseSegment(op, parts, depth)
	}
	if p.leaves++; p.leaves > MaxFilters {
		return Filter{}, invalidf("filters: more than %d filters; at most %d in one query (the limit of one query)", MaxFilters, MaxFilters)
	}
	return parseLeaf(op, parts)
}

func (p *filterParser) parseLogical(op Op, parts []json.RawMessage, depth int) (Filter, error) {
	if depth+1 > MaxNesting {
		return Filter{}, invalidf("filters: and, or and not may be nested at most %d deep (the limit of one query)", MaxNesting)
	}
	f := Filter{Op: op}
	if len(parts) != 2 {
		return Filter{}, invalidf("filters: %s takes one argument", op)
	}
	if op == Not {
		child, err := p.parseFilter(parts[1], depth+1)
		if err != nil {
			return Filter{}, err
		}
		f.Children = []Filter{child}
		return f, nil
	}
	var children []json.RawMessage
	if err := json.Unmarshal(parts[1], &children); err != nil || len(children) == 0 {
		return Filter{}, invalidf("filters: %s takes a non-empty list of filters", op)
	}
	for _, c := range children {
		child, err := p.parseFilter(c, depth+1)
		if err != nil {
			return Filter{}, err
		}
		f.Children = append(f.Children, child)
	}
	return f, nil
}

func parseLeaf(op Op, parts []json.RawMessage) (Filter, error) {
	if len(parts) < 3 || len(parts) > 4 {
		return Filter{}, invalidf("filters: %s takes [%q, dimension, [values]] with optional modifiers", op, op)
	}
	var name string
	if err := json.Unmarshal(parts[1], &name); err != nil {
		return Filter{}, invalidf("filters: a filter's dimension must be a string")
	}
	field, err := lookupField(name)
	if err != nil {
		return Filter{}, &Invalid{Message: "Invalid filter: " + err.Error()}
	}
	if field.Level == TimeLevel {
		return Filter{}, invalidf("Invalid filter: %s cannot be filtered; use date_range", name)
	}
	if field.Level == GoalLevel && op != Is && op != Contains {
		// As Plausible: a goal is converted on or not; "not converting on" is not a hit's value.
		return Filter{}, invalidf("Invalid filter: event:goal takes the operators \"is\" and \"contains\" only, not %s", quote(string(op)))
	}
	f := Filter{Op: op, Field: field}
	if err := json.Unmarshal(parts[2], &f.Values); err != nil || len(f.Values) == 0 {
		return Filter{}, invalidf("filters: the values of the %s filter on %s must be a non-empty list of strings", op, name)
	}
	if len(f.Values) > MaxFilterValues {
		return Filter{}, invalidf("filters: at most %d values in one filter (the limit of one query)", MaxFilterValues)
	}
	for _, v := range f.Values {
		if utf8.RuneCountInString(v) > MaxPatternLength {
			return Filter{}, invalidf("filters: a value or pattern is over %d characters (the limit of one query)", MaxPatternLength)
		}
		if err := checkText("filters: a value", v); err != nil {
			return Filter{}, err
		}
	}
	if len(parts) == 4 {
		var mods struct {
			CaseSensitive *bool `json:"case_sensitive"`
		}
		if err := json.Unmarshal(parts[3], &mods); err != nil {
			return Filter{}, invalidf(`filters: modifiers must be {"case_sensitive": true|false}`)
		}
		f.IgnoreCase = mods.CaseSensitive != nil && !*mods.CaseSensitive
	}
	if f.Positive() == Matches {
		for _, v := range f.Values {
			pattern := v
			if f.IgnoreCase {
				pattern = "(?i)" + pattern
			}
			size, err := programSize(pattern)
			if err != nil {
				return Filter{}, invalidf("filters: the pattern %s is not a valid regular expression (RE2 syntax)", quote(v))
			}
			if size > MaxProgram {
				// Its matching work a character, whatever its length in text: (?:.?){0,1000}
				// is 3,001 instructions.
				return Filter{}, invalidf("filters: the pattern %s compiles to %s RE2 instructions; at most %s (the limit of one pattern)",
					quote(v), stats.GroupThousands(size), stats.GroupThousands(MaxProgram))
			}
			re, err := regexp.Compile(pattern)
			if err != nil {
				return Filter{}, invalidf("filters: the pattern %s is not a valid regular expression (RE2 syntax)", quote(v))
			}
			f.Patterns = append(f.Patterns, re)
		}
	}
	if f.Positive() == Is && !f.IgnoreCase {
		var all []string
		for _, v := range f.Values {
			all = append(all, field.Stored(v)...)
		}
		sort.Strings(all)
		f.Values = slices.Compact(all)
	}
	return f, nil
}
