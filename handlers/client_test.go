package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/analytics-service/analytics/gen/client"
)

func newClient(t *testing.T, baseURL, key string) *client.ClientWithResponses {
	t.Helper()
	c, err := client.NewClientWithResponses(baseURL, client.WithRequestEditorFn(
		func(_ context.Context, req *http.Request) error {
			req.Header.Set("Authorization", "Bearer "+key)
			return nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ptr[T any](v T) *T { return &v }

// must fails the test on a transport error or a status other than want.
func must[R interface{ StatusCode() int }](t *testing.T, res R, err error, want int) R {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if got := res.StatusCode(); got != want {
		t.Fatalf("status %d, want %d", got, want)
	}
	return res
}

// TestGoClient drives every operation of the spec through the generated Go client (gen/client)
// against the running service, with a typed response for each status it meets.
func TestGoClient(t *testing.T) {
	s := newLiveServer(t)
	ctx := context.Background()
	c := newClient(t, s.URL, s.Key)

	t.Run("websites", func(t *testing.T) {
		store, err := c.StoreWebsiteWithFormdataBodyWithResponse(ctx, client.WebsiteStoreForm{
			Domain: "https://www.Go-Client.example/x", Privacy: ptr(client.PrivacyPrivate),
			Email: ptr(client.ZeroOneN1), ExcludeBots: ptr(client.ZeroOneN0), ExcludeIps: ptr("10.0.0.0/8\n2001:db8::1"),
		})
		w := must(t, store, err, 201).JSON201.Data
		if w.Domain != "go-client.example" || w.Privacy != client.PrivacyPrivate || w.Email != 1 || w.ExcludeBots != 0 ||
			w.Favorite || w.Password || w.ExcludeIps == nil || *w.ExcludeIps != "10.0.0.0/8\n2001:db8::1" {
			t.Fatalf("stored %+v", w)
		}
		if loc := store.HTTPResponse.Header.Get("Location"); loc != fmt.Sprintf("/api/v1/websites/%d", w.Id) {
			t.Errorf("Location %q", loc)
		}

		show, err := c.ShowWebsiteWithResponse(ctx, w.Id)
		if got := must(t, show, err, 200).JSON200.Data; !reflect.DeepEqual(got, w) {
			t.Fatalf("show %+v, want %+v", got, w)
		}

		put, err := c.UpdateWebsiteWithFormdataBodyWithResponse(ctx, w.Id, client.WebsiteUpdateForm{Favorite: ptr(true), ExcludeIps: ptr("")})
		if got := must(t, put, err, 200).JSON200.Data; !got.Favorite || got.ExcludeIps != nil || got.Email != 1 {
			t.Fatalf("after PUT %+v", got)
		}
		patch, err := c.PatchWebsiteWithFormdataBodyWithResponse(ctx, w.Id, client.WebsiteUpdateForm{
			Privacy: ptr(client.PrivacyPassword), Password: ptr("s3cret"), Favorite: ptr(false),
		})
		if got := must(t, patch, err, 200).JSON200.Data; got.Privacy != client.PrivacyPassword || !got.Password || got.Favorite {
			t.Fatalf("after PATCH %+v", got)
		}

		_, err = c.PatchWebsiteWithFormdataBodyWithResponse(ctx, w.Id, client.WebsiteUpdateForm{Favorite: ptr(true)})
		if err != nil {
			t.Fatal(err)
		}
		for _, favorite := range []bool{true, false} {
			list, err := c.ListWebsitesWithResponse(ctx, &client.ListWebsitesParams{Favorite: ptr(favorite), Search: ptr("go-client")})
			data := must(t, list, err, 200).JSON200.Data
			if favorite != (len(data) == 1) {
				t.Errorf("favorite=%v: %+v", favorite, data)
			}
		}

		del, err := c.DeleteWebsiteWithResponse(ctx, w.Id)
		if got := must(t, del, err, 200).JSON200; got.Id != w.Id || got.Object != client.DeletedObjectWebsite || !bool(got.Deleted) {
			t.Fatalf("delete %+v", got)
		}
		show, err = c.ShowWebsiteWithResponse(ctx, w.Id)
		if must(t, show, err, 404).JSON404.Status != 404 {
			t.Fatalf("after delete: %s", show.Body)
		}
	})

	t.Run("goals", func(t *testing.T) {
		site := storeWith(t, c, client.WebsiteStoreForm{Domain: "go-goals.example"})
		store, err := c.StoreGoalWithFormdataBodyWithResponse(ctx, site.Id, client.GoalForm{
			Kind: client.GoalKindEvent, Event: ptr("Outbound Link: Click"), Currency: ptr("EUR"),
		})
		g := must(t, store, err, 201).JSON201.Data
		if g.Kind != client.GoalKindEvent || g.Event == nil || *g.Event != "Outbound Link: Click" || g.Page != nil ||
			g.DisplayName != "Outbound Link: Click" || g.Currency == nil || *g.Currency != "EUR" {
			t.Fatalf("stored %+v", g)
		}
		bad, err := c.StoreGoalWithFormdataBodyWithResponse(ctx, site.Id, client.GoalForm{Kind: client.GoalKindPageview, Page: ptr("signup")})
		wantFields(t, must(t, bad, err, 422).JSON422.Errors, "page")
		list, err := c.ListGoalsWithResponse(ctx, site.Id, &client.ListGoalsParams{PerPage: ptr(client.PageSizeN10)})
		if data := must(t, list, err, 200).JSON200.Data; len(data) != 1 || !reflect.DeepEqual(data[0], g) {
			t.Fatalf("list %+v", data)
		}
		conv, err := c.ListGoalConversionsWithResponse(ctx, site.Id, &client.ListGoalConversionsParams{From: date(t, s.Day), To: date(t, s.Day)})
		if data := must(t, conv, err, 200).JSON200.Data; len(data) != 1 || data[0].Goal != g.DisplayName || data[0].Visitors != 0 ||
			data[0].TotalRevenue == nil || data[0].TotalRevenue.Amount != "0.00" || data[0].TotalRevenue.Currency != "EUR" {
			t.Fatalf("conversions %+v", data)
		}
		revenue, err := c.ListRevenueWithResponse(ctx, site.Id, &client.ListRevenueParams{From: date(t, s.Day), To: date(t, s.Day)})
		if data := must(t, revenue, err, 200).JSON200.Data; len(data) != 0 {
			t.Fatalf("revenue %+v", data)
		}
		props, err := c.ListPropertiesWithResponse(ctx, site.Id, &client.ListPropertiesParams{From: date(t, s.Day), To: date(t, s.Day),
			PropertyFilter: &client.PropertyFilter{"plan": "pro"}})
		if data := must(t, props, err, 200).JSON200.Data; len(data) != 0 {
			t.Fatalf("properties %+v", data)
		}
		values, err := c.ListStatsWithResponse(ctx, site.Id, &client.ListStatsParams{Name: client.StatNameProperty, From: date(t, s.Day), To: date(t, s.Day)})
		wantFields(t, must(t, values, err, 422).JSON422.Errors, "property")
		del, err := c.DeleteGoalWithResponse(ctx, site.Id, g.Id)
		if got := must(t, del, err, 200).JSON200; got.Id != g.Id || got.Object != client.GoalDeletedObjectGoal || !bool(got.Deleted) {
			t.Fatalf("delete %+v", got)
		}
		del, err = c.DeleteGoalWithResponse(ctx, site.Id, g.Id)
		must(t, del, err, 404)
	})

	t.Run("shields, retention, alerts, reset", func(t *testing.T) {
		site := storeWith(t, c, client.WebsiteStoreForm{Domain: "go-shields.example", BlockCountries: ptr("ru"),
			BlockPages: ptr("/admin/*"), AllowedHostnames: ptr("go-shields.example"), RetentionDays: ptr(60)})
		if site.BlockCountries == nil || *site.BlockCountries != "RU" || site.RetentionDays == nil || *site.RetentionDays != 60 {
			t.Fatalf("stored %+v", site)
		}
		bad, err := c.PatchWebsiteWithFormdataBodyWithResponse(ctx, site.Id, client.WebsiteUpdateForm{BlockPages: ptr("admin")})
		wantFields(t, must(t, bad, err, 422).JSON422.Errors, "block_pages")

		set, err := c.SetAlertsWithFormdataBodyWithResponse(ctx, site.Id, client.AlertsForm{SpikeThreshold: ptr(10), Addresses: ptr("ops@go-shields.example")})
		if got := must(t, set, err, 200).JSON200.Data; got.SpikeThreshold == nil || *got.SpikeThreshold != 10 || got.DropThreshold != nil ||
			len(got.Addresses) != 1 || got.Addresses[0].Confirmed {
			t.Fatalf("alerts %+v", got)
		}
		show, err := c.ShowAlertsWithResponse(ctx, site.Id)
		if got := must(t, show, err, 200).JSON200.Data; len(got.Addresses) != 1 || got.Addresses[0].Email != "ops@go-shields.example" {
			t.Fatalf("alerts %+v", got)
		}
		zero, err := c.SetAlertsWithFormdataBodyWithResponse(ctx, site.Id, client.AlertsForm{SpikeThreshold: ptr(0)})
		wantFields(t, must(t, zero, err, 422).JSON422.Errors, "spike_threshold")
		missing, err := c.ShowAlertsWithResponse(ctx, 999999)
		must(t, missing, err, 404)

		wrong, err := c.ResetWebsiteStatsWithFormdataBodyWithResponse(ctx, site.Id, client.ResetForm{Confirm: "other.example"})
		wantFields(t, must(t, wrong, err, 422).JSON422.Errors, "confirm")
		reset, err := c.ResetWebsiteStatsWithFormdataBodyWithResponse(ctx, site.Id, client.ResetForm{Confirm: "go-shields.example", From: ptr(s.Day), To: ptr(s.Day)})
		if got := must(t, reset, err, 200).JSON200.Data; got.From == nil || got.From.String() != s.Day || got.To.String() != s.Day {
			t.Fatalf("reset %+v", got)
		}
	})

	t.Run("funnels", func(t *testing.T) {
		site := storeWith(t, c, client.WebsiteStoreForm{Domain: "go-funnels.example"})
		var goals []int64
		for _, name := range []string{"Pricing", "Signup"} {
			store, err := c.StoreGoalWithFormdataBodyWithResponse(ctx, site.Id, client.GoalForm{Kind: client.GoalKindEvent, Event: ptr(name)})
			goals = append(goals, must(t, store, err, 201).JSON201.Data.Id)
		}
		// oapi-codegen's runtime writes an array of a form as steps[0]=..&steps[1]=.., not as
		// the repeated field the spec's form style says (docs/funnels.md): the body is sent as is.
		body := url.Values{"name": {"Path"}, "steps": {fmt.Sprint(goals[1]), fmt.Sprint(goals[0])}}.Encode()
		store, err := c.StoreFunnelWithBodyWithResponse(ctx, site.Id, "application/x-www-form-urlencoded", strings.NewReader(body))
		f := must(t, store, err, 201).JSON201.Data
		if f.Name != "Path" || len(f.Steps) != 2 || f.Steps[0].GoalId != goals[1] || f.Steps[1].DisplayName != "Pricing" {
			t.Fatalf("stored %+v", f)
		}
		bad, err := c.StoreFunnelWithBodyWithResponse(ctx, site.Id, "application/x-www-form-urlencoded", strings.NewReader("name=One&steps="+fmt.Sprint(goals[0])))
		wantFields(t, must(t, bad, err, 422).JSON422.Errors, "steps")
		list, err := c.ListFunnelsWithResponse(ctx, site.Id, &client.ListFunnelsParams{PerPage: ptr(client.PageSizeN10)})
		if data := must(t, list, err, 200).JSON200.Data; len(data) != 1 || !reflect.DeepEqual(data[0], f) {
			t.Fatalf("list %+v", data)
		}
		numbers, err := c.GetFunnelWithResponse(ctx, site.Id, f.Id, &client.GetFunnelParams{From: date(t, s.Day), To: date(t, s.Day)})
		if data := must(t, numbers, err, 200).JSON200.Data; data.Name != "Path" || len(data.Steps) != 2 || data.Steps[0].ConversionRate != 100 ||
			data.EnteringVisitors != 0 {
			t.Fatalf("numbers %+v", data)
		}
		del, err := c.DeleteFunnelWithResponse(ctx, site.Id, f.Id)
		if got := must(t, del, err, 200).JSON200; got.Id != f.Id || got.Object != client.FunnelDeletedObjectFunnel || !bool(got.Deleted) {
			t.Fatalf("delete %+v", got)
		}
		del, err = c.DeleteFunnelWithResponse(ctx, site.Id, f.Id)
		must(t, del, err, 404)
	})

	t.Run("segments and annotations", func(t *testing.T) {
		site := storeWith(t, c, client.WebsiteStoreForm{Domain: "go-segments.example"})
		store, err := c.StoreSegmentWithFormdataBodyWithResponse(ctx, site.Id, client.SegmentForm{Name: "Germany",
			Type: ptr(client.PinnedTypeSite), Filters: `[["is", "visit:country", ["DE"]]]`})
		seg := must(t, store, err, 201).JSON201.Data
		if seg.Name != "Germany" || seg.Type != client.PinnedTypeSite || fmt.Sprint(seg.Filters) != "[[is visit:country [DE]]]" {
			t.Fatalf("stored %+v", seg)
		}
		bad, err := c.StoreSegmentWithFormdataBodyWithResponse(ctx, site.Id, client.SegmentForm{Name: "x", Filters: "[]"})
		wantFields(t, must(t, bad, err, 422).JSON422.Errors, "filters")
		changed, err := c.UpdateSegmentWithFormdataBodyWithResponse(ctx, site.Id, seg.Id, client.SegmentChange{Name: ptr("Deutschland")})
		if got := must(t, changed, err, 200).JSON200.Data; got.Name != "Deutschland" || !reflect.DeepEqual(got.Filters, seg.Filters) {
			t.Fatalf("changed %+v", got)
		}
		list, err := c.ListSegmentsWithResponse(ctx, site.Id, &client.ListSegmentsParams{PerPage: ptr(client.PageSizeN10)})
		if data := must(t, list, err, 200).JSON200.Data; len(data) != 1 || data[0].Name != "Deutschland" {
			t.Fatalf("list %+v", data)
		}
		del, err := c.DeleteSegmentWithResponse(ctx, site.Id, seg.Id)
		if got := must(t, del, err, 200).JSON200; got.Id != seg.Id || got.Object != client.SegmentDeletedObjectSegment {
			t.Fatalf("delete %+v", got)
		}
		del, err = c.DeleteSegmentWithResponse(ctx, site.Id, seg.Id)
		must(t, del, err, 404)

		note, err := c.StoreAnnotationWithFormdataBodyWithResponse(ctx, site.Id, client.AnnotationForm{Date: s.Day, Note: "Launch"})
		a := must(t, note, err, 201).JSON201.Data
		long, err := c.StoreAnnotationWithFormdataBodyWithResponse(ctx, site.Id, client.AnnotationForm{Date: s.Day, Note: strings.Repeat("x", 301)})
		wantFields(t, must(t, long, err, 422).JSON422.Errors, "note")
		moved, err := c.UpdateAnnotationWithFormdataBodyWithResponse(ctx, site.Id, a.Id, client.AnnotationChange{Note: ptr("Launched")})
		if got := must(t, moved, err, 200).JSON200.Data; got.Note != "Launched" || got.Date.String() != s.Day || got.Type != client.PinnedTypePersonal {
			t.Fatalf("changed %+v", got)
		}
		notes, err := c.ListAnnotationsWithResponse(ctx, site.Id, &client.ListAnnotationsParams{From: ptr(date(t, s.Day))})
		if data := must(t, notes, err, 200).JSON200.Data; len(data) != 1 || data[0].Note != "Launched" {
			t.Fatalf("list %+v", data)
		}
		gone, err := c.DeleteAnnotationWithResponse(ctx, site.Id, a.Id)
		if got := must(t, gone, err, 200).JSON200; got.Id != a.Id || got.Object != client.AnnotationDeletedObjectAnnotation {
			t.Fatalf("delete %+v", got)
		}
	})

	t.Run("401", func(t *testing.T) {
		stranger := newClient(t, s.URL, "pa_not-a-key")
		list, err := stranger.ListWebsitesWithResponse(ctx, &client.ListWebsitesParams{PerPage: ptr(client.PageSizeN10)})
		if e := must(t, list, err, 401).JSON401; e.Message != "Unauthenticated." || e.Errors != nil {
			t.Fatalf("%+v", e)
		}
		if got := list.HTTPResponse.Header.Get("WWW-Authenticate"); got != "Bearer" {
			t.Errorf("WWW-Authenticate %q", got)
		}
		store, err := stranger.StoreWebsiteWithFormdataBodyWithResponse(ctx, client.WebsiteStoreForm{Domain: "not a domain"})
		must(t, store, err, 401)
	})

	t.Run("404", func(t *testing.T) {
		show, err := c.ShowWebsiteWithResponse(ctx, 987654321)
		must(t, show, err, 404)
		upd, err := c.UpdateWebsiteWithFormdataBodyWithResponse(ctx, 987654321, client.WebsiteUpdateForm{Email: ptr(client.ZeroOneN1)})
		must(t, upd, err, 404)
		del, err := c.DeleteWebsiteWithResponse(ctx, 987654321)
		must(t, del, err, 404)
		stats, err := c.ListStatsWithResponse(ctx, 987654321, &client.ListStatsParams{Name: client.StatNamePage, From: date(t, s.Day), To: date(t, s.Day)})
		if must(t, stats, err, 404).JSON404.Message != "Website not found." {
			t.Fatalf("%s", stats.Body)
		}
	})

	t.Run("422", func(t *testing.T) {
		store, err := c.StoreWebsiteWithFormdataBodyWithResponse(ctx, client.WebsiteStoreForm{Domain: "exa mple.com"})
		wantFields(t, must(t, store, err, 422).JSON422.Errors, "domain")
		store, err = c.StoreWebsiteWithFormdataBodyWithResponse(ctx, client.WebsiteStoreForm{Domain: "private.example", Privacy: ptr(client.PrivacyPassword)})
		wantFields(t, must(t, store, err, 422).JSON422.Errors, "password")

		w := storeWith(t, c, client.WebsiteStoreForm{Domain: "refusals.example"})
		patch, err := c.PatchWebsiteWithFormdataBodyWithResponse(ctx, w.Id, client.WebsiteUpdateForm{ExcludeIps: ptr("10.0.0.1\nnot-an-ip")})
		wantFields(t, must(t, patch, err, 422).JSON422.Errors, "exclude_ips")
		stats, err := c.ListStatsWithResponse(ctx, w.Id, &client.ListStatsParams{Name: client.StatNamePage, From: date(t, "2026-02-02"), To: date(t, "2026-02-01")})
		wantFields(t, must(t, stats, err, 422).JSON422.Errors, "to")
		list, err := c.ListWebsitesWithResponse(ctx, &client.ListWebsitesParams{PerPage: ptr(client.PageSize(7))})
		wantFields(t, must(t, list, err, 422).JSON422.Errors, "per_page")
	})

	t.Run("paging websites to the last page", func(t *testing.T) {
		for i := 1; i <= 12; i++ {
			res, err := c.StoreWebsiteWithFormdataBodyWithResponse(ctx, client.WebsiteStoreForm{Domain: fmt.Sprintf("page-%02d.example", i)})
			must(t, res, err, 201)
		}
		params := client.ListWebsitesParams{Search: ptr("page-"), SortBy: ptr(client.ListWebsitesParamsSortByDomain),
			Sort: ptr(client.SortDirectionAsc), PerPage: ptr(client.PageSizeN10)}
		var domains []string
		for page := 1; ; page++ {
			params.Page = ptr(page)
			res, err := c.ListWebsitesWithResponse(ctx, &params)
			list := must(t, res, err, 200).JSON200
			for _, w := range list.Data {
				domains = append(domains, w.Domain)
			}
			if list.Links.Next == nil {
				if page != 2 || list.Meta.LastPage != 2 || list.Meta.Total != 12 || *list.Meta.From != 11 || *list.Meta.To != 12 {
					t.Fatalf("last page %d: %+v", page, list.Meta)
				}
				break
			}
		}
		if len(domains) != 12 || domains[0] != "page-01.example" || domains[11] != "page-12.example" {
			t.Fatalf("domains %v", domains)
		}
		params.Page = ptr(3)
		res, err := c.ListWebsitesWithResponse(ctx, &params)
		if past := must(t, res, err, 200).JSON200; len(past.Data) != 0 || past.Meta.From != nil || past.Meta.To != nil {
			t.Fatalf("past the end %+v", past)
		}
	})

	t.Run("stats from collected hits, paged to the last page", func(t *testing.T) {
		site := storeWith(t, c, client.WebsiteStoreForm{Domain: "stats.example", ExcludeBots: ptr(client.ZeroOneN0)})
		for i := 1; i <= 12; i++ {
			hit := client.Hit{Page: fmt.Sprintf("https://stats.example/p%02d", i), Referrer: ptr("https://search.example/")}
			if i == 12 { // as navigator.sendBeacon sends it
				res, err := c.CollectEventWithTextBodyWithResponse(ctx, `{"page":"https://stats.example/p12","event":{"name":"Signup"}}`)
				must(t, res, err, 202)
				hit.Event = &client.HitEvent{Name: "Purchase", Value: ptr("5"), Unit: ptr("USD")}
			}
			res, err := c.CollectEventWithResponse(ctx, hit)
			must(t, res, err, 202)
		}
		params := client.ListStatsParams{Name: client.StatNamePage, From: date(t, s.Day), To: date(t, s.Day), PerPage: ptr(client.PageSizeN10)}
		first := waitForStats(t, c, site.Id, params, 11)
		if first.Meta.LastPage != 2 || first.Data[0].Value != "/p01" {
			t.Fatalf("first page %+v", first)
		}
		params.Page = ptr(first.Meta.LastPage)
		res, err := c.ListStatsWithResponse(ctx, site.Id, &params)
		if last := must(t, res, err, 200).JSON200; len(last.Data) != 1 || last.Data[0] != (client.StatEntry{Value: "/p11", Count: 1}) || last.Links.Next != nil {
			t.Fatalf("last page %+v", last)
		}
		params = client.ListStatsParams{Name: client.StatNameEvent, From: date(t, s.Day), To: date(t, s.Day)}
		events := waitForStats(t, c, site.Id, params, 2)
		if events.Data[0] != (client.StatEntry{Value: "Purchase:5:USD", Count: 1}) || events.Data[1] != (client.StatEntry{Value: "Signup::", Count: 1}) {
			t.Fatalf("events %+v", events.Data)
		}

		// The summary, the time series and the realtime view of the same hits.
		day := date(t, s.Day)
		summary, err := c.GetSummaryWithResponse(ctx, site.Id, &client.GetSummaryParams{From: day, To: day})
		if got := must(t, summary, err, 200).JSON200.Data; got.Pageviews != 11 || got.Events != 2 { // the 12th hit is an event
			t.Fatalf("summary %+v", got)
		}
		series, err := c.GetTimeseriesWithResponse(ctx, site.Id, &client.GetTimeseriesParams{From: day, To: day,
			Interval: ptr(client.GetTimeseriesParamsIntervalHour), PerPage: ptr(6)})
		if got := must(t, series, err, 200).JSON200; len(got.Data) != 6 || got.Meta.Total != 24 || got.Meta.LastPage != 4 {
			t.Fatalf("timeseries %+v", got.Meta)
		}
		tooLong, err := c.GetTimeseriesWithResponse(ctx, site.Id, &client.GetTimeseriesParams{From: date(t, "2026-01-01"), To: date(t, "2026-02-01"),
			Interval: ptr(client.GetTimeseriesParamsIntervalHour)})
		if e := must(t, tooLong, err, 422).JSON422; e.Errors == nil || len((*e.Errors)["interval"]) != 1 {
			t.Fatalf("hours over 32 days: %s", tooLong.Body)
		}
		realtime, err := c.GetRealtimeWithResponse(ctx, site.Id)
		if got := must(t, realtime, err, 200).JSON200.Data; len(got.Pageviews) != 30 || got.Recent == nil {
			t.Fatalf("realtime %+v", got)
		}

		// The query API over the same visits: the 11 pageviews by page, and a refusal.
		// (A visit's pages reach the visit rows over the flushes after its counters: some of them.)
		query, err := c.QueryStatsWithResponse(ctx, client.QueryRequest{SiteId: "stats.example", Metrics: []string{"pageviews"},
			DateRange: []string{s.Day, s.Day}, Dimensions: &[]string{"event:page"}})
		for _, r := range must(t, query, err, 200).JSON200.Results {
			if !strings.HasPrefix(r.Dimensions[0], "/p") || len(r.Metrics) != 1 || number(t, r.Metrics[0]) != 1 {
				t.Fatalf("query %s", query.Body)
			}
		}
		// Without filters or dimensions the counters answer: the summary's pageviews.
		counted, err := c.QueryStatsWithResponse(ctx, client.QueryRequest{SiteId: "stats.example", Metrics: []string{"pageviews", "events"},
			DateRange: []string{s.Day, s.Day}})
		if got := must(t, counted, err, 200).JSON200; len(got.Results) != 1 || number(t, got.Results[0].Metrics[0]) != 11 || number(t, got.Results[0].Metrics[1]) != 13 {
			t.Fatalf("query from the counters %s", counted.Body)
		}
		refused, err := c.QueryStatsWithResponse(ctx, client.QueryRequest{SiteId: "stats.example", Metrics: []string{"visitors"},
			DateRange: "8d"})
		if got := must(t, refused, err, 400).JSON400; !strings.Contains(got.Error, "8d") {
			t.Fatalf("query refusal %s", refused.Body)
		}

		bad, err := c.CollectEventWithResponse(ctx, client.Hit{Page: "not a url"})
		must(t, bad, err, 400)
		// A host no website has looks accepted: nobody can ask whether a domain is tracked here.
		unknown, err := c.CollectEventWithResponse(ctx, client.Hit{Page: "https://unknown.example/"})
		if len(must(t, unknown, err, 202).Body) != 0 {
			t.Fatalf("%s", unknown.Body)
		}
		pre, err := c.PreflightEventWithResponse(ctx)
		if must(t, pre, err, 204).Headers204 == nil {
			t.Fatal("no parsed headers on the preflight's 204")
		}
	})

	t.Run("the spec, the docs, operations", func(t *testing.T) {
		spec, err := c.GetOpenAPIWithResponse(ctx)
		if doc := must(t, spec, err, 200).YAML200; doc == nil || doc.Openapi != "3.0.3" || len(doc.Paths) == 0 {
			t.Fatalf("openapi %+v", doc)
		}
		// HEAD answers what GET answers, without the body.
		specHead, err := c.HeadOpenAPIWithResponse(ctx)
		if h := must(t, specHead, err, 200); len(h.Body) != 0 || h.Headers200 == nil || h.Headers200.ContentLength != len(spec.Body) ||
			h.HTTPResponse.Header.Get("Content-Type") != spec.HTTPResponse.Header.Get("Content-Type") {
			t.Fatalf("HEAD openapi.yaml: %v, %d bytes of body", h.HTTPResponse.Header, len(h.Body))
		}
		docs, err := c.GetDocsWithResponse(ctx, nil)
		if !strings.Contains(string(must(t, docs, err, 200).Body), "List websites") {
			t.Fatal("docs page without the operations")
		}
		docsHead, err := c.HeadDocsWithResponse(ctx, nil)
		if h := must(t, docsHead, err, 200); h.Headers200 == nil || h.Headers200.ETag == "" || h.Headers200.ContentLength == 0 || len(h.Body) != 0 {
			t.Fatalf("HEAD docs: %v", h.HTTPResponse.Header)
		}
		script, err := c.GetTrackerScriptWithResponse(ctx, nil)
		if !strings.Contains(string(must(t, script, err, 200).Body), "sendBeacon") {
			t.Fatal("tracker script")
		}
		etag := script.HTTPResponse.Header.Get("ETag")
		cached, err := c.GetTrackerScriptWithResponse(ctx, &client.GetTrackerScriptParams{IfNoneMatch: &etag})
		if h := must(t, cached, err, 304); h.Headers304 == nil || h.Headers304.ETag != etag {
			t.Fatalf("If-None-Match: %v", h.HTTPResponse.Header)
		}
		// Go's transport asks for gzip on GET, not on HEAD: each representation has its own ETag.
		scriptHead, err := c.HeadTrackerScriptWithResponse(ctx, nil)
		if h := must(t, scriptHead, err, 200); h.Headers200 == nil || h.Headers200.ETag == "" || len(h.Body) != 0 {
			t.Fatalf("HEAD script: %v", scriptHead.HTTPResponse.Header)
		}
		scriptHead, err = c.HeadTrackerScriptWithResponse(ctx, &client.HeadTrackerScriptParams{IfNoneMatch: &scriptHead.Headers200.ETag})
		must(t, scriptHead, err, 304)
		docsCached, err := c.GetDocsWithResponse(ctx, &client.GetDocsParams{IfNoneMatch: ptr(docs.HTTPResponse.Header.Get("ETag"))})
		must(t, docsCached, err, 304)
		for name, head := range map[string]func(context.Context, ...client.RequestEditorFn) (*http.Response, error){
			"healthz": c.HeadHealth, "readyz": c.HeadReadiness, "readyz/collect": c.HeadCollectionReadiness, "metrics": c.HeadMetrics,
		} {
			res, err := head(ctx)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != 200 {
				t.Fatalf("HEAD %s: %d", name, res.StatusCode)
			}
		}
		health, err := c.GetHealthWithResponse(ctx)
		if must(t, health, err, 200).JSON200.Status != client.HealthStatusOk {
			t.Fatal("health")
		}
		ready, err := c.GetReadinessWithResponse(ctx)
		if must(t, ready, err, 200).JSON200.Status != client.HealthStatusOk {
			t.Fatal("readiness")
		}
		collect, err := c.GetCollectionReadinessWithResponse(ctx)
		if must(t, collect, err, 200).JSON200.Status != client.HealthStatusOk {
			t.Fatal("collection readiness")
		}
		ph, err := c.GetPlausibleHealthWithResponse(ctx)
		if must(t, ph, err, 200).JSON200.Postgres != client.PlausibleHealthPostgresOk {
			t.Fatal("Plausible's health")
		}
		schema, err := c.GetQuerySchemaWithResponse(ctx)
		if _, ok := must(t, schema, err, 200).JSON200.Properties["metrics"]; !ok {
			t.Fatalf("query schema: %s", schema.Body)
		}
		// Plausible's Stats API v1, on a website of the key.
		storeWith(t, c, client.WebsiteStoreForm{Domain: "plausible-v1.example"})
		site := client.PlausibleSiteId("plausible-v1.example")
		rt, err := c.PlausibleRealtimeVisitorsWithResponse(ctx, &client.PlausibleRealtimeVisitorsParams{SiteId: site})
		if *must(t, rt, err, 200).JSON200 != 0 {
			t.Fatalf("realtime: %s", rt.Body)
		}
		agg, err := c.PlausibleAggregateWithResponse(ctx, &client.PlausibleAggregateParams{SiteId: site, Metrics: ptr("visitors,pageviews")})
		if len(must(t, agg, err, 200).JSON200.Results) != 2 {
			t.Fatalf("aggregate: %s", agg.Body)
		}
		ts, err := c.PlausibleTimeseriesWithResponse(ctx, &client.PlausibleTimeseriesParams{SiteId: site, Period: ptr("7d")})
		if len(must(t, ts, err, 200).JSON200.Results) != 7 {
			t.Fatalf("timeseries: %s", ts.Body)
		}
		bd, err := c.PlausibleBreakdownWithResponse(ctx, &client.PlausibleBreakdownParams{SiteId: site, Property: "event:page", Limit: ptr("1001")})
		if must(t, bd, err, 400).JSON400.Error != "Please provide limit as a number between 1 and 1000." {
			t.Fatalf("breakdown: %s", bd.Body)
		}
		bd, err = c.PlausibleBreakdownWithResponse(ctx, &client.PlausibleBreakdownParams{SiteId: site, Property: "event:page"})
		must(t, bd, err, 200)

		// Plausible's Sites API, JSON and form bodies.
		made, err := c.PlausibleCreateSiteWithResponse(ctx, client.PlausibleCreateSiteJSONRequestBody{Domain: "plausible-sites.example"})
		if must(t, made, err, 200).JSON200.Domain != "plausible-sites.example" {
			t.Fatalf("create site: %s", made.Body)
		}
		list, err := c.PlausibleListSitesWithResponse(ctx, &client.PlausibleListSitesParams{Limit: ptr(1)})
		if len(must(t, list, err, 200).JSON200.Sites) != 1 || list.JSON200.Meta.After == nil {
			t.Fatalf("list sites: %s", list.Body)
		}
		got, err := c.PlausibleGetSiteWithResponse(ctx, "plausible-sites.example")
		must(t, got, err, 200)
		upd, err := c.PlausibleUpdateSiteWithFormdataBodyWithResponse(ctx, "plausible-sites.example", client.PlausibleUpdateSiteFormdataRequestBody{Domain: ptr("other.example")})
		must(t, upd, err, 400)
		sites := &client.PlausibleSharedLinkParams{SiteId: ptr("plausible-sites.example")}
		link, err := c.PlausibleSharedLinkWithResponse(ctx, sites, client.PlausibleSharedLinkJSONRequestBody{Name: "Embed"})
		must(t, link, err, 200)
		goal, err := c.PlausibleGoalWithFormdataBodyWithResponse(ctx, (*client.PlausibleGoalParams)(sites), client.PlausibleGoalFormdataRequestBody{GoalType: "event", EventName: ptr("Signup")})
		must(t, goal, err, 200)
		goals, err := c.PlausibleListGoalsWithResponse(ctx, &client.PlausibleListGoalsParams{SiteId: "plausible-sites.example"})
		if len(must(t, goals, err, 200).JSON200.Goals) != 1 {
			t.Fatalf("goals: %s", goals.Body)
		}
		delGoal, err := c.PlausibleDeleteGoalWithResponse(ctx, fmt.Sprint(goal.JSON200.Id), (*client.PlausibleDeleteGoalParams)(sites), client.PlausibleDeleteGoalJSONRequestBody{})
		must(t, delGoal, err, 200)
		prop, err := c.PlausibleCustomPropWithResponse(ctx, (*client.PlausibleCustomPropParams)(sites), client.PlausibleCustomPropJSONRequestBody{Property: "author"})
		must(t, prop, err, 200)
		props, err := c.PlausibleListCustomPropsWithResponse(ctx, &client.PlausibleListCustomPropsParams{SiteId: "plausible-sites.example"})
		must(t, props, err, 200)
		delProp, err := c.PlausibleDeleteCustomPropWithResponse(ctx, "author", (*client.PlausibleDeleteCustomPropParams)(sites), client.PlausibleDeleteCustomPropJSONRequestBody{})
		must(t, delProp, err, 200)
		guest, err := c.PlausibleGuestWithResponse(ctx, (*client.PlausibleGuestParams)(sites), client.PlausibleGuestJSONRequestBody{Email: "guest@example.com", Role: "viewer"})
		must(t, guest, err, 200)
		guests, err := c.PlausibleListGuestsWithResponse(ctx, &client.PlausibleListGuestsParams{SiteId: "plausible-sites.example"})
		must(t, guests, err, 200)
		delGuest, err := c.PlausibleDeleteGuestWithResponse(ctx, "guest@example.com", (*client.PlausibleDeleteGuestParams)(sites), client.PlausibleDeleteGuestJSONRequestBody{})
		must(t, delGuest, err, 200)
		gone, err := c.PlausibleDeleteSiteWithResponse(ctx, "plausible-sites.example")
		must(t, gone, err, 200)
		gone, err = c.PlausibleDeleteSiteWithResponse(ctx, "plausible-sites.example")
		must(t, gone, err, 404)
		metrics, err := c.GetMetricsWithResponse(ctx)
		if !strings.Contains(string(must(t, metrics, err, 200).Body), "analytics_events_accepted_total 13") {
			t.Fatalf("metrics:\n%s", metrics.Body)
		}
	})

	s.requireEveryOperation(t, 200, 201, 202, 204, 400, 401, 404, 422)
}

func storeWith(t *testing.T, c *client.ClientWithResponses, form client.WebsiteStoreForm) client.Website {
	t.Helper()
	res, err := c.StoreWebsiteWithFormdataBodyWithResponse(context.Background(), form)
	return must(t, res, err, 201).JSON201.Data
}

func date(t *testing.T, s string) openapi_types.Date {
	t.Helper()
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		t.Fatal(err)
	}
	return openapi_types.Date{Time: d}
}

func wantFields(t *testing.T, errs *map[string][]string, fields ...string) {
	t.Helper()
	if errs == nil || len(*errs) != len(fields) {
		t.Fatalf("errors %v, want exactly %v", errs, fields)
	}
	for _, f := range fields {
		if len((*errs)[f]) == 0 {
			t.Fatalf("errors %v, want %q", *errs, f)
		}
	}
}

// waitForStats lists until the flusher has written at least total entries.
func waitForStats(t *testing.T, c *client.ClientWithResponses, id int64, params client.ListStatsParams, total int64) *client.StatList {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, err := c.ListStatsWithResponse(context.Background(), id, &params)
		list := must(t, res, err, 200).JSON200
		if list.Meta.Total >= total {
			return list
		}
		if time.Now().After(deadline) {
			t.Fatalf("stats not written after 10 s: %+v", list.Meta)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Example_goClient is the README's example of the Go client; compiled with the tests so that it
// stays true.
func Example_goClient() {
	ctx, key := context.Background(), "pa_..."
	run := func() error {
		c, err := client.NewClientWithResponses("http://localhost:8080",
			client.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
				req.Header.Set("Authorization", "Bearer "+key)
				return nil
			}))
		if err != nil {
			return err
		}
		privacy := client.PrivacyPublic
		res, err := c.StoreWebsiteWithFormdataBodyWithResponse(ctx, client.WebsiteStoreForm{Domain: "example.com", Privacy: &privacy})
		switch {
		case err != nil:
			return err
		case res.JSON201 != nil:
			fmt.Println("added", res.JSON201.Data.Id)
		case res.JSON422 != nil:
			fmt.Println("refused", *res.JSON422.Errors) // map[domain:[...]]
		}
		favorite, perPage := true, client.PageSizeN10
		list, err := c.ListWebsitesWithResponse(ctx, &client.ListWebsitesParams{Favorite: &favorite, PerPage: &perPage})
		_ = list
		return err
	}
	_ = run
}

// number is a query API metric that is a number (every metric but revenue), as the Go client
// reads it.
func number(t *testing.T, v client.QueryMetricValue) float64 {
	t.Helper()
	x, err := v.AsQueryMetricValue0()
	if err != nil {
		t.Fatalf("a metric is not a number: %v", err)
	}
	return x
}
