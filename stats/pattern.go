package stats

import "strings"

// Pattern is a compiled pattern of the goals' syntax (docs/goals.md): alternatives separated by
// `|`, each anchored at both ends, `*` any run of characters (none included), every other
// character itself. Goals, funnels and the shields (docs/shields.md) all match with it. It is
// matched without regular expressions: a prefix, a suffix and the parts between found in
// order, leftmost first, which is exact for patterns whose only wildcard is `*`, linear in the
// text for each part, and allocates nothing, so that a website's shields can match every hit
// (TestPatternAsRegexp holds it to the regular expression it replaced).
type Pattern struct {
	alts []alternative
}

// alternative is one alternative cut at its `*`s: the text before the first, the parts between
// two, and the text after the last (star false: no `*`, the text is first exactly).
type alternative struct {
	first, last string
	middle      []string
	star        bool
	least       int // the shortest text it matches
}

// CompilePattern compiles a pattern; every string is one (the rules of what a goal or a
// shield may hold are CheckGoal's and the website rules').
func CompilePattern(pattern string) *Pattern {
	alts := strings.Split(pattern, "|")
	p := &Pattern{alts: make([]alternative, len(alts))}
	for i, alt := range alts {
		parts := strings.Split(alt, "*")
		a := alternative{first: parts[0], least: len(alt) - (len(parts) - 1)}
		if n := len(parts); n > 1 {
			a.star, a.last, a.middle = true, parts[n-1], parts[1:n-1]
		}
		p.alts[i] = a
	}
	return p
}

// MatchString tells whether s matches one of the alternatives.
func (p *Pattern) MatchString(s string) bool {
	for i := range p.alts {
		if p.alts[i].match(s) {
			return true
		}
	}
	return false
}

// match: s is first, then each middle part after any run, then last after any run; without a
// star s is first exactly.
func (a *alternative) match(s string) bool {
	if !a.star {
		return s == a.first
	}
	if len(s) < a.least || s[:len(a.first)] != a.first || s[len(s)-len(a.last):] != a.last {
		return false
	}
	// The middle parts in order in what lies between; taking each leftmost leaves the most
	// room for the next, so if any placement exists this one does.
	rest := s[len(a.first) : len(s)-len(a.last)]
	for _, part := range a.middle {
		i := strings.Index(rest, part)
		if i < 0 {
			return false
		}
		rest = rest[i+len(part):]
	}
	return true
}

// Patterns are several patterns matched as one: a text matches when one of them does. Their
// alternatives are indexed by the first bytes of their fixed start (as many as indexLengths
// allows, the longest first), so that a text is compared with the few that can match it, not
// with all: a website's shields hold up to 100 patterns and are matched on every hit.
type Patterns struct {
	byStart [len(indexLengths)]map[string][]*alternative
	short   []*alternative // fixed start shorter than every index length: tried on every text
}

// indexLengths are the lengths of the starts alternatives are indexed by, longest first.
var indexLengths = [...]int{8, 3}

// CompilePatterns compiles each of the lines.
func CompilePatterns(lines []string) Patterns {
	var ps Patterns
	for _, l := range lines {
		p := CompilePattern(l)
	alternatives:
		for i := range p.alts {
			a := &p.alts[i]
			for k, n := range indexLengths {
				if len(a.first) >= n {
					if ps.byStart[k] == nil {
						ps.byStart[k] = map[string][]*alternative{}
					}
					ps.byStart[k][a.first[:n]] = append(ps.byStart[k][a.first[:n]], a)
					continue alternatives
				}
			}
			ps.short = append(ps.short, a)
		}
	}
	return ps
}

// Empty tells whether there is no pattern.
func (ps Patterns) Empty() bool {
	return len(ps.short) == 0 && len(ps.byStart[0]) == 0 && len(ps.byStart[1]) == 0
}

// MatchString tells whether one of the patterns matches s; none never matches.
func (ps Patterns) MatchString(s string) bool {
	for _, a := range ps.short {
		if a.match(s) {
			return true
		}
	}
	for k, n := range indexLengths {
		if len(s) < n || ps.byStart[k] == nil {
			continue
		}
		for _, a := range ps.byStart[k][s[:n]] {
			if a.match(s) {
				return true
			}
		}
	}
	return false
}
