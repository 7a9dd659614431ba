package counters

import (
	"slices"
	"testing"
)

// AddRollup makes the stats writer also add to a rollup the test declares (its table, period
// column, truncation of a day, rollup_state column and length in months), until the test ends:
// what a new rollup takes of the writer. Not for parallel tests.
func AddRollup(tb testing.TB, table, period, periodOf, through string, months int) {
	saved := addStatsSQL
	addStatsSQL = addStatsStatement(append(slices.Clone(countTables), countTable{table: table, cte: table,
		period: period, periodOf: periodOf, through: through, months: months}))
	tb.Cleanup(func() { addStatsSQL = saved })
}
