package phpanalytics_test

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"

	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/importer/phpanalytics"
	"github.com/analytics-service/analytics/importer/phpanalytics/phpatest"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/testkit/harness"
	"github.com/analytics-service/analytics/website"
)

// appKey is the fixture's APP_KEY, as phpAnalytics' .env holds it.
var appKeyBytes = []byte("0123456789abcdef0123456789abcdef")
var appKey = "base64:" + base64.StdEncoding.EncodeToString(appKeyBytes)

// laravelEncrypt builds what Laravel's encryptString (or, serialized, encrypt) writes: base64
// JSON of iv, value (AES-256-CBC, PKCS#7) and mac (hex HMAC-SHA256 of base64 iv + base64 value).
func laravelEncrypt(t *testing.T, key []byte, plain string) string {
	t.Helper()
	iv := make([]byte, aes.BlockSize)
	if _, err := rand.Read(iv); err != nil {
		t.Fatal(err)
	}
	pad := aes.BlockSize - len(plain)%aes.BlockSize
	data := append([]byte(plain), bytes.Repeat([]byte{byte(pad)}, pad)...)
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(data, data)
	ivB64, valueB64 := base64.StdEncoding.EncodeToString(iv), base64.StdEncoding.EncodeToString(data)
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(ivB64 + valueB64))
	body, _ := json.Marshal(map[string]string{"iv": ivB64, "value": valueB64, "mac": hex.EncodeToString(mac.Sum(nil)), "tag": ""})
	return base64.StdEncoding.EncodeToString(body)
}

func TestDecrypt(t *testing.T) {
	key, err := phpanalytics.ParseAppKey(appKey)
	if err != nil {
		t.Fatal(err)
	}
	for _, plain := range []string{"s3cret", "", "pässwörd with 16+ bytes, unicode 日本", strings.Repeat("x", 16)} {
		if got, err := key.Decrypt(laravelEncrypt(t, appKeyBytes, plain)); err != nil || got != plain {
			t.Errorf("encryptString(%q) decrypts to %q, %v", plain, got, err)
		}
		serialized := fmt.Sprintf("s:%d:\"%s\";", len(plain), plain)
		if got, err := key.Decrypt(laravelEncrypt(t, appKeyBytes, serialized)); err != nil || got != plain {
			t.Errorf("encrypt(%q) decrypts to %q, %v", plain, got, err)
		}
	}
	other, _ := phpanalytics.ParseAppKey("base64:" + base64.StdEncoding.EncodeToString([]byte("ffffffffffffffffffffffffffffffff")))
	if _, err := other.Decrypt(laravelEncrypt(t, appKeyBytes, "s3cret")); err == nil || !strings.Contains(err.Error(), "wrong --app-key") {
		t.Errorf("a wrong key: %v", err)
	}
	payload := laravelEncrypt(t, appKeyBytes, "s3cret")
	raw, _ := base64.StdEncoding.DecodeString(payload)
	tampered := base64.StdEncoding.EncodeToString(bytes.Replace(raw, []byte(`"mac":"`), []byte(`"mac":"00`), 1))
	for name, p := range map[string]string{"tampered": tampered, "not base64": "%%%", "not json": base64.StdEncoding.EncodeToString([]byte("{")),
		"no mac": base64.StdEncoding.EncodeToString([]byte(`{"iv":"a","value":"b"}`))} {
		if _, err := key.Decrypt(p); err == nil {
			t.Errorf("%s payload decrypted", name)
		}
	}
	for _, bad := range []string{"base64:!!", "short", "base64:" + base64.StdEncoding.EncodeToString([]byte("24 bytes is not a size!!"))} {
		if _, err := phpanalytics.ParseAppKey(bad); err == nil || !strings.Contains(err.Error(), "--app-key") {
			t.Errorf("ParseAppKey(%q): %v", bad, err)
		}
	}
	if k, err := phpanalytics.ParseAppKey(string(appKeyBytes)); err != nil || len(k) != 32 {
		t.Errorf("a raw 32-byte key: %v", err)
	}
}

// row is a phpAnalytics stats row.
type row struct {
	website int
	name    string
	value   string
	date    string
	count   int64
}

// fixture is a phpAnalytics database with three owners and five websites, and this service's
// database and API.
type fixture struct {
	*harness.Env
	dsn string
	pa  *sql.DB
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dsn, pa := phpatest.New(t)
	f := &fixture{Env: harness.New(t), dsn: dsn, pa: pa}
	f.exec(`INSERT INTO users (id, name, email, password, created_at, deleted_at) VALUES
		(1, 'Owner', 'owner@example.com', 'x', '2020-01-01', NULL),
		(2, 'Second', 'second@example.com', 'x', '2020-01-01', NULL),
		(3, 'Gone', 'gone@example.com', 'x', '2020-01-01', '2023-01-01')`)
	f.exec(`INSERT INTO websites (id, user_id, domain, privacy, password, email, exclude_bots, exclude_params, exclude_ips, favorited_at, created_at) VALUES
		(1, 1, 'example.com', 2, ?, 1, 0, 'utm_source\r\nref', '10.0.0.0/8\n2001:db8::1', '2024-01-01', '2021-03-04 05:06:07'),
		(2, 2, 'www.Shop.example.org', 0, NULL, 0, 1, NULL, NULL, NULL, '2022-01-01'),
		(3, 1, 'taken.example', 0, NULL, 0, 1, '', '', NULL, '2022-01-01'),
		(4, 3, 'gone.example', 0, NULL, 0, 1, NULL, NULL, NULL, '2022-01-01'),
		(5, 1, 'private.example', 1, ?, 0, 1, NULL, NULL, NULL, '2022-01-01')`,
		laravelEncrypt(t, appKeyBytes, "s3cret pass"), laravelEncrypt(t, appKeyBytes, `s:12:"другой";`))
	return f
}

func (f *fixture) exec(query string, args ...any) {
	f.T.Helper()
	if _, err := f.pa.Exec(query, args...); err != nil {
		f.T.Fatalf("phpAnalytics fixture: %v\n%s", err, query)
	}
}

func (f *fixture) insert(rows []row) {
	f.T.Helper()
	for _, r := range rows {
		f.exec(`INSERT INTO stats (website_id, name, value, count, date) VALUES (?, ?, ?, ?, ?)`,
			r.website, r.name, r.value, r.count, r.date)
	}
}

// run imports with the options given, against the fixture's databases.
func (f *fixture) run(o phpanalytics.Options) (string, error) {
	f.T.Helper()
	var out bytes.Buffer
	if o.DSN == "" {
		o.DSN = f.dsn
	}
	o.Repo, o.Out, o.Location = f.Repo, &out, time.UTC
	summary, err := phpanalytics.Run(context.Background(), o)
	if summary != nil {
		summary.Print(&out, o.DryRun)
	}
	return out.String(), err
}

// statsAPI reads every value of a statistic over a range through GET /api/v1/stats, page by
// page, each answer checked against openapi.yaml.
func (f *fixture) statsAPI(key string, id int64, name, from, to string) map[string]int64 {
	f.T.Helper()
	out := map[string]int64{}
	for page := 1; ; page++ {
		target := fmt.Sprintf("/api/v1/stats/%d?name=%s&from=%s&to=%s&per_page=100&page=%d", id, name, from, to, page)
		res := f.Do(harness.Request{Path: target, Key: key})
		if res.Status != http.StatusOK {
			f.T.Fatalf("GET %s: %d %s", target, res.Status, res.Body)
		}
		var body struct {
			Data []struct {
				Value string `json:"value"`
				Count int64  `json:"count"`
			} `json:"data"`
			Meta struct {
				LastPage int `json:"last_page"`
			} `json:"meta"`
		}
		if err := json.Unmarshal(res.Body, &body); err != nil {
			f.T.Fatal(err)
		}
		for _, e := range body.Data {
			out[e.Value] += e.Count
		}
		if page >= body.Meta.LastPage {
			return out
		}
	}
}

// getJSON reads an API answer, checked against openapi.yaml, into v.
func (f *fixture) getJSON(key, path string, v any) {
	f.T.Helper()
	res := f.Do(harness.Request{Path: path, Key: key})
	if res.Status != http.StatusOK {
		f.T.Fatalf("GET %s: %d %s", path, res.Status, res.Body)
	}
	if err := json.Unmarshal(res.Body, v); err != nil {
		f.T.Fatal(err)
	}
}

// websiteFor returns the imported website with the domain, its owner's id and an API key of
// the owner.
func (f *fixture) websiteFor(domain string) (repository.Website, string) {
	f.T.Helper()
	w, err := f.Repo.WebsiteByDomain(context.Background(), domain)
	if err != nil {
		f.T.Fatalf("website %s: %v", domain, err)
	}
	key, err := f.Repo.CreateAPIKey(context.Background(), w.UserID)
	if err != nil {
		f.T.Fatal(err)
	}
	return w, key
}

// oddRows are example.com's rows with the values phpAnalytics writes that need care, and what
// each becomes here (name, value), when it is not the same.
var oddRows = []struct {
	row
	name, value string
}{
	{row{1, "os", "OS X", "2024-02-03", 3}, "operating_system", "macOS"},
	{row{1, "os", "Ubuntu", "2024-02-03", 1}, "operating_system", "Linux"},
	{row{1, "os", "Windows", "2024-02-04", 5}, "operating_system", "Windows"},
	{row{1, "os", "Windows Phone", "2024-02-04", 1}, "operating_system", "Windows Phone"},
	{row{1, "device", "television", "2024-02-03", 2}, "device", "tv"},
	{row{1, "device", "gaming", "2024-02-03", 1}, "device", "console"},
	{row{1, "device", "ereader", "2024-02-03", 1}, "device", "ereader"},
	{row{1, "device", "desktop", "2024-02-04", 7}, "device", "desktop"},
	{row{1, "device", "", "2024-02-04", 2}, "device", ""},
	{row{1, "browser", "Samsung Browser", "2024-02-03", 2}, "browser", "Samsung Internet"},
	{row{1, "browser", "Internet Explorer", "2024-02-03", 1}, "browser", "IE"},
	{row{1, "browser", "UC Browser", "2024-02-04", 1}, "browser", "UC Browser"},
	{row{1, "browser", "Firefox", "2024-02-04", 4}, "browser", "Firefox"},
	{row{1, "country", ":", "2024-02-03", 2}, "country", ""},
	{row{1, "country", "", "2024-02-04", 1}, "country", ""},
	{row{1, "country", "DE:Germany", "2024-02-04", 6}, "country", "DE:Germany"},
	{row{1, "continent", "EU:Europe", "2024-02-04", 6}, "continent", "EU:Europe"},
	{row{1, "continent", ":", "2024-02-04", 3}, "continent", ""},
	{row{1, "city", "US:, NY", "2024-02-03", 1}, "city", ""},
	{row{1, "city", "US:New York, NY", "2024-02-03", 2}, "city", "US:New York, NY"},
	{row{1, "city", "JP:東京", "2024-02-04", 1}, "city", "JP:東京"},
	{row{1, "language", "EN", "2024-02-03", 1}, "language", "en"},
	{row{1, "language", "en", "2024-02-04", 2}, "language", "en"},
	{row{1, "language", "*", "2024-02-04", 1}, "language", "*"},
	{row{1, "resolution", "1920x1080", "2024-02-03", 4}, "screen_resolution", "1920x1080"},
	{row{1, "resolution", "abc", "2024-02-03", 1}, "screen_resolution", "abc"},
	{row{1, "resolution", "", "2024-02-04", 1}, "screen_resolution", ""},
	{row{1, "page", "/café/日本語?q=ü", "2024-02-03", 3}, "page", "/café/日本語?q=ü"},
	{row{1, "page", "/" + strings.Repeat("é", 254), "2024-02-03", 2}, "page", "/" + strings.Repeat("é", 254)},
	{row{1, "page", "?only=query", "2024-02-04", 1}, "page", "/?only=query"},
	{row{1, "page", "/über-uns", "2024-02-03", 1}, "page", "/über-uns"},
	{row{1, "page", "/%C3%BCber-uns", "2024-02-04", 2}, "page", "/über-uns"}, // escaped: the one spelling
	{row{1, "page", "/", "2024-03-01", 9}, "page", "/"},
	{row{1, "landing_page", "/", "2024-03-01", 4}, "landing_page", "/"},
	{row{1, "referrer", "", "2024-02-03", 5}, "referrer", ""},
	{row{1, "referrer", "news.ycombinator.com", "2024-02-03", 2}, "referrer", "news.ycombinator.com"},
	{row{1, "campaign", "spring <sale> & \"more\"", "2024-02-03", 1}, "campaign", "spring <sale> & \"more\""},
	{row{1, "event", "Purchase:5:USD", "2024-02-03", 2}, "event", "Purchase:5:USD"},
	{row{1, "event", "Signup::", "2024-02-04", 1}, "event", "Signup::"},
	{row{1, "event", "Ünïcode event::", "2024-02-04", 1}, "event", "Ünïcode event::"},
	{row{1, "pageviews", "2024-02-03", "2024-02-03", 30}, "pageview", "2024-02-03"},
	{row{1, "pageviews", "2024-02-04", "2024-02-04", 20}, "pageview", "2024-02-04"},
	{row{1, "pageviews", "2024-03-01", "2024-03-01", 9}, "pageview", "2024-03-01"},
	{row{1, "visitors", "2024-02-03", "2024-02-03", 12}, "visitor", "2024-02-03"},
	{row{1, "visitors", "2024-02-04", "2024-02-04", 8}, "visitor", "2024-02-04"},
	{row{1, "visitors", "2024-03-01", "2024-03-01", 4}, "visitor", "2024-03-01"},
	{row{1, "visitors_hour", "09", "2024-02-03", 7}, "visitor_hour", "09"},
	{row{1, "visitors_hour", "23", "2024-02-03", 5}, "visitor_hour", "23"},
	{row{1, "pageviews_hour", "09", "2024-02-03", 18}, "pageview_hour", "09"},
	{row{1, "pageviews_hour", "23", "2024-02-03", 12}, "pageview_hour", "23"},
}

func TestImportPHPAnalytics(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	var rows []row
	for _, o := range oddRows {
		rows = append(rows, o.row)
	}
	// A longer history for the second website: two years of days, so that whole months and
	// weeks are read from the rollups.
	first := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	for d := 0; d < 730; d++ {
		day := first.AddDate(0, 0, d).Format(time.DateOnly)
		rows = append(rows,
			row{2, "pageviews", day, day, int64(100 + d%17)},
			row{2, "visitors", day, day, int64(40 + d%7)},
			row{2, "page", "/", day, int64(60 + d%5)},
			row{2, "page", fmt.Sprintf("/p/%d", d%40), day, int64(40 + d%17 - d%5)},
			row{2, "browser", "Chrome", day, int64(40 + d%7)})
	}
	rows = append(rows, row{3, "pageviews", "2024-01-01", "2024-01-01", 5}, row{4, "pageviews", "2024-01-01", "2024-01-01", 5},
		row{5, "pageviews", "2024-01-01", "2024-01-01", 5})
	f.insert(rows)
	// An existing website here keeps its domain; its phpAnalytics namesake is skipped.
	existing, err := f.Repo.CreateUser(ctx, "someone@example.net")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Repo.CreateWebsite(ctx, existing.ID, repository.NewWebsite{Domain: "taken.example", ExcludeBots: 1}); err != nil {
		t.Fatal(err)
	}
	owner, err := f.Repo.CreateUser(ctx, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	// Periods up to last month rolled up already: the import's days are late writes, which
	// the rollups must take too.
	if err := f.Repo.RollUp(ctx, time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}

	// An account that may only read suffices.
	out, err := f.run(phpanalytics.Options{DSN: phpatest.ReadOnly(t, f.dsn), AppKey: appKey})
	if err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	for _, want := range []string{
		"created user second@example.com",
		"skipped: taken.example: a website with this domain exists here",
		"skipped: gone.example: its owner (phpAnalytics user 3) was deleted there",
		"summary: imported 3 websites, 3701 rows, 734 days; 2 skipped, 0 failed",
		"kept as they are (no counterpart here), rows:\n",
		"    \"Windows Phone\": 1\n",
		"  device: 1\n    \"ereader\": 1\n",
		"  browser: 1\n    \"UC Browser\": 1\n",
		"  language: 1\n    \"*\": 1\n",
		"  screen_resolution: 1\n    \"abc\": 1\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "created user owner@example.com") {
		t.Errorf("an existing user was created again:\n%s", out)
	}

	// Settings.
	site, key := f.websiteFor("example.com")
	if site.UserID != owner.ID || site.Privacy != 2 || site.Email != 1 || site.ExcludeBots != 0 || !site.Favorite ||
		site.PasswordHash == nil || !website.VerifyPassword(*site.PasswordHash, "s3cret pass") ||
		*site.ExcludeParams != "utm_source\nref" || *site.ExcludeIPs != "10.0.0.0/8\n2001:db8::1" ||
		!site.CreatedAt.Equal(time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)) {
		t.Errorf("example.com imported as %+v", site)
	}
	private, _ := f.websiteFor("private.example")
	if private.Privacy != 1 || private.PasswordHash == nil || !website.VerifyPassword(*private.PasswordHash, "другой") {
		t.Errorf("private.example imported as %+v (its password was serialized by encrypt())", private)
	}
	shop, shopKey := f.websiteFor("shop.example.org")
	if shop.Privacy != 0 || shop.PasswordHash != nil || shop.ExcludeParams != nil || shop.ExcludeIPs != nil || shop.Favorite {
		t.Errorf("shop.example.org imported as %+v", shop)
	}
	second, err := f.Repo.UserByEmail(ctx, "second@example.com")
	if err != nil || shop.UserID != second.ID {
		t.Errorf("shop.example.org belongs to user %d, second@example.com is %+v (%v)", shop.UserID, second, err)
	}
	if _, hash, err := f.Repo.UserPasswordHash(ctx, "second@example.com"); err != nil || hash != "" {
		t.Errorf("the created owner has a password (%q) or is missing: %v", hash, err)
	}

	// Every number of example.com, through the API, against the source.
	want := map[string]map[string]int64{}
	internal := map[string]map[string]int64{}
	for _, o := range oddRows {
		m := want
		if strings.HasSuffix(o.name, "_hour") {
			m = internal
		}
		if m[o.name] == nil {
			m[o.name] = map[string]int64{}
		}
		m[o.name][o.value] += o.count
		if o.name == "visitor" || o.name == "visitor_hour" {
			visits := strings.Replace(o.name, "visitor", "visit", 1)
			if m[visits] == nil {
				m[visits] = map[string]int64{}
			}
			m[visits][o.value] += o.count
		}
	}
	for name, values := range want {
		got := f.statsAPI(key, site.ID, name, "2024-01-01", "2024-12-31")
		if fmt.Sprint(got) != fmt.Sprint(values) {
			t.Errorf("%s through the API:\n got %v\nwant %v", name, got, values)
		}
	}
	for name, values := range internal {
		entries, _, err := f.Repo.Reader(site.ID, rangeOf(t, "2024-02-03", "2024-02-03"), nil).List(ctx,
			repository.StatQuery{Name: stat(name), SortBy: "value"})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int64{}
		for _, e := range entries {
			got[e.Value] = e.Count
		}
		if fmt.Sprint(got) != fmt.Sprint(values) {
			t.Errorf("%s:\n got %v\nwant %v", name, got, values)
		}
	}

	// The summary and the time series, through the API: imported days have visits equal to
	// their visitors, and no bounce rate or duration.
	var summary struct {
		Data map[string]float64 `json:"data"`
	}
	f.getJSON(key, fmt.Sprintf("/api/v1/stats/%d/summary?from=2024-01-01&to=2024-12-31", site.ID), &summary)
	if want := map[string]float64{"visitors": 24, "visits": 24, "pageviews": 59, "events": 4, "views_per_visit": 2.46,
		"bounce_rate": 0, "visit_duration": 0}; fmt.Sprint(summary.Data) != fmt.Sprint(want) {
		t.Errorf("summary:\n got %v\nwant %v", summary.Data, want)
	}
	type bucket struct {
		Date      string `json:"date"`
		Visitors  int64  `json:"visitors"`
		Visits    int64  `json:"visits"`
		Pageviews int64  `json:"pageviews"`
	}
	var hours struct{ Data []bucket }
	f.getJSON(key, fmt.Sprintf("/api/v1/stats/%d/timeseries?from=2024-02-03&to=2024-02-03&interval=hour", site.ID), &hours)
	var busy []bucket
	for _, h := range hours.Data {
		if h.Visitors+h.Visits+h.Pageviews > 0 {
			busy = append(busy, h)
		}
	}
	if want := "[{2024-02-03T09:00:00Z 7 7 18} {2024-02-03T23:00:00Z 5 5 12}]"; len(hours.Data) != 24 || fmt.Sprint(busy) != want {
		t.Errorf("hours of 2024-02-03: %d buckets, busy %v, want %s", len(hours.Data), busy, want)
	}
	var days struct{ Data []bucket }
	f.getJSON(shopKey, fmt.Sprintf("/api/v1/stats/%d/timeseries?from=2023-01-01&to=2024-12-31&interval=day", shop.ID), &days)
	pageviews, visitors := f.sourceSums(2, "pageviews", "2023-01-01", "2024-12-31"), f.sourceSums(2, "visitors", "2023-01-01", "2024-12-31")
	if len(days.Data) != 731 {
		t.Errorf("%d days in the series of 2023-2024", len(days.Data))
	}
	for _, d := range days.Data {
		if d.Pageviews != pageviews[d.Date] || d.Visitors != visitors[d.Date] || d.Visits != visitors[d.Date] {
			t.Errorf("%s: %+v, phpAnalytics had %d pageviews and %d visitors", d.Date, d, pageviews[d.Date], visitors[d.Date])
			break
		}
	}

	// The second website's two years, whole months and weeks from the rollups, against sums
	// computed by MariaDB.
	for _, name := range []string{"pageview", "visitor", "visit", "page", "browser"} {
		source := map[string]string{"pageview": "pageviews", "visitor": "visitors", "visit": "visitors"}[name]
		if source == "" {
			source = name
		}
		for _, r := range [][2]string{{"2023-01-01", "2024-12-31"}, {"2023-02-15", "2024-07-09"}, {"2024-03-01", "2024-03-31"}} {
			got := f.statsAPI(shopKey, shop.ID, name, r[0], r[1])
			wantSums := f.sourceSums(2, source, r[0], r[1])
			if fmt.Sprint(got) != fmt.Sprint(wantSums) {
				t.Errorf("%s %s..%s: got %d values, want %d; first differences: %v", name, r[0], r[1], len(got), len(wantSums), diff(got, wantSums))
			}
		}
	}

	// Imported days are marked, and collection counts by visits from after the last of them.
	var marked []struct {
		Day    time.Time `db:"day"`
		Source string    `db:"source"`
	}
	if err := f.DB.Select(&marked, `SELECT day, source FROM imported_days WHERE website_id = $1 ORDER BY day`, site.ID); err != nil {
		t.Fatal(err)
	}
	if len(marked) != 3 || marked[0].Source != "phpanalytics" || marked[2].Day.Format(time.DateOnly) != "2024-03-01" {
		t.Errorf("imported days of example.com: %+v", marked)
	}
	var visitsFrom time.Time
	if err := f.DB.Get(&visitsFrom, `SELECT visits_from FROM websites WHERE id = $1`, shop.ID); err != nil {
		t.Fatal(err)
	}
	if today := harness.Today.UTC().Truncate(24 * time.Hour); visitsFrom.Before(today) {
		t.Errorf("visits_from of shop.example.org is %s, before today", visitsFrom)
	}

	// A second run adds nothing.
	before := f.fingerprint()
	out, err = f.run(phpanalytics.Options{AppKey: appKey})
	if err != nil {
		t.Fatalf("second import: %v\n%s", err, out)
	}
	if !strings.Contains(out, "summary: imported 0 websites, 0 rows, 0 days; 5 skipped, 0 failed") {
		t.Errorf("second run:\n%s", out)
	}
	if after := f.fingerprint(); after != before {
		t.Errorf("the second run changed the database: %s -> %s", before, after)
	}
}

// fingerprint sums up what the import writes here.
func (f *fixture) fingerprint() string {
	f.T.Helper()
	var s string
	err := f.DB.Get(&s, `SELECT concat_ws(' ',
		(SELECT count(*) || '/' || coalesce(sum(count), 0) FROM stats),
		(SELECT count(*) || '/' || coalesce(sum(count), 0) FROM stats_weekly),
		(SELECT count(*) || '/' || coalesce(sum(count), 0) FROM stats_monthly),
		(SELECT count(*) FROM imported_days), (SELECT count(*) FROM websites), (SELECT count(*) FROM users))`)
	if err != nil {
		f.T.Fatal(err)
	}
	return s
}

// sourceSums sums a phpAnalytics statistic of a website over a range, in MariaDB.
func (f *fixture) sourceSums(websiteID int, name, from, to string) map[string]int64 {
	f.T.Helper()
	rows, err := f.pa.Query(`SELECT value, SUM(count) FROM stats WHERE website_id = ? AND name = ? AND date BETWEEN ? AND ? GROUP BY value`,
		websiteID, name, from, to)
	if err != nil {
		f.T.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var v string
		var n int64
		if err := rows.Scan(&v, &n); err != nil {
			f.T.Fatal(err)
		}
		out[v] = n
	}
	return out
}

func diff(got, want map[string]int64) []string {
	var out []string
	for k, v := range want {
		if got[k] != v {
			out = append(out, fmt.Sprintf("%q: got %d want %d", k, got[k], v))
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			out = append(out, fmt.Sprintf("%q: got %d, not in the source", k, v))
		}
	}
	if len(out) > 5 {
		out = out[:5]
	}
	return out
}

func TestImportWithoutAppKey(t *testing.T) {
	f := newFixture(t)
	f.insert([]row{{1, "pageviews", "2024-01-01", "2024-01-01", 3}})
	out, err := f.run(phpanalytics.Options{})
	if err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	if !strings.Contains(out, "example.com: privacy 2 (password) becomes 1 (private)") ||
		!strings.Contains(out, "private.example: its password (no effect at this privacy) is left out") {
		t.Errorf("no line about the passwords:\n%s", out)
	}
	site, _ := f.websiteFor("example.com")
	if site.Privacy != 1 || site.PasswordHash != nil {
		t.Errorf("example.com without --app-key: %+v", site)
	}
}

func TestImportToOneUser(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if _, err := f.run(phpanalytics.Options{User: "nobody@example.net", AppKey: appKey}); err == nil ||
		!strings.Contains(err.Error(), `--user: no user with e-mail "nobody@example.net"`) {
		t.Errorf("an unknown --user: %v", err)
	}
	if got := f.fingerprint(); !strings.HasPrefix(got, "0/0 0/0 0/0 0 0 0") {
		t.Errorf("an unknown --user wrote %s", got)
	}
	me, err := f.Repo.CreateUser(ctx, "me@example.net")
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.run(phpanalytics.Options{User: "me@example.net", AppKey: appKey})
	if err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	var owners []int64
	if err := f.DB.Select(&owners, `SELECT DISTINCT user_id FROM websites`); err != nil {
		t.Fatal(err)
	}
	if len(owners) != 1 || owners[0] != me.ID || strings.Contains(out, "created user") {
		t.Errorf("websites went to %v, not only to %d:\n%s", owners, me.ID, out)
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	f := newFixture(t)
	f.insert([]row{{1, "pageviews", "2024-01-01", "2024-01-01", 3}, {1, "os", "OS X", "2024-01-01", 3}, {2, "device", "pda", "2024-01-02", 1}})
	before := f.fingerprint()
	out, err := f.run(phpanalytics.Options{DryRun: true})
	if err != nil {
		t.Fatalf("dry run: %v\n%s", err, out)
	}
	for _, want := range []string{"would create user owner@example.com", "would create user second@example.com",
		"example.com: would be imported for owner@example.com", "example.com: privacy 2 (password) becomes 1",
		"summary: would import (dry run, nothing written) 4 websites, 3 rows, 2 days; 1 skipped, 0 failed", "  device: 1\n    \"pda\": 1\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, out)
		}
	}
	if after := f.fingerprint(); after != before {
		t.Errorf("the dry run wrote: %s -> %s", before, after)
	}
}

func TestBadInput(t *testing.T) {
	f := newFixture(t)
	f.insert([]row{{1, "pageviews", "2024-01-01", "2024-01-01", 3}, {2, "pageviews", "2024-01-01", "2024-01-01", 4}})
	empty := f.fingerprint()

	cases := []struct {
		name, dsn, key, want string
	}{
		{"DSN that does not parse", "not a dsn", appKey, "--dsn"},
		{"server that does not answer", "u:p@tcp(127.0.0.1:1)/pa?timeout=2s", appKey, `cannot connect to the phpAnalytics database "pa" at 127.0.0.1:1`},
		{"no database in the DSN", "u:p@tcp(127.0.0.1:1)/", appKey, "no database name"},
		{"database that is not phpAnalytics'", otherDatabase(t), appKey, "is not a phpAnalytics database: it has no table websites, table stats, table users"},
		{"malformed app key", f.dsn, "base64:%%", "--app-key"},
	}
	for _, c := range cases {
		out, err := f.run(phpanalytics.Options{DSN: c.dsn, AppKey: c.key})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q\n%s", c.name, err, c.want, out)
		}
		if got := f.fingerprint(); got != empty {
			t.Errorf("%s wrote: %s", c.name, got)
		}
	}

	// A wrong key fails the websites with a password, and only them.
	wrong := "base64:" + base64.StdEncoding.EncodeToString([]byte("ffffffffffffffffffffffffffffffff"))
	out, err := f.run(phpanalytics.Options{AppKey: wrong})
	if err == nil || !strings.Contains(err.Error(), "2 of 5 websites failed") {
		t.Errorf("a wrong key: %v", err)
	}
	for _, want := range []string{"failed: example.com (phpAnalytics website 1): its password: decrypt: the MAC does not match: wrong --app-key?",
		"failed: private.example (phpAnalytics website 5)", "shop.example.org: imported"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := f.Repo.WebsiteByDomain(context.Background(), "example.com"); err == nil {
		t.Error("example.com was written despite its failure")
	}
}

// TestFailedWebsiteLeavesNothing: an error in the middle of a website's rows rolls all of it
// back, its website included; the other websites are imported.
func TestFailedWebsiteLeavesNothing(t *testing.T) {
	f := newFixture(t)
	var rows []row
	for d := 0; d < 40_000; d++ { // more than a batch: some of it is written before the error
		rows = append(rows, row{1, "page", fmt.Sprintf("/p/%d", d), "2024-01-01", 1})
	}
	f.insertMany(rows)
	f.exec(`SET SESSION sql_mode = ''`)
	f.exec(`INSERT INTO stats (website_id, name, value, count, date) VALUES (1, 'referrer', 'zzz', 1, '0000-00-00')`)
	f.insert([]row{{2, "pageviews", "2024-01-01", "2024-01-01", 4}})
	out, err := f.run(phpanalytics.Options{AppKey: appKey})
	if err == nil || !strings.Contains(out, `failed: example.com: a stats row (referrer, "zzz") has the date "0000-00-00", which is no day (nothing of it was written)`) {
		t.Fatalf("a zero date: %v\n%s", err, out)
	}
	var n int
	if err := f.DB.Get(&n, `SELECT count(*) FROM stats WHERE value LIKE '/p/%'`); err != nil || n != 0 {
		t.Errorf("%d rows of the failed website stayed (%v)", n, err)
	}
	if _, err := f.Repo.WebsiteByDomain(context.Background(), "example.com"); err == nil {
		t.Error("the failed website stayed")
	}
	if _, err := f.Repo.WebsiteByDomain(context.Background(), "shop.example.org"); err != nil {
		t.Errorf("the other website: %v", err)
	}
}

// insertMany inserts rows in multi-row statements.
func (f *fixture) insertMany(rows []row) {
	f.T.Helper()
	for len(rows) > 0 {
		n := min(len(rows), 1000)
		var sb strings.Builder
		args := make([]any, 0, n*5)
		sb.WriteString(`INSERT INTO stats (website_id, name, value, count, date) VALUES `)
		for i, r := range rows[:n] {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString("(?, ?, ?, ?, ?)")
			args = append(args, r.website, r.name, r.value, r.count, r.date)
		}
		f.exec(sb.String(), args...)
		rows = rows[n:]
	}
}

// otherDatabase is a database on the same server that is not phpAnalytics'.
func otherDatabase(t *testing.T) string {
	t.Helper()
	dsn, db := phpatest.New(t)
	for _, table := range []string{"stats", "websites", "users", "recents", "settings"} {
		if _, err := db.Exec("DROP TABLE " + table); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec("CREATE TABLE posts (id int PRIMARY KEY, title text)"); err != nil {
		t.Fatal(err)
	}
	return dsn
}

func rangeOf(t *testing.T, from, to string) stats.Range {
	t.Helper()
	a, _ := time.Parse(time.DateOnly, from)
	b, _ := time.Parse(time.DateOnly, to)
	return stats.Range{From: a, To: b}
}

func stat(name string) stats.Name { return stats.Name(name) }

// TestOldAndUnknownNames: the names of phpAnalytics before 3.7 are mapped, and a name of a
// customised enum is kept under itself and listed.
func TestOldAndUnknownNames(t *testing.T) {
	f := newFixture(t)
	f.exec(`ALTER TABLE stats MODIFY name ENUM('browser','os','device','visitors','pageviews','country','city','page','referrer',
		'resolution','language','landing_page','event','campaign','continent','visitors_hour','pageviews_hour',
		'visitors_hours','pageviews_hours','bogus') NOT NULL`)
	f.insert([]row{
		{2, "visitors_hours", "07", "2024-01-01", 3}, {2, "visitors_hour", "07", "2024-01-01", 2},
		{2, "pageviews_hours", "07", "2024-01-01", 9}, {2, "bogus", "x", "2024-01-01", 4},
	})
	out, err := f.run(phpanalytics.Options{AppKey: appKey})
	if err != nil || !strings.Contains(out, "  names (statistics kept under their own name): 1\n    \"bogus\": 1\n") {
		t.Fatalf("import: %v\n%s", err, out)
	}
	shop, _ := f.websiteFor("shop.example.org")
	var got []struct {
		Name  string `db:"name"`
		Value string `db:"value"`
		Count int64  `db:"count"`
	}
	if err := f.DB.Select(&got, `SELECT name, value, count FROM stats WHERE website_id = $1 ORDER BY name`, shop.ID); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[{bogus x 4} {pageview_hour 07 9} {visit_hour 07 5} {visitor_hour 07 5}]" {
		t.Errorf("stored: %v", got)
	}
}
