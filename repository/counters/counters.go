// Package counters is the counters' writer: a flush's batch of visits written at once - the
// day membership of its visitors, the daily counters and their weekly and monthly rollups,
// the visit rows, the realtime minutes - and the jobs that keep them (rollups, partitions of
// the visit rows, salts). The analytics engine (package repository) reads what it writes.
package counters

import (
	"time"

	"github.com/jmoiron/sqlx"
)

// Repository runs the writer's statements.
type Repository struct {
	db       *sqlx.DB
	readPool *sqlx.DB // the realtime and notes reads' (UseReads); nil: db
	now      func() time.Time
	rollups  rolledUpCache
}

// Writer is the name the engine's Repository embeds the writer under.
type Writer = Repository

// New wraps an open database; now is the clock.
func New(db *sqlx.DB, now func() time.Time) *Repository {
	return &Repository{db: db, now: now}
}

const dateLayout = "2006-01-02"

// VisitRowChunk is the most rows one statement of AddVisitBatch writes.
const VisitRowChunk = visitRowChunk
