package repository_test

import (
	"context"
	"testing"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
)

// Every connection runs without parallel workers and JIT, unless the connection string says
// otherwise; both forms of connection string work.
func TestSessionSettings(t *testing.T) {
	_, url := repotest.New(t)
	ctx := context.Background()
	check := func(conn, wantWorkers, wantJIT string) {
		t.Helper()
		db, err := repository.Open(ctx, conn)
		if err != nil {
			t.Fatalf("open %s: %v", conn, err)
		}
		defer db.Close()
		var workers, jit string
		if err := db.Get(&workers, `SHOW max_parallel_workers_per_gather`); err != nil {
			t.Fatal(err)
		}
		if err := db.Get(&jit, `SHOW jit`); err != nil {
			t.Fatal(err)
		}
		if workers != wantWorkers || jit != wantJIT {
			t.Fatalf("%s: workers %s, jit %s; want %s, %s", conn, workers, jit, wantWorkers, wantJIT)
		}
	}
	check(url, "0", "off")
	check(url+" max_parallel_workers_per_gather=1", "1", "off")
}

func TestSessionSettingsInURLs(t *testing.T) {
	cases := map[string]string{
		"postgres://u@h/db":                 "postgres://u@h/db?jit=off&max_parallel_workers_per_gather=0",
		"postgresql://u@h/db?jit=on":        "postgresql://u@h/db?jit=on&max_parallel_workers_per_gather=0",
		"postgres://u@h/db?sslmode=disable": "postgres://u@h/db?jit=off&max_parallel_workers_per_gather=0&sslmode=disable",
		"host=/tmp dbname=x":                "host=/tmp dbname=x max_parallel_workers_per_gather=0 jit=off",
		"host=/tmp jit=on":                  "host=/tmp jit=on max_parallel_workers_per_gather=0",
	}
	for in, want := range cases {
		if got := repository.WithSessionSettings(in); got != want {
			t.Errorf("%s: got %s, want %s", in, got, want)
		}
	}
}
