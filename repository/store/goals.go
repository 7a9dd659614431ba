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

// ErrGoalLimit: the website has stats.MaxGoals goals already.
var ErrGoalLimit = errors.New("goal limit reached")

// goalRow is a row of goals (migration 0028).
type goalRow struct {
	ID          int64   `db:"id"`
	Kind        string  `db:"kind"`
	Page        *string `db:"page"`
	Event       *string `db:"event"`
	DisplayName string  `db:"display_name"`
	Currency    *string `db:"currency"`
}

const goalColumns = `id, kind, page, event, display_name, currency`

func (g goalRow) goal() stats.Goal {
	return stats.Goal{ID: g.ID, Kind: g.Kind, Page: deref(g.Page), Event: deref(g.Event),
		DisplayName: g.DisplayName, Currency: deref(g.Currency)}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// CreateGoal adds a goal (checked by stats.CheckGoal) to a website (the caller checked the
// role): ErrNotFound when there is no such website, ErrConflict when the display name is taken in it,
// ErrGoalLimit when it has stats.MaxGoals goals. The count and the insert run under a lock of
// the website's row, so parallel requests cannot add the 201st goal between them.
func (r *Repository) CreateGoal(ctx context.Context, websiteID int64, g stats.Goal) (stats.Goal, error) {
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return stats.Goal{}, fmt.Errorf("goals.create: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck

	// NO KEY: serialises the goals of a website without waiting for a stats flush (KEY SHARE).
	if _, err := getWebsite(ctx, tx, "goals.create", websiteID, "FOR NO KEY UPDATE"); err != nil {
		return stats.Goal{}, err
	}
	var n int
	if err := tx.GetContext(ctx, &n, `SELECT count(*) FROM goals WHERE website_id = $1`, websiteID); err != nil {
		return stats.Goal{}, fmt.Errorf("goals.create: count: %w", err)
	}
	if n >= stats.MaxGoals {
		return stats.Goal{}, fmt.Errorf("goals.create: %w", ErrGoalLimit)
	}
	const insert = `
		INSERT INTO goals (website_id, kind, page, event, display_name, currency, created_at)
		VALUES ($1, $2, NULLIF($3, ''), NULLIF($4, ''), $5, NULLIF($6, ''), $7)
		RETURNING ` + goalColumns
	var row goalRow
	err = tx.GetContext(ctx, &row, insert, websiteID, g.Kind, g.Page, g.Event, g.DisplayName, g.Currency, r.now().UTC())
	if isUniqueViolation(err) {
		return stats.Goal{}, fmt.Errorf("goals.create: %w", ErrConflict)
	}
	if err != nil {
		return stats.Goal{}, fmt.Errorf("goals.create: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return stats.Goal{}, fmt.Errorf("goals.create: commit: %w", err)
	}
	return row.goal(), nil
}

// ListGoals is one page of a website's goals, by display name (ties by id), and how many it
// has (the caller checked the role).
func (r *Repository) ListGoals(ctx context.Context, websiteID int64, limit, offset int) ([]stats.Goal, int64, error) {
	var total int64
	if err := r.db.GetContext(ctx, &total, `SELECT count(*) FROM goals WHERE website_id = $1`, websiteID); err != nil {
		return nil, 0, fmt.Errorf("goals.list: count: %w", err)
	}
	goals, err := selectGoals(ctx, r.db, websiteID, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("goals.list: %w", err)
	}
	return goals, total, nil
}

// Goals is every goal of a website, by display name (ties by id), whoever asks: the stats
// reads and pages check access first.
func (r *Repository) Goals(ctx context.Context, websiteID int64) ([]stats.Goal, error) {
	goals, err := selectGoals(ctx, r.db, websiteID, stats.MaxGoals, 0)
	if err != nil {
		return nil, fmt.Errorf("goals.all: %w", err)
	}
	return goals, nil
}

func selectGoals(ctx context.Context, q sqlx.QueryerContext, websiteID int64, limit, offset int) ([]stats.Goal, error) {
	const query = `
		SELECT ` + goalColumns + `
		FROM goals
		WHERE website_id = $1
		ORDER BY display_name, id
		LIMIT $2 OFFSET $3`
	var rows []goalRow
	if err := sqlx.SelectContext(ctx, q, &rows, query, websiteID, limit, offset); err != nil {
		return nil, err
	}
	goals := make([]stats.Goal, len(rows))
	for i, row := range rows {
		goals[i] = row.goal()
	}
	return goals, nil
}

// DeleteGoal removes a goal of a website (the caller checked the role); ErrNotFound when the
// goal is not the website's. Its funnel steps go with it (a foreign key), and
// the funnels left with fewer than 2 steps are deleted in the same transaction.
func (r *Repository) DeleteGoal(ctx context.Context, websiteID, goalID int64) error {
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("goals.delete: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck
	if err := deleteFunnelsLeftShort(ctx, tx, websiteID, goalID); err != nil {
		return fmt.Errorf("goals.delete: %w", err)
	}
	const query = `
		DELETE FROM goals
		WHERE website_id = $1 AND id = $2`
	res, err := tx.ExecContext(ctx, query, websiteID, goalID)
	if err != nil {
		return fmt.Errorf("goals.delete: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("goals.delete: %w", ErrNotFound) // the rollback keeps the funnels
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("goals.delete: commit: %w", err)
	}
	return nil
}

// EventSpellings map the event statistic's encoded names (stats.EventField) to the names as
// sent, where a ':' made them differ: of the website's event goals and of the tracker's own
// events (stats.TrackerEvents), so that the pages and the CSV write "Outbound Link: Click",
// not "Outbound Link  Click". Another name keeps its encoding, as does one that two names
// as sent share ("a:b" and "a b" both count under "a b").
func (r *Repository) EventSpellings(ctx context.Context, websiteID int64) (map[string]string, error) {
	var names []string
	if err := r.db.SelectContext(ctx, &names, `SELECT event FROM goals WHERE website_id = $1 AND kind = 'event' ORDER BY id`, websiteID); err != nil {
		return nil, fmt.Errorf("goals.event_spellings: %w", err)
	}
	names = append(slices.Clone(stats.TrackerEvents), names...)
	out := map[string]string{}
	for _, n := range names {
		if encoded := stats.EventField(n); encoded != n {
			out[encoded] = n
		}
	}
	for _, n := range names {
		if _, ok := out[n]; ok {
			delete(out, n) // a name as sent is its own encoding too: which one counted is unknown
		}
	}
	return out, nil
}

// GoalByName is the website's goal of that display name; ok is false when there is none.
func (r *Repository) GoalByName(ctx context.Context, websiteID int64, name string) (stats.Goal, bool, error) {
	const query = `SELECT ` + goalColumns + ` FROM goals WHERE website_id = $1 AND display_name = $2`
	var row goalRow
	err := r.db.GetContext(ctx, &row, query, websiteID, name)
	if errors.Is(err, sql.ErrNoRows) {
		return stats.Goal{}, false, nil
	}
	if err != nil {
		return stats.Goal{}, false, fmt.Errorf("goals.by_name: %w", err)
	}
	return row.goal(), true, nil
}

// GoalsByID are the website's goals of the ids, by id; an id that is none of them is absent.
func (r *Repository) GoalsByID(ctx context.Context, websiteID int64, ids []int64) (map[int64]stats.Goal, error) {
	var rows []goalRow
	const query = `SELECT ` + goalColumns + ` FROM goals WHERE website_id = $1 AND id = ANY($2)`
	if err := r.db.SelectContext(ctx, &rows, query, websiteID, pq.Array(ids)); err != nil {
		return nil, fmt.Errorf("goals.by_id: %w", err)
	}
	out := make(map[int64]stats.Goal, len(rows))
	for _, row := range rows {
		out[row.ID] = row.goal()
	}
	return out, nil
}
