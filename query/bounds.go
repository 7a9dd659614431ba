package query

import (
	"regexp/syntax"
	"strings"

	"github.com/analytics-service/analytics/stats"
)

// What one query may cost, checked before it runs (docs/query.md, "What it refuses"). Every
// filter is a condition of the statement on every row of the range; every contains value is
// compared with every value of those rows (PostgreSQL's LIKE: a body of 480 contains filters
// ran 131 s); every matches pattern runs in Go over the distinct values of the range, and its
// work grows with its compiled program and the value's length (about 5 ns an instruction a
// character: a pattern of 54,000 instructions took 64 s of CPU over a month's 1,001 pages);
// every bucket of a time dimension is a row of the answer or a time label (a thousand years of
// hours was 8.8 million labels, 2.4 GB). Each bound is refused with a 400 that names it.
const (
	MaxFilters        = 30   // filters (leaves) of the whole tree
	MaxValues         = 1000 // values of all filters together
	MaxContainsValues = 20   // contains and contains_not values of all filters together
	MaxProgram        = 1000 // RE2 instructions of one matches pattern
	MaxPrograms       = 4000 // RE2 instructions of all matches patterns together
	// MaxBuckets is the most buckets of a time dimension (stats.MaxBuckets: as v1's time series).
	MaxBuckets = stats.MaxBuckets
)

// checkText refuses the NUL character, which no stored value holds and PostgreSQL refuses in
// any text it is sent.
func checkText(what, s string) error {
	if strings.ContainsRune(s, 0) {
		return invalidf("%s must not hold the character U+0000 (NUL)", what)
	}
	return nil
}

// CheckSiteID refuses a site_id that no website can have, before it is looked up.
func CheckSiteID(id string) error {
	if id == "" {
		return invalidf("site_id is required")
	}
	return checkText("site_id", id)
}

// programSize is the number of instructions of pattern's RE2 program, as package regexp
// compiles it: what matching it costs a character.
func programSize(pattern string) (int, error) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return 0, err
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return 0, err
	}
	return len(prog.Inst), nil
}

// filterCost is what the filters of a query add up to (their number is bounded as they are
// read: parseFilter).
type filterCost struct {
	values, contains, program int
}

func (c *filterCost) add(f Filter) {
	for _, child := range f.Children {
		c.add(child)
	}
	if len(f.Children) > 0 {
		return
	}
	c.values += len(f.Values)
	switch f.Positive() {
	case Contains:
		c.contains += len(f.Values)
	case Matches:
		for _, p := range f.Patterns {
			n, _ := programSize(p.String()) // compiled already: it parses
			c.program += n
		}
	}
}

// checkCost refuses filters whose whole is past one of the bounds.
func checkCost(filters []Filter) error {
	var c filterCost
	for _, f := range filters {
		c.add(f)
	}
	switch {
	case c.values > MaxValues:
		return invalidf("filters: %s values; at most %s in all the filters of one query (the limit of one query)",
			stats.GroupThousands(c.values), stats.GroupThousands(MaxValues))
	case c.contains > MaxContainsValues:
		return invalidf("filters: %d values of contains and contains_not; at most %d in one query, as each is compared with every value of every visit of the range (the limit of one query)",
			c.contains, MaxContainsValues)
	case c.program > MaxPrograms:
		return invalidf("filters: the matches patterns compile to %s RE2 instructions in all; at most %s in one query (the limit of one query)",
			stats.GroupThousands(c.program), stats.GroupThousands(MaxPrograms))
	}
	return nil
}

// checkBuckets refuses a time dimension of more than MaxBuckets buckets over the range.
func (q *Query) checkBuckets() error {
	i := q.TimeIndex()
	if i < 0 {
		return nil
	}
	if n := q.Range.buckets(q.TimeUnit()); n > MaxBuckets {
		return invalidf("dimensions: %s over this date_range is %s buckets; at most %s in one answer (the limit of one query): ask for a shorter date_range or a longer time unit",
			q.Dimensions[i].Name, stats.GroupThousands(n), stats.GroupThousands(MaxBuckets))
	}
	return nil
}

// buckets is the number of buckets of unit over the range: the rows a time dimension can
// answer, and its time labels (repository.QueryTimeLabels).
func (r Range) buckets(unit TimeUnit) int {
	days := r.Days().Days()
	switch unit {
	case Hour:
		return days*24 - r.FromHour - (23 - r.ToHour)
	case Week:
		weeks := stats.Range{From: stats.WeekStart(r.From), To: stats.WeekStart(r.To)}
		return (weeks.Days()-1)/7 + 1
	case Month:
		return stats.Months(r.Days())
	}
	return days
}
