package pages_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// Custom property keys and values come from anyone on the internet. Tracked through the real
// collector, the Properties panel shows them escaped, its values filter the dashboard, and the
// CSV holds them as inert cells.
func TestPropertiesPanel(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	e.Site(owner.Key, "props.example")
	const (
		key   = `<script>alert(1)</script>`
		value = `"><img src=x onerror=alert(2)>`
	)
	e.track(`{"page":"https://props.example/","props":{"plan":"pro","` + strings.ReplaceAll(key, `"`, `\"`) + `":"` + strings.ReplaceAll(value, `"`, `\"`) + `"}}`)
	e.track(`{"n":"pageview","u":"https://props.example/a","d":"props.example","p":"{\"plan\":\"=HYPERLINK(1)\"}"}`)
	if err := e.App.Pipeline.Flusher.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	b := e.browser().signIn(owner)
	const rng = "from=2026-03-20&to=2026-03-20"
	p := b.get("/stats/props.example?" + rng)
	wantStatus(t, "dashboard", p, http.StatusOK)
	start := strings.Index(p.body, `id="top-properties"`)
	if start < 0 {
		t.Fatalf("no Properties panel:\n%s", p.body)
	}
	panel := p.body[start:]
	panel = panel[:strings.Index(panel, "</section>")]
	if strings.Contains(p.body, "<script>alert") || strings.Contains(p.body, "<img src=x") {
		t.Fatalf("a property is on the page unescaped:\n%s", panel)
	}
	// The key carried by the most hits is shown: plan, with its two values as filter links.
	rows := regexp.MustCompile(`<a class="filter-link" href="([^"]+)">([^<]+)</a></td>\s*<td class="num">(\d+)</td>`).FindAllStringSubmatch(panel, -1)
	var got []string
	for _, r := range rows {
		got = append(got, html.UnescapeString(r[2])+" "+r[3])
	}
	if want := "=HYPERLINK(1) 1|pro 1"; strings.Join(got, "|") != want {
		t.Fatalf("values of plan %q, want %q\n%s", got, want, panel)
	}
	link := html.UnescapeString(rows[1][1])
	if !strings.Contains(link, "property_filter%5Bplan%5D=pro") {
		t.Fatalf("the value's link %q does not filter by it", link)
	}
	filtered := b.get(strings.TrimPrefix(link, e.public))
	wantStatus(t, "dashboard filtered by a property", filtered, http.StatusOK)
	if !strings.Contains(filtered.body, "Property plan") {
		t.Errorf("no property chip on the filtered dashboard")
	}
	// The chooser's other key, escaped, shows its value.
	chooser := regexp.MustCompile(`<a href="([^"]+property=%3Cscript[^"]+)"`).FindStringSubmatch(panel)
	if chooser == nil || !strings.Contains(panel, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Fatalf("the key chooser does not offer the escaped key:\n%s", panel)
	}
	other := b.get(strings.TrimPrefix(html.UnescapeString(chooser[1]), e.public))
	wantStatus(t, "dashboard of the other key", other, http.StatusOK)
	if strings.Contains(other.body, "<script>alert") || strings.Contains(other.body, "<img src=x") ||
		!strings.Contains(other.body, "&#34;&gt;&lt;img src=x onerror=alert(2)&gt;") {
		t.Fatalf("the other key's value is not shown escaped")
	}

	export := b.get("/stats/props.example/export?name=properties&" + rng)
	wantStatus(t, "properties CSV", export, http.StatusOK)
	if export.header.Get("Content-Type") != "text/csv; charset=utf-8" || export.header.Get("X-Content-Type-Options") != "nosniff" ||
		!strings.HasPrefix(export.header.Get("Content-Disposition"), "attachment;") {
		t.Fatalf("the properties CSV is not an inert download: %v", export.header)
	}
	records, err := csv.NewReader(strings.NewReader(export.body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprint([][]string{{"key", "value", "hits"}, {key, value, "1"}, {"plan", "'=HYPERLINK(1)", "1"}, {"plan", "pro", "1"}}); fmt.Sprint(records) != want {
		t.Fatalf("properties CSV %v, want %v", records, want)
	}
}

// A goal with a currency shows the revenue its events carried in it, on the Goals panel and in
// the goals CSV; revenue in another currency is not added to it.
func TestGoalsRevenueOnPages(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "shop.example")
	if status, body := e.api("POST", fmt.Sprintf("/api/v1/websites/%d/goals", id), owner.Key,
		goalValues("kind", "event", "event", "Purchase", "currency", "EUR")); status != http.StatusCreated {
		t.Fatalf("goal: %d %s", status, body)
	}
	for _, amount := range []string{`"10.005"`, `0.5`} {
		e.track(`{"page":"https://shop.example/","event":{"name":"Purchase"},"revenue":{"amount":` + amount + `,"currency":"EUR"}}`)
	}
	e.track(`{"page":"https://shop.example/","event":{"name":"Purchase"},"revenue":{"amount":99,"currency":"USD"}}`)
	if err := e.App.Pipeline.Flusher.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	b := e.browser().signIn(owner)
	const rng = "from=2026-03-20&to=2026-03-20"
	p := b.get("/stats/shop.example?" + rng)
	wantStatus(t, "dashboard", p, http.StatusOK)
	panel := p.body[strings.Index(p.body, `id="top-goals"`):]
	panel = panel[:strings.Index(panel, "</section>")]
	if !strings.Contains(panel, ">Revenue</th>") || !strings.Contains(panel, `<td class="num">10.51 EUR</td>`) {
		t.Fatalf("the Goals panel does not show 10.51 EUR:\n%s", panel)
	}
	export := b.get("/stats/shop.example/export?name=goals&" + rng)
	wantStatus(t, "goals CSV", export, http.StatusOK)
	if want := "goal,visitors,events,conversion_rate,revenue\r\nPurchase,1,3,100.0,10.51 EUR\r\n"; export.body != want {
		t.Fatalf("goals CSV %q, want %q", export.body, want)
	}
}
