package repository_test

import (
	"slices"
	"testing"

	"github.com/analytics-service/analytics/stats"
)

// Every visit-level name has its column in visit_rows: a dimension declared without its
// migration fails here, not at the first flush.
func TestVisitRowsHaveEveryDimensionsColumn(t *testing.T) {
	f := newFixture(t)
	var columns []string
	if err := f.db.Select(&columns, `SELECT column_name FROM information_schema.columns
		WHERE table_name = 'visit_rows' AND data_type = 'text' AND is_nullable = 'NO' AND column_default IS NOT NULL`); err != nil {
		t.Fatal(err)
	}
	for _, d := range stats.Dimensions {
		if !slices.Contains(columns, d.Column) {
			t.Errorf("%s: visit_rows has no column %s (text NOT NULL DEFAULT ''); it has %v", d.Name, d.Column, columns)
		}
	}
}
