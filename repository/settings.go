package repository

import (
	"context"
	"database/sql"

	"github.com/jmoiron/sqlx"

	"github.com/analytics-service/analytics/repository/pgsettings"
)

// readRows runs a read of the visit rows in a read-only transaction of pgsettings.Read, on the
// reads' pool (under its statement timeout).
func (r *Repository) readRows(ctx context.Context, read func(tx *sqlx.Tx) error) error {
	tx, err := r.reads.BeginTxx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, pgsettings.ReadSQL); err != nil {
		return err
	}
	if err := read(tx); err != nil {
		return err
	}
	return tx.Commit()
}
