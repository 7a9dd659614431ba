package pages_test

import (
	"encoding/csv"
	"fmt"
	"html"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// Events with ':' in their name read as a person wrote them: the tracker's own ("Outbound
// Link: Click") and the website's event goals ("Checkout: Done") on the dashboard, the full
// list and the CSV, whose name, value and unit are columns of their own; the API keeps the
// statistic's name:value:unit, where the ':' of a name is a space.
func TestEventNamesAsSent(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "events.example")
	e.Count(id, "2026-03-10", "event", map[string]int64{"Outbound Link  Click::": 7, "Purchase:5:USD": 3, "Signup::": 2,
		"Checkout  Done::": 4, "Form  Submission::": 1})
	e.Count(id, "2026-03-10", "pageview", map[string]int64{"2026-03-10": 9})
	if status, body := e.api("POST", fmt.Sprintf("/api/v1/websites/%d/goals", id), owner.Key,
		goalValues("kind", "event", "event", "Checkout: Done")); status != http.StatusCreated {
		t.Fatalf("goal: %d %s", status, body)
	}
	b := e.browser().signIn(owner)
	const rng = "from=2026-03-01&to=2026-03-20"

	dash := b.get("/stats/events.example?" + rng)
	wantStatus(t, "dashboard", dash, http.StatusOK)
	body := html.UnescapeString(dash.body)
	for _, want := range []string{">Outbound Link: Click<", ">Checkout: Done<", ">Form: Submission<", ">Purchase<", "5 USD<"} {
		if !strings.Contains(body, want) {
			t.Errorf("the dashboard does not show %q", want)
		}
	}
	list := html.UnescapeString(b.get("/stats/events.example/event?" + rng).body)
	for _, want := range []string{">Outbound Link: Click<", ">Checkout: Done<", ">Purchase · 5 USD<", ">Signup<"} {
		if !strings.Contains(list, want) {
			t.Errorf("the full list does not show %q", want)
		}
	}
	for _, page := range []string{body, list} {
		if strings.Contains(page, ">Outbound Link  Click") || strings.Contains(page, "Signup::<") {
			t.Error("a page shows the statistic's encoding")
		}
	}
	export := b.get("/stats/events.example/export?name=event&" + rng)
	wantStatus(t, "export", export, http.StatusOK)
	records, err := csv.NewReader(strings.NewReader(export.body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"name", "value", "unit", "count"}, {"Outbound Link: Click", "", "", "7"}, {"Checkout: Done", "", "", "4"},
		{"Purchase", "5", "USD", "3"}, {"Signup", "", "", "2"}, {"Form: Submission", "", "", "1"}}
	if !reflect.DeepEqual(records, want) {
		t.Errorf("the CSV %q, want %q", records, want)
	}
	status, api := e.api("GET", fmt.Sprintf("/api/v1/stats/%d?name=event&%s", id, rng), owner.Key, nil)
	if status != http.StatusOK || !strings.Contains(api, `"value":"Outbound Link  Click::"`) || !strings.Contains(api, `"value":"Purchase:5:USD"`) {
		t.Errorf("the API: %d %s", status, api)
	}
}
