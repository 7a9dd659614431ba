package repository

import (
	"slices"
	"testing"
	"time"
)

// SplitRange and Segment expose splitRange to the external tests: weeks and months are the
// last week (its Monday) and month (its 1st) rolled up.
type Segment struct {
	Table    string
	From, To time.Time
}

func SplitRange(from, to, weeks, months time.Time) []Segment {
	var out []Segment
	for _, s := range splitRange(from, to, RolledUp{Weeks: weeks, Months: months}) {
		out = append(out, Segment{Table: s.table, From: s.from, To: s.to})
	}
	return out
}

var WithSessionSettings = withSessionSettings

// VisitRowChunk is the most rows one statement of AddVisitBatch writes.
const VisitRowChunk = visitRowChunk

// AddRollup makes the stats writer also add to a rollup the test declares (its table, period
// column, truncation of a day, rollup_state column and length in months), until the test ends:
// what a new rollup takes of the writer. Not for parallel tests.
func AddRollup(tb testing.TB, table, period, periodOf, through string, months int) {
	saved := addStatsSQL
	addStatsSQL = addStatsStatement(append(slices.Clone(countTables), countTable{table: table, cte: table,
		period: period, periodOf: periodOf, through: through, months: months}))
	tb.Cleanup(func() { addStatsSQL = saved })
}
