package reports_test

import (
	"context"
	"fmt"
	"log/slog"
	mathrand "math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/analytics-service/analytics/reports"
	"github.com/analytics-service/analytics/reports/smtptest"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/testkit/harness"
)

// alerter is an Alerter of the env on repo (another node's connection, when it is one),
// sending through the env's SMTP server with the tests' PUBLIC_URL.
func (e *env) alerter(repo *repository.Repository) *reports.Alerter {
	e.T.Helper()
	return reports.NewAlerter(reports.Config{
		Repo: repo, Location: time.UTC, Links: reports.Links{Base: e.public}, Mailer: e.mailer(e.smtp.URL()),
		Now: e.Clock.Now, Log: slog.New(slog.NewJSONHandler(e.Logs, nil)),
	}, prometheus.NewRegistry())
}

func alertTick(t testing.TB, a *reports.Alerter) {
	t.Helper()
	if err := a.Tick(context.Background()); err != nil {
		t.Fatalf("alerts tick: %v", err)
	}
}

// setAlerts PUTs the alerts form through the API and returns the answer's data.
func (e *env) setAlerts(o harness.User, id int64, form url.Values) (int, string) {
	e.T.Helper()
	res := e.Do(harness.Request{Method: http.MethodPut, Path: fmt.Sprintf("/api/v1/websites/%d/alerts", id), Key: o.Key, Form: form})
	return res.Status, string(res.Body)
}

// currently makes the website's current visitors n, as a node's flush writes them now.
func (e *env) currently(id int64, n int) {
	e.T.Helper()
	e.DB.MustExec(`INSERT INTO realtime_visitors (node, website_id, visitors, flushed_at) VALUES ('n1', $1, $2, $3)
		ON CONFLICT (node, website_id) DO UPDATE SET visitors = EXCLUDED.visitors, flushed_at = EXCLUDED.flushed_at`, id, n, e.Clock.Now())
}

// messagesTo are the messages the SMTP server accepted for an address.
func (e *env) messagesTo(addr string) []mail {
	e.T.Helper()
	var out []mail
	for _, r := range e.smtp.Messages() {
		for _, to := range r.To {
			if to == addr {
				out = append(out, decode(e.T, r))
			}
		}
	}
	return out
}

var linkIn = regexp.MustCompile(`https://stats\.example\.test(/alerts/[a-z]+/\S+)`)

// The whole life of an address and its alerts: a new address gets a link to confirm it and
// nothing else until then; a spike mails the confirmed addresses once per 12 hours with the
// top sources and pages (a stranger's markup inert in both parts); one-click unsubscription
// (RFC 8058) removes the address.
func TestSpikeAlert(t *testing.T) {
	e := newEnv(t)
	owner := e.User("owner@example.test")
	id := e.site(owner, "alerts.example", 0)
	status, body := e.setAlerts(owner, id, url.Values{"spike_threshold": {"3"}, "addresses": {"Ops@Example.test\nme@example.test"}})
	if status != http.StatusOK || !strings.Contains(body, `"spike_threshold":3`) || !strings.Contains(body, `{"confirmed":false,"email":"ops@example.test"}`) {
		t.Fatalf("PUT alerts: %d %s", status, body)
	}
	a := e.alerter(e.Repo)
	e.currently(id, 5)
	alertTick(t, a)
	e.smtp.WaitFor(t, 2, 10*time.Second)
	confirm := e.messagesTo("ops@example.test")
	if len(confirm) != 1 || confirm[0].get("Subject") != "Confirm traffic alerts of alerts.example" || confirm[0].get("List-Unsubscribe") != "" {
		t.Fatalf("confirmation: %d messages, first %v", len(confirm), confirm)
	}
	link := linkIn.FindStringSubmatch(confirm[0].text)
	if link == nil || !strings.Contains(confirm[0].html, `href="https://stats.example.test`+link[1]+`"`) {
		t.Fatalf("no confirmation link:\n%s", confirm[0].text)
	}
	// Nothing but the confirmation before it is followed, although the spike is on.
	if n := len(e.smtp.Messages()); n != 2 {
		t.Fatalf("%d messages before any confirmation, want the 2 confirmations", n)
	}
	code, page := e.page(http.MethodGet, link[1], "")
	if code != http.StatusOK || !strings.Contains(page, "<button type=\"submit\">Confirm the alerts</button>") {
		t.Fatalf("GET confirm: %d\n%s", code, page)
	}
	if code, page = e.page(http.MethodPost, link[1], ""); code != http.StatusOK || !strings.Contains(page, "Alerts confirmed") {
		t.Fatalf("POST confirm: %d\n%s", code, page)
	}

	// The spike, with the last hour's visits for its top lists.
	hour := e.Clock.Now().Hour()
	repotest.WriteVisitRows(t, e.DB, id, []repotest.Visit{
		{Day: stats.Day(e.Clock.Now()), Visitor: 1, Hour: hour, Pages: []string{"/<script>alert(1)</script>"}, Values: map[stats.Name]string{stats.Source: "Hacker News"}},
		{Day: stats.Day(e.Clock.Now()), Visitor: 2, Hour: hour, Pages: []string{"/pricing"}, Values: map[stats.Name]string{stats.Source: "Hacker News"}},
	})
	alertTick(t, a)
	spike := e.messagesTo("ops@example.test")
	if len(spike) != 2 {
		t.Fatalf("%d messages to the confirmed address, want its confirmation and the spike", len(spike))
	}
	m := spike[1]
	if m.get("Subject") != "Traffic spike on alerts.example: 5 visitors now" {
		t.Errorf("subject %q", m.get("Subject"))
	}
	for _, want := range []string{"has 5 visitors now", "set at 3", "Hacker News", "/<script>alert(1)</script>", "/pricing"} {
		if !strings.Contains(m.text, want) {
			t.Errorf("text lacks %q:\n%s", want, m.text)
		}
	}
	if strings.Contains(m.html, "<script>alert(1)") || !strings.Contains(m.html, "/&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the HTML part does not escape a page:\n%s", m.html)
	}
	if m.get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" || !strings.HasPrefix(m.get("List-Unsubscribe"), "<https://stats.example.test/alerts/unsubscribe/") {
		t.Errorf("unsubscribe headers %q %q", m.get("List-Unsubscribe"), m.get("List-Unsubscribe-Post"))
	}
	if len(e.messagesTo("me@example.test")) != 1 {
		t.Error("the unconfirmed address got more than its confirmation")
	}

	// Once per 12 hours, on one node of two ticking at once.
	e.Clock.Advance(11 * time.Hour)
	e.currently(id, 9)
	alertTick(t, a)
	if n := len(e.messagesTo("ops@example.test")); n != 2 {
		t.Fatalf("a spike within 12 hours of the last was mailed (%d messages)", n)
	}
	e.Clock.Advance(time.Hour + time.Minute)
	e.currently(id, 9)
	nodes := []*reports.Alerter{a, e.alerter(e.otherProcess()), e.alerter(e.otherProcess())}
	var wg sync.WaitGroup
	for _, n := range nodes {
		wg.Add(1)
		go func() { defer wg.Done(); alertTick(t, n) }()
	}
	wg.Wait()
	if n := len(e.messagesTo("ops@example.test")); n != 3 {
		t.Fatalf("after 12 hours, three nodes at once: %d messages, want 3 (one more spike)", n)
	}

	// One-click unsubscription: the address goes, and with it its alerts.
	target := path(t, strings.Trim(e.messagesTo("ops@example.test")[2].get("List-Unsubscribe"), "<>"))
	if code, page := e.page(http.MethodPost, target, "List-Unsubscribe=One-Click"); code != http.StatusOK || !strings.Contains(page, "Unsubscribed") {
		t.Fatalf("one-click: %d\n%s", code, page)
	}
	if _, body := e.setAlerts(owner, id, url.Values{"spike_threshold": {"3"}, "addresses": {"me@example.test"}}); !strings.Contains(body, `"addresses":[{"confirmed":false,"email":"me@example.test"}]`) {
		t.Fatalf("after the unsubscription: %s", body)
	}
	if code, page := e.page(http.MethodPost, target, "List-Unsubscribe=One-Click"); code != http.StatusOK || !strings.Contains(page, "gets no traffic alerts") {
		t.Fatalf("a second one-click: %d\n%s", code, page)
	}
}

// A drop alert mails when the last 24 hours had fewer visitors than its threshold, once it has
// been set a whole day, at most once a day; a failed send is retried after its backoff.
func TestDropAlert(t *testing.T) {
	e := newEnv(t)
	owner := e.User("owner@example.test")
	id := e.site(owner, "quiet.example", 0)
	if status, body := e.setAlerts(owner, id, url.Values{"drop_threshold": {"10"}, "addresses": {"owner@example.test"}}); status != http.StatusOK {
		t.Fatalf("PUT alerts: %d %s", status, body)
	}
	a := e.alerter(e.Repo)
	alertTick(t, a)
	m := e.smtp.WaitFor(t, 1, 10*time.Second)
	link := linkIn.FindStringSubmatch(decode(t, m[0]).text)
	if code, _ := e.page(http.MethodPost, link[1], ""); code != http.StatusOK {
		t.Fatalf("confirm: %d", code)
	}
	// Three visitors in the last day: fewer than 10.
	now := e.Clock.Now()
	rng := mathrand.New(mathrand.NewPCG(1, 1))
	visits := repotest.RandomVisits(rng, stats.Day(now), stats.Day(now), 3)
	for i := range visits {
		visits[i].Visitor, visits[i].Hour = int32(i+1), now.Hour()
	}
	repotest.WriteVisitRows(t, e.DB, id, visits)
	alertTick(t, a)
	if n := len(e.smtp.Messages()); n != 1 {
		t.Fatalf("a drop alert set less than a day ago was mailed (%d messages)", n)
	}
	e.Clock.Advance(24*time.Hour + time.Minute)
	e.smtp.FailNext(smtptest.ErrTryLater)
	alertTick(t, a)
	var attempts int
	var lastError *string
	e.DB.QueryRow(`SELECT attempts, last_error FROM alert_deliveries WHERE kind = 'drop'`).Scan(&attempts, &lastError)
	if attempts != 1 || lastError == nil || len(e.smtp.Messages()) != 1 {
		t.Fatalf("after a failed send: attempts %d, last error %v, %d messages", attempts, lastError, len(e.smtp.Messages()))
	}
	alertTick(t, a) // its backoff is not over
	e.Clock.Advance(2 * time.Minute)
	alertTick(t, a)
	msgs := e.smtp.WaitFor(t, 2, 10*time.Second)
	drop := decode(t, msgs[1])
	if drop.get("Subject") != "Traffic drop on quiet.example: 3 visitors in 24 hours" {
		t.Errorf("subject %q:\n%s", drop.get("Subject"), drop.text)
	}
	if !strings.Contains(drop.text, "check that the tracker snippet") {
		t.Errorf("the drop alert does not say what to check:\n%s", drop.text)
	}
	e.Clock.Advance(23 * time.Hour)
	alertTick(t, a)
	if n := len(e.smtp.Messages()); n != 2 {
		t.Fatalf("a second drop alert within a day (%d messages)", n)
	}
}

// Every bad alert setting is a 422 naming its field, and changes nothing; another user's
// website is a 404 whatever the fields.
func TestAlertSettingsRefusals(t *testing.T) {
	e := newEnv(t)
	owner, other := e.User("owner@example.test"), e.User("other@example.test")
	id := e.site(owner, "alerts.example", 0)
	if status, _ := e.setAlerts(owner, id, url.Values{"spike_threshold": {"50"}, "addresses": {"a@example.test"}}); status != http.StatusOK {
		t.Fatal(status)
	}
	many := make([]string, 11)
	for i := range many {
		many[i] = fmt.Sprintf("a%d@example.test", i)
	}
	for _, c := range []struct {
		name  string
		form  url.Values
		field string
	}{
		{"a threshold of 0", url.Values{"spike_threshold": {"0"}}, "spike_threshold"},
		{"a negative threshold", url.Values{"drop_threshold": {"-5"}}, "drop_threshold"},
		{"a threshold that is no number", url.Values{"spike_threshold": {"many"}}, "spike_threshold"},
		{"an address that is none", url.Values{"addresses": {"a@example.test\nnot an address"}}, "addresses"},
		{"an address with a name", url.Values{"addresses": {"Me <me@example.test>"}}, "addresses"},
		{"11 addresses", url.Values{"addresses": {strings.Join(many, "\n")}}, "addresses"},
		{"an unknown field", url.Values{"threshold": {"5"}}, "threshold"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status := e.In(t).Do(harness.Request{Method: http.MethodPut, Path: fmt.Sprintf("/api/v1/websites/%d/alerts", id), Key: owner.Key, Form: c.form}).Status
			if status != http.StatusUnprocessableEntity {
				t.Fatalf("status %d, want 422", status)
			}
			got, err := e.Repo.Alerts(context.Background(), id, owner.ID)
			if err != nil || got.Spike != 50 || len(got.Addresses) != 1 {
				t.Fatalf("a refused form changed the alerts: %+v %v", got, err)
			}
		})
	}
	// A field the rules refuse on another user's website is a 404 (the validator's own refusals
	// come first, the same for every id).
	if status, _ := e.setAlerts(other, id, url.Values{"addresses": {"not an address"}}); status != http.StatusNotFound {
		t.Fatalf("another user's website: %d, want 404", status)
	}
	res := e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/websites/%d/alerts", id), Key: other.Key})
	if res.Status != http.StatusNotFound {
		t.Fatalf("GET another user's alerts: %d", res.Status)
	}
}

// A confirmation link is void when altered, past its 7 days, or once its address is removed.
func TestAlertLinksRefused(t *testing.T) {
	e := newEnv(t)
	owner := e.User("owner@example.test")
	id := e.site(owner, "alerts.example", 0)
	e.setAlerts(owner, id, url.Values{"spike_threshold": {"5"}, "addresses": {"a@example.test\nb@example.test"}})
	alertTick(t, e.alerter(e.Repo))
	e.smtp.WaitFor(t, 2, 10*time.Second)
	linkOf := func(addr string) string {
		return linkIn.FindStringSubmatch(e.messagesTo(addr)[0].text)[1]
	}
	a, b := linkOf("a@example.test"), linkOf("b@example.test")
	flipped := a[:len(a)-3] + "xyz"
	for _, target := range []string{flipped, "/alerts/confirm/", "/alerts/unsubscribe/" + strings.TrimPrefix(a, "/alerts/confirm/"), "/alerts/other/x"} {
		if code, page := e.page(http.MethodPost, target, ""); code != http.StatusNotFound || !strings.Contains(page, "Link not valid") {
			t.Errorf("POST %s: %d", target, code)
		}
	}
	e.setAlerts(owner, id, url.Values{"spike_threshold": {"5"}, "addresses": {"a@example.test"}}) // b removed
	if code, _ := e.page(http.MethodPost, b, ""); code != http.StatusNotFound {
		t.Errorf("the link of a removed address: %d, want 404", code)
	}
	e.Clock.Advance(reports.ConfirmValidity + time.Minute)
	if code, _ := e.page(http.MethodPost, a, ""); code != http.StatusNotFound {
		t.Errorf("a link past its 7 days: %d, want 404", code)
	}
	got, _ := e.Repo.Alerts(context.Background(), id, owner.ID)
	if len(got.Addresses) != 1 || got.Addresses[0].ConfirmedAt != nil {
		t.Fatalf("refused links confirmed: %+v", got)
	}
}

// A member's alerts follow their role: an editor sets and gets them; demoted to viewer (who
// may not set alerts, 403) or removed, they are mailed none, their settings kept for a role
// given back.
func TestAlertsFollowTheRole(t *testing.T) {
	e := newEnv(t)
	owner, member := e.User("owner@example.test"), e.User("member@example.test")
	id := e.site(owner, "team.example", 0)
	role := func(r string) {
		e.DB.MustExec(`INSERT INTO website_members (website_id, user_id, role, created_at) VALUES ($1, $2, $3, now())
			ON CONFLICT (website_id, user_id) DO UPDATE SET role = EXCLUDED.role`, id, member.ID, r)
	}
	role("editor")
	if status, body := e.setAlerts(member, id, url.Values{"spike_threshold": {"2"}, "addresses": {"member@example.test"}}); status != http.StatusOK {
		t.Fatalf("an editor's PUT alerts: %d %s", status, body)
	}
	a := e.alerter(e.Repo)
	alertTick(t, a)
	e.smtp.WaitFor(t, 1, 10*time.Second)
	link := linkIn.FindStringSubmatch(e.messagesTo("member@example.test")[0].text)
	if link == nil {
		t.Fatal("the editor's address got no link to confirm it")
	}
	if code, page := e.page(http.MethodPost, link[1], ""); code != http.StatusOK || !strings.Contains(page, "Alerts confirmed") {
		t.Fatalf("the editor confirms: %d\n%s", code, page)
	}
	spikes := func() int {
		n := 0
		for _, m := range e.messagesTo("member@example.test") {
			if strings.HasPrefix(m.get("Subject"), "Traffic spike") {
				n++
			}
		}
		return n
	}
	e.currently(id, 4)
	alertTick(t, a)
	if spikes() != 1 {
		t.Fatalf("the editor got %d spike alerts, want 1", spikes())
	}

	role("viewer")
	if status, _ := e.setAlerts(member, id, url.Values{"spike_threshold": {"5"}}); status != http.StatusForbidden {
		t.Fatalf("a viewer's PUT alerts: %d, want 403", status)
	}
	if res := e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/websites/%d/alerts", id), Key: member.Key}); res.Status != http.StatusForbidden {
		t.Fatalf("a viewer's GET alerts: %d, want 403", res.Status)
	}
	e.Clock.Advance(repository.SpikeWindow + time.Minute)
	e.currently(id, 4)
	alertTick(t, a)
	if spikes() != 1 {
		t.Fatalf("a member demoted to viewer was mailed a spike (%d)", spikes())
	}
	e.DB.MustExec(`DELETE FROM website_members WHERE website_id = $1 AND user_id = $2`, id, member.ID)
	e.Clock.Advance(repository.SpikeWindow + time.Minute)
	e.currently(id, 4)
	alertTick(t, a)
	if spikes() != 1 {
		t.Fatalf("a removed member was mailed a spike (%d)", spikes())
	}
	role("admin")
	e.currently(id, 4)
	alertTick(t, a)
	if spikes() != 2 {
		t.Fatalf("a member made admin again got %d spike alerts, want 2", spikes())
	}
}
