package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/analytics-service/analytics/stats"
)

// Funnels (migration 0041, docs/funnels.md): a name and 2 to 8 of the website's goals in order.

var (
	// ErrFunnelLimit: the website has stats.MaxFunnels funnels already.
	ErrFunnelLimit = errors.New("funnel limit reached")
	// ErrUnknownGoal: a step is not one of the website's goals.
	ErrUnknownGoal = errors.New("not one of the website's goals")
)

// insertFunnelSteps writes a funnel's steps ($3, goal ids in order) at positions 1, 2, ...
const insertFunnelSteps = `
	INSERT INTO funnel_steps (website_id, funnel_id, position, goal_id)
	SELECT $1, $2, s.position, s.goal_id FROM unnest($3::bigint[]) WITH ORDINALITY AS s (goal_id, position)`

// CreateFunnel adds a funnel (checked by stats.CheckFunnel) to a website (the caller checked
// the role): ErrNotFound when there is no such website, ErrUnknownGoal when a step is not one of its
// goals, ErrConflict when the name is taken in it, ErrFunnelLimit when it has stats.MaxFunnels
// funnels. The count and the inserts run in one transaction under a lock of the website's row,
// so parallel requests cannot add the 51st funnel between them, and a refusal writes nothing.
func (r *Repository) CreateFunnel(ctx context.Context, websiteID int64, name string, steps []int64) (stats.Funnel, error) {
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return stats.Funnel{}, fmt.Errorf("funnels.create: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck

	// NO KEY: serialises the funnels of a website without waiting for a stats flush (KEY SHARE).
	if _, err := getWebsite(ctx, tx, "funnels.create", websiteID, "FOR NO KEY UPDATE"); err != nil {
		return stats.Funnel{}, err
	}
	var n int
	if err := tx.GetContext(ctx, &n, `SELECT count(*) FROM funnels WHERE website_id = $1`, websiteID); err != nil {
		return stats.Funnel{}, fmt.Errorf("funnels.create: count: %w", err)
	}
	if n >= stats.MaxFunnels {
		return stats.Funnel{}, fmt.Errorf("funnels.create: %w", ErrFunnelLimit)
	}
	var known int
	if err := tx.GetContext(ctx, &known, `SELECT count(*) FROM goals WHERE website_id = $1 AND id = ANY($2)`, websiteID, pq.Array(steps)); err != nil {
		return stats.Funnel{}, fmt.Errorf("funnels.create: goals: %w", err)
	}
	if known != len(steps) {
		return stats.Funnel{}, fmt.Errorf("funnels.create: %w", ErrUnknownGoal)
	}
	var id int64
	err = tx.GetContext(ctx, &id, `INSERT INTO funnels (website_id, name, created_at) VALUES ($1, $2, $3) RETURNING id`,
		websiteID, name, r.now().UTC())
	if isUniqueViolation(err) {
		return stats.Funnel{}, fmt.Errorf("funnels.create: %w", ErrConflict)
	}
	if err != nil {
		return stats.Funnel{}, fmt.Errorf("funnels.create: %w", err)
	}
	if _, err := tx.ExecContext(ctx, insertFunnelSteps, websiteID, id, pq.Array(steps)); err != nil {
		return stats.Funnel{}, fmt.Errorf("funnels.create: steps: %w", err)
	}
	funnels, err := selectFunnels(ctx, tx, websiteID, id, 1, 0)
	if err != nil || len(funnels) != 1 {
		return stats.Funnel{}, fmt.Errorf("funnels.create: read back: %d funnels (%w)", len(funnels), err)
	}
	if err := tx.Commit(); err != nil {
		return stats.Funnel{}, fmt.Errorf("funnels.create: commit: %w", err)
	}
	return funnels[0], nil
}

// ListFunnels is one page of a website's funnels, by name (ties by id), and how many it has
// (the caller checked the role).
func (r *Repository) ListFunnels(ctx context.Context, websiteID int64, limit, offset int) ([]stats.Funnel, int64, error) {
	var total int64
	if err := r.db.GetContext(ctx, &total, `SELECT count(*) FROM funnels WHERE website_id = $1`, websiteID); err != nil {
		return nil, 0, fmt.Errorf("funnels.list: count: %w", err)
	}
	funnels, err := selectFunnels(ctx, r.db, websiteID, 0, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("funnels.list: %w", err)
	}
	return funnels, total, nil
}

// Funnels is every funnel of a website, by name, whoever asks: the pages check access first.
func (r *Repository) Funnels(ctx context.Context, websiteID int64) ([]stats.Funnel, error) {
	funnels, err := selectFunnels(ctx, r.db, websiteID, 0, stats.MaxFunnels, 0)
	if err != nil {
		return nil, fmt.Errorf("funnels.all: %w", err)
	}
	return funnels, nil
}

// Funnel is one funnel of a website, whoever asks; ErrNotFound when the website has none of
// that id.
func (r *Repository) Funnel(ctx context.Context, websiteID, funnelID int64) (stats.Funnel, error) {
	funnels, err := selectFunnels(ctx, r.db, websiteID, funnelID, 1, 0)
	if err != nil {
		return stats.Funnel{}, fmt.Errorf("funnels.show: %w", err)
	}
	if len(funnels) == 0 {
		return stats.Funnel{}, fmt.Errorf("funnels.show: %w", ErrNotFound)
	}
	return funnels[0], nil
}

// selectFunnels reads a page of a website's funnels (only funnelID's when not 0) with their
// steps in order.
func selectFunnels(ctx context.Context, q sqlx.QueryerContext, websiteID, funnelID int64, limit, offset int) ([]stats.Funnel, error) {
	const query = `
		SELECT f.id, f.name, s.goal_id, g.display_name
		FROM (
			SELECT id, name FROM funnels
			WHERE website_id = $1 AND ($2 = 0 OR id = $2)
			ORDER BY name, id LIMIT $3 OFFSET $4
		) AS f
		JOIN funnel_steps s ON s.website_id = $1 AND s.funnel_id = f.id
		JOIN goals g ON g.website_id = $1 AND g.id = s.goal_id
		ORDER BY f.name, f.id, s.position`
	var rows []struct {
		ID          int64  `db:"id"`
		Name        string `db:"name"`
		GoalID      int64  `db:"goal_id"`
		DisplayName string `db:"display_name"`
	}
	if err := sqlx.SelectContext(ctx, q, &rows, query, websiteID, funnelID, limit, offset); err != nil {
		return nil, err
	}
	var out []stats.Funnel
	for _, row := range rows {
		if len(out) == 0 || out[len(out)-1].ID != row.ID {
			out = append(out, stats.Funnel{ID: row.ID, Name: row.Name})
		}
		f := &out[len(out)-1]
		f.Steps = append(f.Steps, stats.FunnelStep{GoalID: row.GoalID, DisplayName: row.DisplayName})
	}
	return out, nil
}

// DeleteFunnel removes a funnel of a website (the caller checked the role); ErrNotFound when
// the funnel is not the website's. Its goals stay.
func (r *Repository) DeleteFunnel(ctx context.Context, websiteID, funnelID int64) error {
	const query = `DELETE FROM funnels WHERE website_id = $1 AND id = $2`
	res, err := r.db.ExecContext(ctx, query, websiteID, funnelID)
	if err != nil {
		return fmt.Errorf("funnels.delete: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("funnels.delete: %w", ErrNotFound)
	}
	return nil
}

// deleteFunnelsLeftShort deletes the funnels that deleting a goal would leave with fewer than
// stats.MinFunnelSteps steps, in the goal deletion's transaction, before it.
func deleteFunnelsLeftShort(ctx context.Context, tx *sqlx.Tx, websiteID, goalID int64) error {
	const query = `
		DELETE FROM funnels
		WHERE website_id = $1 AND id IN (
			SELECT funnel_id FROM funnel_steps
			WHERE website_id = $1
			GROUP BY funnel_id
			HAVING bool_or(goal_id = $2) AND count(*) FILTER (WHERE goal_id <> $2) < $3)`
	if _, err := tx.ExecContext(ctx, query, websiteID, goalID, stats.MinFunnelSteps); err != nil {
		return fmt.Errorf("funnels left short: %w", err)
	}
	return nil
}

// ReorderFunnel gives a funnel of a website its steps in a new order (the caller checked the
// role): the same goals, each once (ErrUnknownGoal otherwise); ErrNotFound when the funnel is
// not the website's. The steps are rewritten in one transaction.
func (r *Repository) ReorderFunnel(ctx context.Context, websiteID, funnelID int64, steps []int64) error {
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("funnels.reorder: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck
	const lock = `
		SELECT id FROM funnels
		WHERE website_id = $1 AND id = $2
		FOR UPDATE`
	var id int64
	if err := tx.GetContext(ctx, &id, lock, websiteID, funnelID); errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("funnels.reorder: %w", ErrNotFound)
	} else if err != nil {
		return fmt.Errorf("funnels.reorder: %w", err)
	}
	var current []int64
	if err := tx.SelectContext(ctx, &current, `SELECT goal_id FROM funnel_steps WHERE website_id = $1 AND funnel_id = $2 ORDER BY goal_id`, websiteID, funnelID); err != nil {
		return fmt.Errorf("funnels.reorder: %w", err)
	}
	sorted := slices.Clone(steps)
	slices.Sort(sorted)
	if !slices.Equal(sorted, current) {
		return fmt.Errorf("funnels.reorder: %w", ErrUnknownGoal)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM funnel_steps WHERE website_id = $1 AND funnel_id = $2`, websiteID, funnelID); err != nil {
		return fmt.Errorf("funnels.reorder: %w", err)
	}
	if _, err := tx.ExecContext(ctx, insertFunnelSteps, websiteID, funnelID, pq.Array(steps)); err != nil {
		return fmt.Errorf("funnels.reorder: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("funnels.reorder: commit: %w", err)
	}
	return nil
}
