package repository_test

import (
	"context"
	mathrand "math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
)

// page_spelling (SQL, migration 0024) and stats.PagePath (Go) spell every page alike: the
// migration respells old rows exactly as collection and imports spell new ones.
func TestPageSpellingTwins(t *testing.T) {
	db, _ := repotest.New(t)
	cases := []string{"/", "/über-uns", "/%C3%BCber-uns", "/%c3%bc", "/caf%C3%A9?q=%E6%97%A5", "/%F0%9F%98%80", "/%7E%41%2d",
		"/a%2Fb%3Fc%23d%25e%26%3d%2b", "/a%20b%22%3C%00%7F%0A", "/%C3", "/%C3%28", "/%ff%fe", "/%C0%AF", "/%ED%A0%80",
		"/%E0%80%80", "/%F4%90%80%80", "/%F0%8F%BF%BF", "/%E2%80%AE", "/%E2%80%8B%C2%A0%C2%AD", "/%EF%BF%BD%EF%BB%BF",
		"/%F3%A0%80%81", "/100%", "/%zz%4", "/%C3%BC%", "/%%34%31", "/%", "/ü%C3%BC%E2%82%AC", "/%E1%85%9F%E3%85%A4"}
	// And random ones: runs of escapes of bytes that are or are not UTF-8, letters, percents.
	rng := mathrand.New(mathrand.NewPCG(24, 4))
	pieces := []string{"%C3", "%BC", "%A9", "%E2", "%80", "%AE", "%8B", "%F0", "%9F", "%98", "%2F", "%41", "%7e", "%", "a", "ü", "/", "%e2", "%82", "%ac", "%C2", "%A0", "%ED", "%BF"}
	for range 2000 {
		var b strings.Builder
		for range 1 + rng.IntN(8) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		cases = append(cases, b.String())
	}
	var got []string
	if err := db.Select(&got, `SELECT page_spelling(s) FROM unnest($1::text[]) WITH ORDINALITY AS u (s, o) ORDER BY o`, cases); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		if want := stats.PagePath(c); got[i] != want {
			t.Errorf("%q: SQL %q, Go %q", c, got[i], want)
		}
	}
}

// Rows written in the old spelling (escaped, as collection wrote them; decoded, as a
// phpAnalytics import did) are merged by migration 0024 into one row per page, counts summed,
// in the daily, weekly and monthly counters, the distinct-value counts and the visits' rows.
func TestPageSpellingMigrationMergesRows(t *testing.T) {
	db, _ := repotest.New(t)
	repo := repository.New(db, nil)
	ctx := context.Background()
	user, err := repo.CreateUser(ctx, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	site, err := repo.CreateWebsite(ctx, user.ID, repository.NewWebsite{Domain: "example.com"})
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	old := map[string]int64{"/%C3%BCber-uns": 5, "/%c3%bcber-uns": 1, "/über-uns": 2, "/a%2Fb": 3, "/plain": 4}
	var counts []repository.StatCount
	for value, n := range old {
		counts = append(counts, repository.StatCount{WebsiteID: site.ID, Name: string(stats.Page), Date: day, Value: value, Count: n},
			repository.StatCount{WebsiteID: site.ID, Name: string(stats.LandingPage), Date: day, Value: value, Count: n})
	}
	// Written directly, as an older version's flush left them: the writer of today would not
	// let these spellings in through collection, but the table takes any value.
	for _, c := range counts {
		for _, q := range []string{
			`INSERT INTO stats (website_id, name, date, value, count) VALUES ($1, $2, $3, $4, $5)`,
			`INSERT INTO stats_weekly (website_id, name, week, value, count) VALUES ($1, $2, date_trunc('week', $3::date)::date, $4, $5)`,
			`INSERT INTO stats_monthly (website_id, name, month, value, count) VALUES ($1, $2, date_trunc('month', $3::date)::date, $4, $5)`,
		} {
			db.MustExec(q, c.WebsiteID, c.Name, c.Date, c.Value, c.Count)
		}
	}
	db.MustExec(`INSERT INTO stats_value_counts (website_id, name, date, value_count) VALUES ($1, 'page', $2, 5), ($1, 'landing_page', $2, 5)`, site.ID, day)
	if err := repo.EnsureVisitRowPartitions(ctx, day, day); err != nil {
		t.Fatal(err)
	}
	db.MustExec(`INSERT INTO visit_rows (website_id, day, visitor, id, hour, pageviews, landing_page, exit_page, pages)
		VALUES ($1, $2, 1, 1, 10, 3, '/%C3%BCber-uns', '/a%2fb', '{/%C3%BCber-uns,/plain,/a%2fb}')`, site.ID, day)

	db.MustExec(repository.MigrationSQL("0024_page_spelling.sql"))

	want := "/a%2Fb=3 /plain=4 /über-uns=8"
	for _, table := range []string{"stats", "stats_weekly", "stats_monthly"} {
		for _, name := range []string{"page", "landing_page"} {
			var rows []string
			if err := db.Select(&rows, `SELECT value || '=' || count FROM `+table+` WHERE website_id = $1 AND name = $2 ORDER BY value`, site.ID, name); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(rows, " "); got != want {
				t.Errorf("%s %s: %s, want %s", table, name, got, want)
			}
		}
	}
	var valueCounts []int
	if err := db.Select(&valueCounts, `SELECT value_count FROM stats_value_counts WHERE website_id = $1 ORDER BY name`, site.ID); err != nil {
		t.Fatal(err)
	}
	if len(valueCounts) != 2 || valueCounts[0] != 3 || valueCounts[1] != 3 {
		t.Errorf("distinct values a day %v, want [3 3]", valueCounts)
	}
	var row string
	if err := db.Get(&row, `SELECT landing_page || ' ' || exit_page || ' ' || array_to_string(pages, ',') FROM visit_rows WHERE website_id = $1`, site.ID); err != nil {
		t.Fatal(err)
	}
	if row != "/über-uns /a%2Fb /über-uns,/plain,/a%2Fb" {
		t.Errorf("visit row %q", row)
	}
}
