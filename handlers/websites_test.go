package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/testkit/harness"
	"github.com/analytics-service/analytics/website"
)

func form(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return v
}

func (e *env) store(key string, kv ...string) map[string]any {
	e.T.Helper()
	res := e.Do(harness.Request{Method: "POST", Path: "/api/v1/websites", Key: key, Form: form(kv...)})
	body := want(e.T, res, http.StatusCreated)
	return body["data"].(map[string]any)
}

func TestStoreAppliesDefaults(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	res := e.Do(harness.Request{Method: "POST", Path: "/api/v1/websites", Key: key, Form: form("domain", "example.com")})
	body := want(t, res, http.StatusCreated)
	w := body["data"].(map[string]any)
	if loc := res.Header.Get("Location"); loc != fmt.Sprintf("/api/v1/websites/%v", w["id"]) {
		t.Errorf("Location %q for id %v", loc, w["id"])
	}
	wantFields := map[string]any{
		"domain": "example.com", "privacy": 0.0, "password": false, "email": 0.0,
		"exclude_bots": 1.0, "exclude_params": nil, "exclude_ips": nil, "favorite": false,
		"created_at": "2026-03-04T05:06:07Z", "updated_at": "2026-03-04T05:06:07Z",
	}
	for k, v := range wantFields {
		if w[k] != v {
			t.Errorf("%s = %#v, want %#v", k, w[k], v)
		}
	}
}

func TestStoreKeepsEveryField(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	w := e.store(key, "domain", "example.org", "privacy", "2", "password", "s3cret", "email", "1",
		"exclude_bots", "0", "exclude_params", "utm_source\r\n\r\n  ref  \n&", "exclude_ips", " 10.0.0.0/8\r\n2001:db8::1\n\n192.0.2.7")
	checks := map[string]any{
		"privacy": 2.0, "password": true, "email": 1.0, "exclude_bots": 0.0,
		"exclude_params": "utm_source\nref\n&", "exclude_ips": "10.0.0.0/8\n2001:db8::1\n192.0.2.7",
	}
	for k, v := range checks {
		if w[k] != v {
			t.Errorf("%s = %#v, want %#v", k, w[k], v)
		}
	}
}

// A password sent with privacy 0 or 1 is stored (the flag says so) but does not make the
// website private: privacy stays as sent, and dropping to privacy 2 later needs no new one.
func TestPasswordWithPublicPrivacyIsKept(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	for _, privacy := range []string{"0", "1"} {
		w := e.store(key, "domain", "p"+privacy+".example.com", "privacy", privacy, "password", "pw")
		if w["password"] != true || fmt.Sprint(w["privacy"]) != privacy {
			t.Fatalf("privacy %s with a password: %v", privacy, w)
		}
		res := e.Do(harness.Request{Method: "PATCH", Path: fmt.Sprintf("/api/v1/websites/%v", w["id"]), Key: key, Form: form("privacy", "2")})
		if got := want(t, res, http.StatusOK)["data"].(map[string]any); got["privacy"] != 2.0 {
			t.Fatalf("privacy 2 with the stored password: %v", got)
		}
	}
}

// An empty password on store means none: with privacy 0 or 1 the website is stored without one.
func TestStoreEmptyPasswordMeansNone(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	w := e.store(key, "domain", "example.com", "privacy", "1", "password", "")
	if w["password"] != false || w["privacy"] != 1.0 {
		t.Fatalf("stored %v", w)
	}
}

func TestStoreNormalisesDomain(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Example.COM", "example.com"},
		{"  example.com  ", "example.com"},
		{"https://www.example.com/blog/post?x=1#top", "example.com"},
		{"http://WWW.Example.com:8080", "example.com"},
		{"example.com.", "example.com"},
		{"www.example.com.", "example.com"},
		{"sub.www.example.com", "sub.www.example.com"},
		{"localhost", "localhost"},
		{"192.0.2.1", "192.0.2.1"},
		{"http://192.0.2.1:8080/x", "192.0.2.1"},
		{"[2001:DB8::1]:443", "2001:db8::1"},
		{"2001:db8::2", "2001:db8::2"},
		{"xn--mnchen-3ya.de", "xn--mnchen-3ya.de"},
		{"https://www.münchen.de/", "xn--mnchen-3ya.de"},
		{strings.Repeat("a", 63) + ".com", strings.Repeat("a", 63) + ".com"},
	}
	e := newEnv(t)
	key := e.User("a@example.com").Key
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			e := e.in(t)
			w := e.store(key, "domain", c.in)
			if w["domain"] != c.want {
				t.Fatalf("domain %q, want %q", w["domain"], c.want)
			}
			e.Do(harness.Request{Method: "DELETE", Path: fmt.Sprintf("/api/v1/websites/%v", w["id"]), Key: key})
		})
	}
}

func TestStoreRefusesBadInput(t *testing.T) {
	long := strings.Repeat("a", 60) + "."
	cases := []struct {
		name  string
		form  url.Values
		field string
	}{
		{"no domain", form("privacy", "0"), "domain"},
		{"empty domain", form("domain", ""), "domain"},
		{"blank domain", form("domain", "   "), "domain"},
		{"domain with space", form("domain", "exa mple.com"), "domain"},
		{"domain with underscore", form("domain", "ex_ample.com"), "domain"},
		{"label starting with hyphen", form("domain", "-example.com"), "domain"},
		{"empty label", form("domain", "example..com"), "domain"},
		{"doubled scheme", form("domain", "https://https://x.com"), "domain"},
		{"two schemes", form("domain", "http://https://x.com"), "domain"},
		{"scheme and empty port", form("domain", "x.com:"), "domain"},
		{"label over 63", form("domain", strings.Repeat("a", 64)+".com"), "domain"},
		{"domain over 255", form("domain", strings.Repeat(long, 5)+"com"), "domain"},
		{"user info", form("domain", "user@example.com"), "domain"},
		{"only scheme", form("domain", "https://"), "domain"},
		{"junk after an IPv6 literal", form("domain", "[2001:db8::1]x"), "domain"},
		{"privacy 3", form("domain", "a.com", "privacy", "3"), "privacy"},
		{"privacy -1", form("domain", "a.com", "privacy", "-1"), "privacy"},
		{"privacy text", form("domain", "a.com", "privacy", "public"), "privacy"},
		{"privacy 2 without password", form("domain", "a.com", "privacy", "2"), "password"},
		{"empty password with privacy 2", form("domain", "a.com", "privacy", "2", "password", ""), "password"},
		{"password over 128", form("domain", "a.com", "password", strings.Repeat("p", 129)), "password"},
		{"email 2", form("domain", "a.com", "email", "2"), "email"},
		{"email true", form("domain", "a.com", "email", "true"), "email"},
		{"exclude_bots 2", form("domain", "a.com", "exclude_bots", "2"), "exclude_bots"},
		{"exclude_ips bad line", form("domain", "a.com", "exclude_ips", "10.0.0.1\nnot-an-ip"), "exclude_ips"},
		{"exclude_ips bad cidr", form("domain", "a.com", "exclude_ips", "10.0.0.0/33"), "exclude_ips"},
		{"exclude_ips v6 bad cidr", form("domain", "a.com", "exclude_ips", "2001:db8::/129"), "exclude_ips"},
		{"exclude_params with space", form("domain", "a.com", "exclude_params", "utm source"), "exclude_params"},
		{"exclude_params with =", form("domain", "a.com", "exclude_params", "a=b"), "exclude_params"},
		{"exclude_params & among names", form("domain", "a.com", "exclude_params", "a&b"), "exclude_params"},
		{"exclude_ips too long", form("domain", "a.com", "exclude_ips", strings.Repeat("1", 10001)), "exclude_ips"},
		{"favorite on store", form("domain", "a.com", "favorite", "1"), "favorite"},
		{"unknown field", form("domain", "a.com", "colour", "red"), "colour"},
		{"field sent twice", form("domain", "a.com", "privacy", "0", "privacy", "1"), "privacy"},
	}
	e := newEnv(t)
	key := e.User("a@example.com").Key
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantField(t, e.in(t).Do(harness.Request{Method: "POST", Path: "/api/v1/websites", Key: key, Form: c.form}), c.field)
		})
	}
	// The message says what the field must be, also for a field that is a named schema with a
	// default of its own (allOf) and a value that is not even an integer.
	for _, kv := range [][]string{{"privacy", "public", "must be one of 0, 1, 2"}, {"exclude_bots", "x", "must be one of 0, 1"}, {"email", "2", "must be one of 0, 1"}} {
		res := e.Do(harness.Request{Method: "POST", Path: "/api/v1/websites", Key: key, Form: form("domain", "a.com", kv[0], kv[1])})
		if got := fmt.Sprint(res.JSON(t)["errors"].(map[string]any)[kv[0]]); got != "["+kv[2]+"]" {
			t.Errorf("%s=%s: %s, want %q", kv[0], kv[1], got, kv[2])
		}
	}
	// Each bad line of an exclusion list has its own message, numbered as typed (blank lines
	// count), not only the first.
	for _, c := range []struct{ field, value, want string }{
		{"exclude_ips", "10.0.0.1\r\nnot-an-ip\r\n\r\n10.0.0.0/33\n192.0.2.7",
			`[line 2 ("not-an-ip") is not an IP address or CIDR range line 4 ("10.0.0.0/33") is not an IP address or CIDR range]`},
		{"exclude_params", "utm source\nref\na=b\n&",
			`[line 1 ("utm source") is not a query parameter name line 3 ("a=b") is not a query parameter name]`},
	} {
		res := e.Do(harness.Request{Method: "POST", Path: "/api/v1/websites", Key: key, Form: form("domain", "a.com", c.field, c.value)})
		if got := fmt.Sprint(res.JSON(t)["errors"].(map[string]any)[c.field]); got != c.want {
			t.Errorf("%s %q: %s, want %s", c.field, c.value, got, c.want)
		}
	}
	// Nothing of the refused requests was written.
	var n int
	if err := e.DB.Get(&n, `SELECT count(*) FROM websites`); err != nil || n != 0 {
		t.Fatalf("%d websites stored after refused requests (err %v)", n, err)
	}
}

func TestStoreRefusesDuplicateDomainAcrossUsers(t *testing.T) {
	e := newEnv(t)
	alice, bob := e.User("alice@example.com").Key, e.User("bob@example.com").Key
	e.store(alice, "domain", "example.com")
	for _, key := range []string{alice, bob} {
		wantField(t, e.Do(harness.Request{Method: "POST", Path: "/api/v1/websites", Key: key,
			Form: form("domain", "https://www.EXAMPLE.com/")}), "domain")
	}
}

func TestConcurrentStoreOfOneDomain(t *testing.T) {
	e := newEnv(t)
	alice, bob := e.User("alice@example.com").Key, e.User("bob@example.com").Key
	for round := 0; round < 5; round++ {
		domain := fmt.Sprintf("race%d.example.com", round)
		statuses := make([]int, 2)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, key := range []string{alice, bob} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				res := e.Do(harness.Request{Method: "POST", Path: "/api/v1/websites", Key: key, Form: form("domain", domain)})
				statuses[i] = res.Status
			}()
		}
		close(start)
		wg.Wait()
		if !(statuses[0] == 201 && statuses[1] == 422 || statuses[0] == 422 && statuses[1] == 201) {
			t.Fatalf("round %d: statuses %v, want one 201 and one 422", round, statuses)
		}
	}
}

func TestWrongContentTypeAndSizes(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	w := e.store(key, "domain", "example.com")
	path := fmt.Sprintf("/api/v1/websites/%v", w["id"])
	json := map[string]string{"Content-Type": "application/json"}
	want(t, e.Do(harness.Request{Method: "POST", Path: "/api/v1/websites", Key: key, Body: `{"domain":"b.com"}`, Headers: json}), http.StatusUnsupportedMediaType)
	want(t, e.Do(harness.Request{Method: "PUT", Path: path, Key: key, Body: `{"privacy":1}`, Headers: json}), http.StatusUnsupportedMediaType)
	want(t, e.Do(harness.Request{Method: "PATCH", Path: path, Key: key, Body: `privacy=1`}), http.StatusUnsupportedMediaType)
	big := form("domain", "b.com", "exclude_params", strings.Repeat("a", 70_000))
	want(t, e.Do(harness.Request{Method: "POST", Path: "/api/v1/websites", Key: key, Form: big}), http.StatusRequestEntityTooLarge)
	// An empty store body is a missing domain.
	wantField(t, e.Do(harness.Request{Method: "POST", Path: "/api/v1/websites", Key: key}), "domain")
	// An empty update changes nothing but updated_at.
	e.Clock.Advance(time.Minute)
	body := want(t, e.Do(harness.Request{Method: "PATCH", Path: path, Key: key}), http.StatusOK)
	if got := body["data"].(map[string]any)["updated_at"]; got != "2026-03-04T05:07:07Z" {
		t.Fatalf("updated_at %v after an empty update", got)
	}
}

func TestPasswordIsStoredAsSlowHash(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	password := strings.Repeat("é", 128) // 128 characters, 256 bytes
	w := e.store(key, "domain", "example.com", "privacy", "2", "password", password)
	if w["password"] != true {
		t.Fatalf("password flag %v", w["password"])
	}
	var hash string
	if err := e.DB.Get(&hash, `SELECT password_hash FROM websites WHERE id = $1`, w["id"]); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hash, "$argon2id$") || strings.Contains(hash, password) {
		t.Fatalf("stored %q, want an argon2id hash", hash)
	}
	if !website.VerifyPassword(hash, password) || website.VerifyPassword(hash, password+"x") {
		t.Fatal("hash does not verify the password (or verifies another)")
	}
	if strings.Contains(string(e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/websites/%v", w["id"]), Key: key}).Body), "argon2") {
		t.Fatal("hash leaked in a response")
	}
}

func TestUpdate(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	w := e.store(key, "domain", "example.com", "exclude_ips", "10.0.0.1", "exclude_params", "ref")
	path := fmt.Sprintf("/api/v1/websites/%v", w["id"])
	steps := []struct {
		name   string
		method string
		form   url.Values
		status int
		field  string         // for 422
		want   map[string]any // fields after the step
	}{
		{"only sent fields change", "PUT", form("email", "1"), 200, "",
			map[string]any{"email": 1.0, "exclude_ips": "10.0.0.1", "exclude_params": "ref", "privacy": 0.0, "exclude_bots": 1.0}},
		{"favorite true", "PATCH", form("favorite", "true"), 200, "", map[string]any{"favorite": true}},
		{"favorite 0", "PATCH", form("favorite", "0"), 200, "", map[string]any{"favorite": false}},
		{"favorite 1", "PUT", form("favorite", "1"), 200, "", map[string]any{"favorite": true}},
		{"favorite false", "PUT", form("favorite", "false"), 200, "", map[string]any{"favorite": false}},
		{"favorite yes refused", "PUT", form("favorite", "yes"), 422, "favorite", nil},
		{"favorite TRUE refused", "PATCH", form("favorite", "TRUE"), 422, "favorite", nil},
		{"favorite t refused", "PUT", form("favorite", "t"), 422, "favorite", nil},
		{"favorite False refused", "PUT", form("favorite", "False"), 422, "favorite", nil},
		{"favorite F refused", "PATCH", form("favorite", "F"), 422, "favorite", nil},
		{"favorite empty refused", "PATCH", form("favorite", ""), 422, "favorite", nil},
		{"favorite twice refused", "PATCH", url.Values{"favorite": {"1", "0"}}, 422, "favorite", nil},
		{"domain refused", "PUT", form("domain", "other.com"), 422, "domain", nil},
		{"domain refused with others", "PATCH", form("domain", "other.com", "email", "0"), 422, "domain", nil},
		{"privacy 2 without any password", "PUT", form("privacy", "2"), 422, "password", nil},
		{"privacy 2 with password", "PUT", form("privacy", "2", "password", "pw"), 200, "", map[string]any{"privacy": 2.0, "password": true}},
		{"privacy 1", "PUT", form("privacy", "1"), 200, "", map[string]any{"privacy": 1.0, "password": true}},
		{"privacy 2 again uses the stored password", "PATCH", form("privacy", "2"), 200, "", map[string]any{"privacy": 2.0}},
		{"empty exclude_ips clears", "PUT", form("exclude_ips", ""), 200, "", map[string]any{"exclude_ips": nil, "exclude_params": "ref"}},
		{"blank exclude_params clears", "PUT", form("exclude_params", " \r\n "), 200, "", map[string]any{"exclude_params": nil}},
		{"new exclude_ips", "PUT", form("exclude_ips", "2001:db8::/32\r\n192.0.2.0/24"), 200, "", map[string]any{"exclude_ips": "2001:db8::/32\n192.0.2.0/24"}},
		{"bad exclude_ips", "PUT", form("exclude_ips", "192.0.2.0/24\n300.1.1.1"), 422, "exclude_ips", nil},
		{"bad exclude_bots", "PATCH", form("exclude_bots", "x"), 422, "exclude_bots", nil},
		{"empty password refused while privacy is 2", "PATCH", form("password", ""), 422, "password", nil},
		{"empty password with privacy 1 removes it", "PATCH", form("privacy", "1", "password", ""), 200, "",
			map[string]any{"privacy": 1.0, "password": false}},
		{"privacy 2 after the removal needs a password", "PATCH", form("privacy", "2"), 422, "password", nil},
		{"empty password with privacy 0 when there is none", "PUT", form("privacy", "0", "password", ""), 200, "",
			map[string]any{"privacy": 0.0, "password": false}},
		{"unknown field", "PATCH", form("name", "x"), 422, "name", nil},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			e := e.in(t)
			e.Clock.Advance(time.Second)
			before := e.Do(harness.Request{Path: path, Key: key}).JSON(t)["data"].(map[string]any)
			res := e.Do(harness.Request{Method: s.method, Path: path, Key: key, Form: s.form})
			if s.status == 422 {
				wantField(t, res, s.field)
				after := e.Do(harness.Request{Path: path, Key: key}).JSON(t)["data"].(map[string]any)
				if fmt.Sprint(after) != fmt.Sprint(before) {
					t.Fatalf("a refused update changed the website:\n%v\n%v", before, after)
				}
				return
			}
			got := want(t, res, s.status)["data"].(map[string]any)
			for k, v := range s.want {
				if got[k] != v {
					t.Errorf("%s = %#v, want %#v", k, got[k], v)
				}
			}
			if got["updated_at"] == before["updated_at"] || got["created_at"] != before["created_at"] {
				t.Errorf("updated_at %v (was %v), created_at %v (was %v)", got["updated_at"], before["updated_at"], got["created_at"], before["created_at"])
			}
			if got["domain"] != "example.com" {
				t.Errorf("domain changed to %v", got["domain"])
			}
		})
	}
}

func TestDeleteRemovesWebsiteAndStats(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	w := e.store(key, "domain", "example.com")
	other := e.store(key, "domain", "other.com")
	id, otherID := int64(w["id"].(float64)), int64(other["id"].(float64))
	day := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	if _, err := e.Repo.AddVisitBatch(context.Background(), repository.VisitBatch{ID: uuid.NewString(), Counts: []repository.StatCount{
		{WebsiteID: id, Name: "page", Date: day, Value: "/", Count: 3},
		{WebsiteID: otherID, Name: "page", Date: day, Value: "/", Count: 4},
	}}, 0); err != nil {
		t.Fatal(err)
	}
	path := fmt.Sprintf("/api/v1/websites/%d", id)
	body := want(t, e.Do(harness.Request{Method: "DELETE", Path: path, Key: key}), http.StatusOK)
	if body["id"] != float64(id) || body["object"] != "website" || body["deleted"] != true {
		t.Fatalf("delete body %v", body)
	}
	for _, table := range []string{"stats", "stats_weekly", "stats_monthly"} {
		var mine, theirs int
		e.DB.Get(&mine, `SELECT count(*) FROM `+table+` WHERE website_id = $1`, id)
		e.DB.Get(&theirs, `SELECT count(*) FROM `+table+` WHERE website_id = $1`, otherID)
		if mine != 0 || theirs != 1 {
			t.Fatalf("%s: %d rows left of the deleted website, %d of the other (want 0 and 1)", table, mine, theirs)
		}
	}
	want(t, e.Do(harness.Request{Path: path, Key: key}), http.StatusNotFound)
	want(t, e.Do(harness.Request{Method: "DELETE", Path: path, Key: key}), http.StatusNotFound)
	want(t, e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d?name=page&from=2026-01-01&to=2026-01-31", id), Key: key}), http.StatusNotFound)
}

func TestOtherUsersWebsitesAreNotFound(t *testing.T) {
	e := newEnv(t)
	alice, bob := e.User("alice@example.com").Key, e.User("bob@example.com").Key
	w := e.store(alice, "domain", "alice.example.com")
	path := fmt.Sprintf("/api/v1/websites/%v", w["id"])
	unknown := "/api/v1/websites/999999"
	cases := []harness.Request{
		{Path: path, Key: bob},
		{Method: "PUT", Path: path, Key: bob, Form: form("favorite", "1")},
		{Method: "PATCH", Path: path, Key: bob, Form: form("privacy", "1")},
		{Method: "DELETE", Path: path, Key: bob},
		{Path: fmt.Sprintf("/api/v1/stats/%v?name=page&from=2026-01-01&to=2026-01-02", w["id"]), Key: bob},
		{Path: unknown, Key: bob},
		{Method: "PUT", Path: unknown, Key: bob, Form: form("favorite", "1")},
		{Method: "DELETE", Path: unknown, Key: bob},
		{Path: "/api/v1/stats/999999?name=page&from=2026-01-01&to=2026-01-02", Key: bob},
		{Path: "/api/v1/websites/abc", Key: bob},
		{Path: "/api/v1/websites/0", Key: bob},
		{Path: "/api/v1/stats/abc?name=page&from=2026-01-01&to=2026-01-02", Key: bob},
	}
	var bodies []string
	for _, c := range cases {
		res := e.Do(c)
		want(t, res, http.StatusNotFound)
		bodies = append(bodies, string(res.Body))
	}
	for _, b := range bodies[1:] {
		if b != bodies[0] {
			t.Fatalf("404 bodies differ, so ids can be probed: %s vs %s", bodies[0], b)
		}
	}
	// Alice's website is untouched and still hers.
	got := want(t, e.Do(harness.Request{Path: path, Key: alice}), http.StatusOK)["data"].(map[string]any)
	if got["favorite"] != false || got["privacy"] != 0.0 {
		t.Fatalf("another user's requests changed the website: %v", got)
	}
	list := want(t, e.Do(harness.Request{Path: "/api/v1/websites", Key: bob}), http.StatusOK)
	if n := len(list["data"].([]any)); n != 0 {
		t.Fatalf("bob lists %d websites, want 0", n)
	}
}

// The URL query never stands in for a form field: echo's FormParams merges the two, and the
// validator only sees the body.
func TestQueryIsNotAFormField(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	w := e.store(key, "domain", "example.com")
	path := fmt.Sprintf("/api/v1/websites/%v", w["id"])
	for _, method := range []string{"PUT", "PATCH"} {
		for _, query := range []string{"favorite=1", "favorite=yes", "privacy=2"} {
			got := want(t, e.Do(harness.Request{Method: method, Path: path + "?" + query, Key: key, Form: form("email", "1")}), 200)["data"].(map[string]any)
			if got["favorite"] != false || got["privacy"] != 0.0 || got["email"] != 1.0 {
				t.Fatalf("%s ?%s: %v", method, query, got)
			}
		}
	}
	got := want(t, e.Do(harness.Request{Method: "POST", Path: "/api/v1/websites?privacy=1&email=1", Key: key, Form: form("domain", "b.example.com")}), 201)["data"].(map[string]any)
	if got["privacy"] != 0.0 || got["email"] != 0.0 {
		t.Fatalf("store took fields from the query: %v", got)
	}
}
