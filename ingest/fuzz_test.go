package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/analytics-service/analytics/handlers/spectest"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// staticSites is a SiteSource that needs no database.
type staticSites []repository.WebsiteSettings

func (s staticSites) AllWebsiteSettings(context.Context) ([]repository.WebsiteSettings, error) {
	return s, nil
}

func (s staticSites) WebsiteSettingsByID(_ context.Context, id int64) (repository.WebsiteSettings, error) {
	for _, x := range s {
		if x.ID == id {
			return x, nil
		}
	}
	return repository.WebsiteSettings{}, repository.ErrNotFound
}

// FuzzCollect sends arbitrary tracker requests (body, content type, user agent, language,
// forwarded address) to the collector. Whatever comes in, the answer is one the spec declares
// (checked against openapi.yaml), an error has the contract's body, and every counter it
// records is one PostgreSQL can store and the stats pages can show: a known statistic, a
// value of valid UTF-8 without NUL (which would fail the whole flush, forever), at most 255
// characters.
func FuzzCollect(f *testing.F) {
	f.Add([]byte(`{"page":"https://fuzz.test/a?utm_campaign=spring&ref=x","referrer":"https://www.google.com/","screen_resolution":"1920x1080"}`),
		"text/plain;charset=UTF-8", ChromeWindowsUA, "de-CH,de;q=0.9", "198.51.100.7")
	f.Add([]byte(`{"page":"https://www.FUZZ.test/","event":{"name":"Purchase","value":5,"unit":"USD"}}`),
		"application/json", SafariIPhoneUA, "", "2001:db8:1::9")
	f.Add([]byte(`{"page":"https://drop.test/p?x=%00&utm_campaign=%FF","referrer":"https://drop.test/"}`), "text/plain", ChromeWindowsUA, "*", "10.0.0.1, garbage")
	f.Add([]byte(`{"page":"http://fuzz.test","event":{"name":"a\u0000b","unit":"\u0000"}}`), "application/json; charset=utf-8", "curl/8.0", "en", "")
	f.Add([]byte(`{"page":"https://fuzz.test/\u0000"}`), "text/plain", "\x00", "\xff", "::ffff:1.2.3.4")
	f.Add([]byte(`[1,2]`), "text/html", "Googlebot", "", "")
	f.Add([]byte(`{"page":"https://params.test/x?utm_campaign=%FF%00&%00=1","referrer":"https://\u00e9xample.com/"}`), "text/plain", ChromeWindowsUA, "", "")

	sites := NewWebsites(staticSites{
		{ID: 1, Domain: "fuzz.test", ExcludeBots: 0},
		{ID: 2, Domain: "drop.test", ExcludeBots: 1, ExcludeParams: ptr("&"), ExcludeIPs: ptr("203.0.113.0/24\n2001:db8:9::/48")},
		{ID: 3, Domain: "params.test", ExcludeBots: 0, ExcludeParams: ptr("ref\nutm_source\n%00")},
	})
	if err := sites.Load(context.Background()); err != nil {
		f.Fatal(err)
	}
	counters := NewCounters(1 << 20)
	c := &Collector{
		Websites: sites, Counters: counters, Geo: openTestGeoDB(f),
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
		Location:       time.UTC, Now: func() time.Time { return time.Date(2026, 3, 4, 20, 0, 0, 0, time.UTC) },
	}
	withVisits(f, c, time.Minute)
	declared := map[int]bool{202: true, 400: true, 413: true}

	f.Fuzz(func(t *testing.T, body []byte, contentType, ua, language, forwarded string) {
		req := httptest.NewRequest(http.MethodPost, "http://collector.test/api/event", bytes.NewReader(body))
		req.RemoteAddr = "127.0.0.1:5000"
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("User-Agent", ua)
		req.Header.Set("Accept-Language", language)
		req.Header.Set("X-Forwarded-For", forwarded)
		rec := httptest.NewRecorder()
		c.ServeHTTP(rec, req)
		if !declared[rec.Code] {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		spectest.ValidateResponse(t, http.MethodPost, "http://collector.test/api/event", rec.Code, rec.Header(), rec.Body.Bytes())
		if rec.Code >= 400 {
			var e struct {
				Message string `json:"message"`
				Status  int    `json:"status"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Status != rec.Code || e.Message == "" {
				t.Fatalf("error body %q for %d", rec.Body, rec.Code)
			}
		}
		c.Visits.Collect(c.Now())
		taken := counters.take()
		defer counters.release(len(taken.counts) + len(taken.members))
		for k := range taken.counts {
			if !stats.Known(string(k.Name)) && !slices.Contains(stats.Internal, k.Name) || k.WebsiteID < 1 || k.WebsiteID > 3 {
				t.Fatalf("counter %+v", k)
			}
			if !utf8.ValidString(k.Value) || strings.IndexByte(k.Value, 0) >= 0 || utf8.RuneCountInString(k.Value) > maxPageLength {
				t.Fatalf("%s value %q cannot be stored", k.Name, k.Value)
			}
		}
	})
}

func ptr(s string) *string { return &s }
