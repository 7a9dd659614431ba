package pages_test

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// The dashboard's own parameters: the graph's metric and interval, the boxes' tabs and the
// chip the Filter dialog edits. A value that is none, or an interval the range does not
// allow, is a readable 422 naming the parameter and what it takes, never a 500 nor another
// view shown in its place.
func TestDashboardParamsRefused(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "params.example")
	e.seedMonth(id)
	b := e.browser()
	const dash = "/stats/params.example?"
	for _, c := range []struct{ query, want string }{
		{"graph_metric=nope", "graph_metric must be one of visitors, visits, pageviews, views_per_visit, bounce_rate, visit_duration, events"},
		{"graph_metric=visits&graph_metric=pageviews", "graph_metric must be sent once"},
		{"graph_metric=%3Cscript%3Ealert(1)%3C/script%3E", "graph_metric must be one of"},
		{"from=2025-03-21&to=2026-03-20&interval=hour", "interval hour is not allowed for 21 Mar 2025 – 20 Mar 2026 (365 days); it allows day, week, month"},
		{"from=2026-03-20&to=2026-03-20&interval=day", "interval day is not allowed for 20 Mar 2026 (1 day); it allows minute, hour"},
		{"from=2026-03-01&to=2026-03-20&interval=month", "interval month is not allowed"},
		{"interval=minute", "interval minute is for Today only; 19 Feb 2026 – 20 Mar 2026 allows hour, day, week"},
		{"from=2026-03-19&to=2026-03-19&interval=minute", "interval minute is for Today only; 19 Mar 2026 allows hour"},
		{"from=2026-03-20&to=2026-03-20&interval=minute&filter%5Bbrowser%5D=Chrome", "interval minute counts the whole website: it takes no filters; 20 Mar 2026 allows hour"},
		{"from=2026-03-20&to=2026-03-20&interval=minute&graph_metric=bounce_rate", "graph_metric bounce_rate is not counted by the minute: interval=minute draws visitors, visits, pageviews"},
		{"from=2026-03-20&to=2026-03-20&interval=minute&comparison=year_over_year", "comparison reaches the last 9 days only by the minute (minutes are kept so long); 14 Mar 2025 is older: choose interval=hour"},
		{"from=2026-03-20&to=2026-03-20&interval=minute&comparison=custom&compare_from=2026-03-10&compare_to=2026-03-10", "comparison reaches the last 9 days only by the minute"},
		{"interval=second", "interval must be one of minute, hour, day, week, month"},
		{"pages=referrer", "pages must be one of page, landing_page, exit_page"},
		{"devices=browser&devices=device", "devices must be sent once"},
		{"locations=planet", "locations must be one of country, city, continent"},
		{"edit_filter=0", "edit_filter must be the number of one of the filters shown"},
		{"filter%5Bbrowser%5D=Chrome&edit_filter=1", "edit_filter must be the number of one of the filters shown, 0 to 0"},
		{"filter%5Bbrowser%5D=Chrome&edit_filter=x", "edit_filter must be the number"},
	} {
		p := b.get(dash + c.query)
		wantStatus(t, c.query, p, http.StatusUnprocessableEntity)
		if body := html.UnescapeString(p.body); !strings.Contains(body, c.want) || strings.Contains(p.body, "<script>alert") {
			t.Errorf("%s: the page does not say %q:\n%s", c.query, c.want, p.body)
		}
	}
	// Allowed: a year in months, a week in hours, every metric, every tab.
	for _, query := range []string{"from=2025-03-21&to=2026-03-20&interval=month", "from=2026-03-14&to=2026-03-20&interval=hour",
		"graph_metric=bounce_rate", "graph_metric=visit_duration&interval=week", "pages=exit_page&locations=city&devices=screen_resolution",
		"filter%5Bbrowser%5D=Chrome&edit_filter=0", "from=2026-03-20&to=2026-03-20&interval=minute&graph_metric=visits&comparison=previous_period",
		"from=2026-03-20&to=2026-03-20&interval=minute&comparison=custom&compare_from=2026-03-12&compare_to=2026-03-12"} {
		wantStatus(t, query, b.get(dash+query), http.StatusOK)
	}
}

// The period menu keeps the view, and its interval where the new range allows it: hours of 7
// days stay hours for 28 days, not for 12 months.
func TestPeriodMenuKeepsTheInterval(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "menu.example")
	e.seedMonth(id)
	p := e.browser().get("/stats/menu.example?from=2026-03-14&to=2026-03-20&interval=hour&graph_metric=pageviews&devices=device")
	wantStatus(t, "dashboard", p, http.StatusOK)
	body := html.UnescapeString(p.body)
	for key, want := range map[string]string{
		"f":         `href="/stats/menu.example?devices=device&from=2026-02-21&graph_metric=pageviews&interval=hour&to=2026-03-20" data-key="f"`,
		"l":         `href="/stats/menu.example?devices=device&from=2025-04-01&graph_metric=pageviews&to=2026-03-20" data-key="l"`,
		"ArrowLeft": `href="/stats/menu.example?devices=device&from=2026-03-07&graph_metric=pageviews&interval=hour&to=2026-03-13" data-key="ArrowLeft"`,
		"r":         `href="/stats/menu.example/realtime" data-key="r"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("%s: no link %s", key, want)
		}
	}
	if strings.Contains(body, `data-key="ArrowRight"`) {
		t.Error("a next period after today")
	}
}

// The Filter dialog's form: sent to the dashboard's address, it redirects to the view with
// the typed filter (several values at once, under each operator) and every other parameter
// kept; sent from a chip, it replaces that chip's filter. Bad fields are a readable 422, and
// nothing is applied.
func TestFilterDialogForm(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "dialog.example")
	e.seedMonth(id)
	b := e.browser()
	const dash = "/stats/dialog.example"
	view := "from=2026-03-01&to=2026-03-20&comparison=previous_period&graph_metric=pageviews&pages=exit_page"
	for _, c := range []struct {
		form string
		want url.Values // the filters of the view redirected to
	}{
		{"dialog_name=browser&dialog_op=is&dialog_value=Chrome", url.Values{"filter[browser]": {"Chrome"}}},
		{"dialog_name=browser&dialog_op=is&dialog_value=Chrome&dialog_value=+Firefox+&dialog_value=&dialog_value=Chrome", url.Values{"filter_any[browser]": {"Chrome|Firefox"}}},
		{"dialog_name=page&dialog_op=is_not&dialog_value=/a|b&dialog_value=/c", url.Values{"filter_not[page]": {`/a\|b|/c`}}},
		{"dialog_name=referrer&dialog_op=contains&dialog_value=google", url.Values{"filter_contains[referrer]": {"google"}}},
		{"dialog_name=country&dialog_op=contains_not&dialog_value=Ger&dialog_value=Fra", url.Values{"filter_contains_not[country]": {"Ger|Fra"}}},
		// A chip's filter replaced (the browser's), the other kept.
		{"filter%5Bbrowser%5D=Chrome&filter%5Bdevice%5D=mobile&dialog_edit=0&dialog_name=operating_system&dialog_op=is&dialog_value=Linux",
			url.Values{"filter[device]": {"mobile"}, "filter[operating_system]": {"Linux"}}},
		// A new filter on a dimension already filtered replaces its filter.
		{"filter%5Bbrowser%5D=Chrome&dialog_name=browser&dialog_op=is_not&dialog_value=Safari", url.Values{"filter_not[browser]": {"Safari"}}},
	} {
		p := b.get(dash + "?" + view + "&" + c.form)
		wantStatus(t, c.form, p, http.StatusSeeOther)
		u, err := url.Parse(p.header.Get("Location"))
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		for k, vs := range q {
			if strings.HasPrefix(k, "filter") {
				if got := c.want.Get(k); got != vs[0] {
					t.Errorf("%s: %s=%q, want %q", c.form, k, vs[0], got)
				}
				delete(c.want, k)
			}
			if strings.HasPrefix(k, "dialog_") {
				t.Errorf("%s: the view keeps %s", c.form, k)
			}
		}
		if len(c.want) > 0 || u.Path != dash || q.Get("comparison") != "previous_period" || q.Get("graph_metric") != "pageviews" ||
			q.Get("pages") != "exit_page" || q.Get("from") != "2026-03-01" {
			t.Errorf("%s: redirected to %s, missing %v", c.form, u, c.want)
		}
		wantStatus(t, c.form+" then", b.get(u.RequestURI()), http.StatusOK)
	}
	long := strings.Repeat("x", 256)
	for _, c := range []struct{ form, want string }{
		{"dialog_name=colour&dialog_op=is&dialog_value=red", "dialog_name must be one of"},
		{"dialog_name=property&dialog_op=is&dialog_value=red", "dialog_name must be one of"},
		{"dialog_name=browser&dialog_op=like&dialog_value=Chrome", "dialog_op must be one of is, is_not, contains, contains_not"},
		{"dialog_name=browser&dialog_op=is&dialog_value=+", "dialog_value must hold at least one value"},
		{"dialog_name=browser&dialog_op=is", "dialog_value must hold at least one value"},
		{"dialog_name=browser&dialog_op=is&dialog_value=" + long, "dialog_value filter[browser]: "},
		{"dialog_name=goal&dialog_op=is_not&dialog_value=Signup", "a goal is filtered with filter[goal]=NAME only"},
		{"dialog_name=browser&dialog_op=is&dialog_value=Chrome&dialog_edit=4", "dialog_edit must be the number of one of the filters shown"},
		{"dialog_name=browser&dialog_name=page&dialog_op=is&dialog_value=Chrome", "dialog_name must be sent once"},
		{"dialog_name=browser&dialog_op=is&dialog_value=%3Cscript%3Ealert(1)%3C/script%3E&filter%5Bcolour%5D=red", "filter[colour]: unknown name"},
	} {
		p := b.get(dash + "?" + view + "&" + c.form)
		wantStatus(t, c.form, p, http.StatusUnprocessableEntity)
		if body := html.UnescapeString(p.body); !strings.Contains(body, c.want) || strings.Contains(p.body, "<script>alert") {
			t.Errorf("%s: the page does not say %q:\n%s", c.form, c.want, p.body)
		}
	}
}

// Every link of the dashboard that leads to another of its views keeps the comparison: the
// full lists (whose way back keeps it too) and the Sources tabs, which dropped it once.
func TestDashboardLinksKeepTheComparison(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "keep.example")
	e.seedMonth(id)
	b := e.browser()
	p := b.get("/stats/keep.example?from=2026-03-01&to=2026-03-20&comparison=year_over_year&match_day_of_week=false")
	wantStatus(t, "dashboard", p, http.StatusOK)
	body := html.UnescapeString(p.body)
	for _, want := range []string{
		`href="/stats/keep.example/page?comparison=year_over_year&from=2026-03-01&match_day_of_week=false&to=2026-03-20"`,
		`href="/stats/keep.example?comparison=year_over_year&from=2026-03-01&match_day_of_week=false&sources=source&to=2026-03-20#sources"`,
		`href="/stats/keep.example?comparison=year_over_year&from=2026-03-01&match_day_of_week=false&pages=landing_page&to=2026-03-20#pages"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("no link %s", want)
		}
	}
	list := b.get("/stats/keep.example/page?comparison=year_over_year&from=2026-03-01&match_day_of_week=false&to=2026-03-20")
	wantStatus(t, "full list", list, http.StatusOK)
	if !strings.Contains(html.UnescapeString(list.body), `href="/stats/keep.example?comparison=year_over_year&from=2026-03-01&match_day_of_week=false&to=2026-03-20">`) {
		t.Errorf("the full list's way back drops the comparison:\n%s", list.body)
	}
	wantStatus(t, "a full list with a bad comparison", b.get("/stats/keep.example/page?comparison=sometimes"), http.StatusUnprocessableEntity)
}
