package handlers_test

import (
	"sort"
	"testing"
	"time"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/handlers/spectest"
	"github.com/analytics-service/analytics/testkit/harness"
)

// liveServer is the whole service, the collection endpoint and its flusher included, on a real
// listener and a fresh database, for the generated clients. When the test ends each response is
// checked against openapi.yaml (testkit/harness records them).
type liveServer struct {
	*harness.Env
	URL string
	Key string // an API key of the user a@example.com
	Day string // the day (YYYY-MM-DD) on which hits are counted
}

func newLiveServer(t *testing.T) *liveServer {
	t.Helper()
	// Pinned, so that a run across midnight still counts every hit on one day.
	start := time.Now().UTC()
	e := harness.New(t, harness.At(start), harness.Started(), harness.Config(app.Config{
		FlushInterval: 20 * time.Millisecond,
		BufferMaxKeys: 10_000,
	}))
	return &liveServer{Env: e, URL: e.Server.URL, Key: e.User("a@example.com").Key, Day: start.Format(time.DateOnly)}
}

// requireEveryOperation fails unless the clients called every operation of the spec, with the
// statuses given at least once each across all operations.
func (s *liveServer) requireEveryOperation(t *testing.T, statuses ...int) {
	t.Helper()
	called := map[string]bool{}
	seen := map[int]bool{}
	for _, x := range s.Exchanges() {
		called[spectest.OperationID(t, x.Method, x.Target)] = true
		seen[x.Status] = true
	}
	var missing []string
	for _, id := range spectest.OperationIDs(t) {
		if !called[id] {
			missing = append(missing, id)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("operations never called: %v", missing)
	}
	for _, status := range statuses {
		if !seen[status] {
			t.Errorf("no response with status %d", status)
		}
	}
}
