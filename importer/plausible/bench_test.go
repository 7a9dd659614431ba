package plausible_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/analytics-service/analytics/importer/plausible"
	"github.com/analytics-service/analytics/importer/plausible/plausibletest"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
)

// BenchmarkImport imports ten years of the sample export (39 rows a day, 142,350 rows) into a
// new website each time, and reports rows per second.
func BenchmarkImport(b *testing.B) {
	ctx := context.Background()
	db, _ := repotest.New(b)
	repo := repository.New(db, nil)
	user, err := repo.CreateUser(ctx, "owner@site.test")
	if err != nil {
		b.Fatal(err)
	}
	zip := plausibletest.Sample(first, 3650).Zip()
	var rows int64
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		w, err := repo.CreateWebsite(ctx, user.ID, repository.NewWebsite{Domain: fmt.Sprintf("bench%d.test", i)})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		sum, err := plausible.Import(ctx, repo, plausible.Website{ID: w.ID, Domain: w.Domain}, bytes.NewReader(zip), int64(len(zip)), plausible.Options{})
		if err != nil {
			b.Fatal(err)
		}
		rows += sum.Rows
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(len(zip))/1e6, "zip-MB")
}
