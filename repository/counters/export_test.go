package counters

import (
	"context"
	"slices"

	"github.com/jmoiron/sqlx"
)

// AddStatsWithRollup adds counts in tx as the stats writer does (addStats, uncapped), writing
// also a rollup the test declares (its table, period column, truncation of a day,
// rollup_state column and length in months): what a new rollup takes of the writer.
func AddStatsWithRollup(ctx context.Context, tx *sqlx.Tx, counts []StatCount, table, period, periodOf, through string, months int) error {
	statement := addStatsStatement(append(slices.Clone(countTables), countTable{table: table, cte: table,
		period: period, periodOf: periodOf, through: through, months: months}))
	_, err := addStatsBy(ctx, tx, statement, counts, DefaultMaxValuesPerDay)
	return err
}
