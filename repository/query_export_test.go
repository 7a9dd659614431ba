package repository

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"
)

// SetMaxRepeats sets how many visitor-days of several visits r's query engine passes as a
// list (past it, it joins them), for the tests of both ways; it returns the way back.
func (r *Repository) SetMaxRepeats(n int) (restore func()) {
	old := r.maxRepeats
	r.maxRepeats = n
	return func() { r.maxRepeats = old }
}

// RepeatedVisitorDays reads, in a transaction of db, the visitor-days of a website's range
// with several visits as the query engine does (repeatKey numbers), and the transaction's
// enable_hashagg setting afterwards.
func RepeatedVisitorDays(ctx context.Context, db *sqlx.DB, websiteID int64, from, to time.Time) (keys []int64, hashagg string, err error) {
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return nil, "", err
	}
	defer tx.Rollback()
	base := `website_id = $1 AND day BETWEEN $2 AND $3`
	if keys, err = repeatedVisitorDays(ctx, tx, base, []any{websiteID, from, to}); err != nil {
		return nil, "", err
	}
	err = tx.GetContext(ctx, &hashagg, `SELECT current_setting('enable_hashagg')`)
	return keys, hashagg, err
}
