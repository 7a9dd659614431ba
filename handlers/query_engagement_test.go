package handlers_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/lib/pq"

	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
)

// engaged is a visit's engagement on one page: engaged milliseconds and deepest scroll (-1:
// none sent).
type engaged struct {
	page      string
	ms, depth int
}

// TestQueryEngagement: time_on_page and scroll_depth of a page are the means over the visits
// that sent engagement for it (visits without count in neither), by page and under an
// event:page filter.
func TestQueryEngagement(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	site := int64(e.store(key, "domain", "engaged.example")["id"].(float64))
	d1, d2 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	visit := func(day time.Time, visitor int32, pages ...string) repotest.Visit {
		return repotest.Visit{Day: day, Visitor: visitor, Pages: pages,
			Values: map[stats.Name]string{stats.LandingPage: pages[0], stats.ExitPage: pages[len(pages)-1]}}
	}
	visits := []repotest.Visit{visit(d1, 1, "/", "/pricing"), visit(d1, 2, "/pricing"), visit(d1, 3, "/pricing", "/"), visit(d2, 1, "/")}
	engagement := [][]engaged{
		{{"/", 4000, 50}, {"/pricing", 10000, 80}},
		{{"/pricing", 5000, -1}},
		nil, // no engagement: NULL arrays
		{{"/", 2500, 100}},
	}
	repotest.WriteVisitRows(t, e.DB, site, visits)
	ctx := context.Background()
	if _, err := e.DB.ExecContext(ctx, `UPDATE websites SET filters_from = '2026-03-01' WHERE id = $1`, site); err != nil {
		t.Fatal(err)
	}
	for i, v := range visits {
		if engagement[i] == nil {
			continue
		}
		var pages []string
		var ms, depth []sqlInt
		for _, x := range engagement[i] {
			pages = append(pages, x.page)
			ms = append(ms, sqlInt{x.ms, true})
			depth = append(depth, sqlInt{x.depth, x.depth >= 0})
		}
		_, err := e.DB.ExecContext(ctx, `UPDATE visit_rows SET engaged_pages = $1, engaged_ms = $2::text::integer[], scroll_depth = $3::text::smallint[]
			WHERE website_id = $4 AND day = $5 AND visitor = $6`, pq.Array(pages), intArray(ms), intArray(depth), site, v.Day, v.Visitor)
		if err != nil {
			t.Fatal(err)
		}
	}
	// means are a page's time on page and scroll depth from the table above.
	means := func(page string) (float64, float64) {
		var ms, msN, depth, depthN float64
		for _, visit := range engagement {
			for _, x := range visit {
				if x.page != page {
					continue
				}
				ms, msN = ms+float64(x.ms), msN+1
				if x.depth >= 0 {
					depth, depthN = depth+float64(x.depth), depthN+1
				}
			}
		}
		return math.Round(ms / msN / 1000), math.Round(depth / depthN)
	}
	const head = `{"site_id": "engaged.example", "date_range": ["2026-03-01", "2026-03-02"], `

	_, lines := wantQuery(t, e.in(t).query(key, head+`"metrics": ["visitors", "time_on_page", "scroll_depth"],
		"dimensions": ["event:page"], "order_by": [["event:page", "asc"]]}`))
	var want []string
	for _, page := range []string{"/", "/pricing"} {
		vs, _, _ := counted(visits, func(v repotest.Visit) bool { return slices.Contains(v.Pages, page) })
		top, depth := means(page)
		want = append(want, fmt.Sprint([]any{page}, "=", []any{float64(vs), top, depth}))
	}
	if !slices.Equal(lines, want) {
		t.Errorf("by page: got %v, want %v", lines, want)
	}
	if top, depth := means("/pricing"); top != 8 || depth != 80 {
		t.Fatalf("the fixture's means of /pricing: %v %v", top, depth)
	}

	_, lines = wantQuery(t, e.in(t).query(key, head+`"metrics": ["time_on_page", "scroll_depth"],
		"filters": [["is", "event:page", ["/pricing"]]]}`))
	top, depth := means("/pricing")
	if want := fmt.Sprint([]any{}, "=", []any{top, depth}); len(lines) != 1 || lines[0] != want {
		t.Errorf("under a page filter: got %v, want %s", lines, want)
	}

	for body, words := range map[string][]string{
		head + `"metrics": ["time_on_page"], "dimensions": ["visit:country"]}`:                                        {"time_on_page", "event:page"},
		head + `"metrics": ["scroll_depth"], "filters": [["not", ["is", "event:page", ["/"]]]]}`:                      {"scroll_depth", "event:page"},
		head + `"metrics": ["scroll_depth"], "dimensions": ["event:name"], "filters": [["is", "event:page", ["/"]]]}`: {"scroll_depth", "event:name"},
	} {
		wantQueryError(t, e.in(t).query(key, body), http.StatusBadRequest, words...)
	}
}

type sqlInt struct {
	v     int
	valid bool
}

// intArray is a PostgreSQL array literal of ints with NULLs.
func intArray(xs []sqlInt) string {
	out := "{"
	for i, x := range xs {
		if i > 0 {
			out += ","
		}
		if x.valid {
			out += fmt.Sprint(x.v)
		} else {
			out += "NULL"
		}
	}
	return out + "}"
}
