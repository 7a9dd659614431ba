package ingest

import (
	"context"
	"testing"
	"time"
)

// staticSalts is a SaltSource that needs no database: the same salt every day.
type staticSalts struct{}

func (staticSalts) Salts(_ context.Context, days []time.Time) (map[time.Time][]byte, error) {
	out := map[time.Time][]byte{}
	for _, d := range days {
		salt := make([]byte, 32)
		salt[0] = byte(d.Day())
		out[d] = salt
	}
	return out, nil
}

func (staticSalts) ForgetSalts(context.Context, time.Time) error { return nil }

// withVisits gives a collector made by a test its salts and visits, as NewPipeline does.
func withVisits(t testing.TB, c *Collector, timeout time.Duration) *Collector {
	t.Helper()
	c.Salts = NewSalts(staticSalts{})
	if err := c.Salts.Refresh(context.Background(), c.Today()); err != nil {
		t.Fatal(err)
	}
	c.VisitTimeout = timeout
	c.Visits = NewVisits(timeout, 1000, 100, c.Counters, nil)
	return c
}
