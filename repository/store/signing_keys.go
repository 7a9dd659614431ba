package store

import (
	"context"
	"fmt"
)

// SigningKey returns the service's secret key for one purpose ("grant", "unsubscribe"),
// creating a random one on first use. Concurrent first uses on several nodes agree: the
// insert of all but one does nothing, and every caller then reads the one stored key.
func (r *Repository) SigningKey(ctx context.Context, purpose string) ([]byte, error) {
	const insert = `
		INSERT INTO signing_keys (purpose, key)
		VALUES ($1, $2)
		ON CONFLICT (purpose) DO NOTHING`
	if _, err := r.db.ExecContext(ctx, insert, purpose, randomBytes(32)); err != nil {
		return nil, fmt.Errorf("signing_keys.get: %w", err)
	}
	// A separate statement: it sees a row another node committed while the insert waited.
	const query = `
		SELECT key
		FROM signing_keys
		WHERE purpose = $1`
	var key []byte
	if err := r.db.GetContext(ctx, &key, query, purpose); err != nil {
		return nil, fmt.Errorf("signing_keys.get: %w", err)
	}
	return key, nil
}
