package handlers_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/testkit/harness"
)

func day(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

// statsEnv is a user with one website and some stats.
func statsEnv(t *testing.T, counts []repository.StatCount) (*env, string, int64) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	id := int64(e.store(key, "domain", "example.com")["id"].(float64))
	for i := range counts {
		counts[i].WebsiteID = id
	}
	if _, err := e.Repo.AddVisitBatch(context.Background(), repository.VisitBatch{ID: uuid.NewString(), Counts: counts}, 0); err != nil {
		t.Fatal(err)
	}
	return e, key, id
}

func entries(body map[string]any) string {
	var out []string
	for _, d := range body["data"].([]any) {
		m := d.(map[string]any)
		out = append(out, fmt.Sprintf("%s=%v", m["value"], m["count"]))
	}
	return strings.Join(out, " ")
}

func TestStatsSumOverRange(t *testing.T) {
	c := func(name, date, value string, n int64) repository.StatCount {
		return repository.StatCount{Name: name, Date: day(date), Value: value, Count: n}
	}
	e, key, id := statsEnv(t, []repository.StatCount{
		c("page", "2026-01-01", "/", 5),
		c("page", "2026-01-01", "/a", 2),
		c("page", "2026-01-03", "/", 1), // 2026-01-02 is a gap
		c("page", "2026-01-03", "/b", 7),
		c("page", "2026-01-04", "/a", 1),
		c("page", "2026-01-04", "/a", 2), // added twice in one write: sums
		c("page", "2026-02-10", "/", 100),
		c("referrer", "2026-01-01", "", 9),
		c("referrer", "2026-01-01", "google.com", 3),
		c("pageview", "2026-01-01", "2026-01-01", 7),
		c("pageview", "2026-01-03", "2026-01-03", 8),
		c("event", "2026-01-03", "Purchase:5:USD", 2),
	})
	cases := []struct{ query, want string }{
		{"name=page&from=2026-01-01&to=2026-01-31", "/b=7 /=6 /a=5"},
		{"name=page&from=2026-01-02&to=2026-01-02", ""},
		{"name=page&from=2026-01-01&to=2026-01-01", "/=5 /a=2"},
		{"name=page&from=2026-01-01&to=2026-12-31", "/=106 /b=7 /a=5"},
		{"name=page&from=2025-12-01&to=2026-02-28", "/=106 /b=7 /a=5"},
		{"name=page&from=2026-02-01&to=2026-02-28", "/=100"},
		{"name=page&from=2026-01-04&to=2026-02-09", "/a=3"},
		{"name=referrer&from=2026-01-01&to=2026-01-01", "=9 google.com=3"},
		{"name=pageview&from=2026-01-01&to=2026-01-31&sort_by=value&sort=asc", "2026-01-01=7 2026-01-03=8"},
		{"name=event&from=2026-01-01&to=2026-01-31", "Purchase:5:USD=2"},
		{"name=visitor&from=2026-01-01&to=2026-01-31", ""},
		{"name=city&from=2026-01-01&to=2026-01-31", ""},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			res := e.in(t).Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d?%s", id, tc.query), Key: key})
			body := want(t, res, 200)
			if got := entries(body); got != tc.want {
				t.Fatalf("got  %q\nwant %q", got, tc.want)
			}
			if total := body["meta"].(map[string]any)["total"]; total != float64(len(body["data"].([]any))) {
				t.Fatalf("total %v for %d entries", total, len(body["data"].([]any)))
			}
		})
	}
	// Counts are JSON integers.
	res := e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d?name=page&from=2026-01-01&to=2026-12-31", id), Key: key})
	if !strings.Contains(string(res.Body), `"count":106`) {
		t.Fatalf("count not a plain integer: %s", res.Body)
	}
}

func TestStatsSortTiesAndSearch(t *testing.T) {
	var counts []repository.StatCount
	for value, n := range map[string]int64{"b": 3, "a": 3, "c": 5, "d": 1, "A_B": 2, "a%b": 2, "xaby": 2, `x\y`: 4} {
		counts = append(counts, repository.StatCount{Name: "page", Date: day("2026-05-05"), Value: value, Count: n})
	}
	e, key, id := statsEnv(t, counts)
	cases := []struct{ query, want string }{
		{"", `c=5 x\y=4 a=3 b=3 A_B=2 a%b=2 xaby=2 d=1`},
		{"sort=desc&sort_by=count", `c=5 x\y=4 a=3 b=3 A_B=2 a%b=2 xaby=2 d=1`},
		{"sort=asc", `d=1 A_B=2 a%b=2 xaby=2 a=3 b=3 x\y=4 c=5`},
		{"sort_by=value&sort=asc", `A_B=2 a=3 a%b=2 b=3 c=5 d=1 x\y=4 xaby=2`},
		{"sort_by=value", `xaby=2 x\y=4 d=1 c=5 b=3 a%b=2 a=3 A_B=2`},
		{"search=a_b", "A_B=2"},
		{"search=A%25B", "a%b=2"},
		{"search=ab", "xaby=2"},
		{"search=" + url.QueryEscape(`\`), `x\y=4`},
		{"search=B&search_by=value&sort_by=value&sort=asc", "A_B=2 a%b=2 b=3 xaby=2"},
		{"search=zzz", ""},
		{"per_page=10&page=2", ""},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			path := fmt.Sprintf("/api/v1/stats/%d?name=page&from=2026-05-01&to=2026-05-31&%s", id, tc.query)
			body := want(t, e.in(t).Do(harness.Request{Path: path, Key: key}), 200)
			if got := entries(body); got != tc.want {
				t.Fatalf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
	// Past the end: no data, the right total, from/to null.
	body := want(t, e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d?name=page&from=2026-05-01&to=2026-05-31&per_page=10&page=3", id), Key: key}), 200)
	meta := body["meta"].(map[string]any)
	if meta["total"] != 8.0 || meta["from"] != nil || meta["to"] != nil || meta["last_page"] != 1.0 {
		t.Fatalf("meta past the end: %v", meta)
	}
}

func TestStatsRefusesBadParameters(t *testing.T) {
	e, key, id := statsEnv(t, nil)
	base := "name=page&from=2026-01-01&to=2026-01-31"
	cases := []struct{ query, field string }{
		{"from=2026-01-01&to=2026-01-31", "name"},
		{"name=&from=2026-01-01&to=2026-01-31", "name"},
		{"name=pages&from=2026-01-01&to=2026-01-31", "name"},
		{"name=Page&from=2026-01-01&to=2026-01-31", "name"},
		{"name=page&to=2026-01-31", "from"},
		{"name=page&from=2026-01-01", "to"},
		{"name=page&from=2026-02-30&to=2026-03-01", "from"},
		{"name=page&from=0000-01-01&to=0000-01-10", "from"},
		{"name=page&from=0001-01-01&to=0000-01-10", "to"},
		{"name=page&from=2026-1-1&to=2026-03-01", "from"},
		{"name=page&from=01/01/2026&to=2026-03-01", "from"},
		{"name=page&from=2026-01-01T00:00:00Z&to=2026-03-01", "from"},
		{"name=page&from=2026-01-01&to=2026-13-01", "to"},
		{"name=page&from=2026-02-01&to=2026-01-31", "to"},
		{base + "&sort_by=name", "sort_by"},
		{base + "&sort=random", "sort"},
		{base + "&search_by=domain", "search_by"},
		{base + "&per_page=20", "per_page"},
		{base + "&page=0", "page"},
		{base + "&search=" + strings.Repeat("s", 256), "search"},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			wantField(t, e.in(t).Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d?%s", id, tc.query), Key: key}), tc.field)
		})
	}
	// Each name and each per_page value is accepted.
	for _, name := range stats.Names {
		want(t, e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d?name=%s&from=2026-01-01&to=2026-01-01", id, name), Key: key}), 200)
	}
	for _, n := range stats.PerPageValues {
		body := want(t, e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d?%s&per_page=%d", id, base, n), Key: key}), 200)
		if body["meta"].(map[string]any)["per_page"] != float64(n) {
			t.Fatalf("per_page %d not echoed: %v", n, body["meta"])
		}
	}
}

// TestStatsRollupMatchesDailySums checks the monthly rollup against a plain sum of the daily
// counters over many random ranges, including ranges that start or end mid-month, span a
// year boundary, a leap day, or sit inside one month.
func TestStatsRollupMatchesDailySums(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	start := day("2027-11-15")
	type key struct {
		date  time.Time
		value string
	}
	truth := map[key]int64{}
	var counts []repository.StatCount
	for d := 0; d < 140; d++ { // 2027-11-15 .. 2028-04-02, with 2028-02-29
		date := start.AddDate(0, 0, d)
		for v := 0; v < 4; v++ {
			if rng.IntN(3) == 0 {
				continue // gaps
			}
			value := fmt.Sprintf("/p%d", v)
			n := int64(rng.IntN(50) + 1)
			truth[key{date, value}] += n
			counts = append(counts, repository.StatCount{Name: "page", Date: date, Value: value, Count: n})
		}
	}
	e, apiKey, id := statsEnv(t, counts)
	ranges := [][2]time.Time{
		{day("2027-12-01"), day("2027-12-31")},
		{day("2027-11-01"), day("2028-04-30")},
		{day("2028-02-29"), day("2028-02-29")},
		{day("2028-02-01"), day("2028-02-29")},
		{day("2027-12-31"), day("2028-01-01")},
	}
	for i := 0; i < 40; i++ {
		a := start.AddDate(0, 0, rng.IntN(150)-5)
		b := a.AddDate(0, 0, rng.IntN(120))
		ranges = append(ranges, [2]time.Time{a, b})
	}
	for _, r := range ranges {
		sums := map[string]int64{}
		for k, n := range truth {
			if !k.date.Before(r[0]) && !k.date.After(r[1]) {
				sums[k.value] += n
			}
		}
		var wantEntries []string
		for v, n := range sums {
			wantEntries = append(wantEntries, fmt.Sprintf("%s=%d", v, n))
		}
		sort.Strings(wantEntries)
		path := fmt.Sprintf("/api/v1/stats/%d?name=page&from=%s&to=%s&sort_by=value&sort=asc", id,
			r[0].Format(time.DateOnly), r[1].Format(time.DateOnly))
		got := entries(want(t, e.Do(harness.Request{Path: path, Key: apiKey}), http.StatusOK))
		if got != strings.Join(wantEntries, " ") {
			t.Fatalf("%s..%s: got %q, want %q", r[0].Format(time.DateOnly), r[1].Format(time.DateOnly), got, strings.Join(wantEntries, " "))
		}
	}
}
