package reports

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/repository"
)

// Traffic alerts (docs/alerts.md): the job "send traffic alerts" looks at each alert that may
// be due, takes the window of one whose threshold is crossed (so that one node mails it), and
// sends the messages claimed one at a time, as the reports are sent: the same mail server,
// links and one-click unsubscription, the same claims, leases and backoff.

// Alerter sends the traffic alerts and the confirmations of their addresses.
type Alerter struct {
	cfg     Config
	host    string // the right-hand side of Message-IDs
	sent    prometheus.Counter
	failed  prometheus.Counter
	offOnce sync.Once
}

// ConfirmValidity is how long the link of an address's confirmation holds.
const ConfirmValidity = 7 * 24 * time.Hour

// AlertsPath is where the links of the alert messages are mounted (AlertLinks).
const AlertsPath = "/alerts/"

// The purposes of the alerts' links (signPayload).
const (
	confirmPurpose     = "alert-confirm"
	alertUnsubscribe   = "alert-unsubscribe"
	maxAlertTokenBytes = 1024
)

// NewAlerter makes an Alerter; its metrics go to reg (nil: not registered).
func NewAlerter(cfg Config, reg prometheus.Registerer) *Alerter {
	a := &Alerter{cfg: cfg.withDefaults(), host: "localhost",
		sent:   prometheus.NewCounter(prometheus.CounterOpts{Name: "analytics_alert_messages_sent_total", Help: "Traffic alert and confirmation messages the SMTP server accepted."}),
		failed: prometheus.NewCounter(prometheus.CounterOpts{Name: "analytics_alert_messages_failed_total", Help: "Attempts at a traffic alert or confirmation message that failed (each is retried later)."}),
	}
	if cfg.Mailer != nil {
		a.host = cfg.Mailer.FromDomain()
	}
	if reg != nil {
		reg.MustRegister(a.sent, a.failed)
	}
	return a
}

// Tick is the periodic job: it opens the windows of the alerts whose threshold is crossed,
// then sends every message that is due, one claim at a time, until none is left or ctx ends.
func (a *Alerter) Tick(ctx context.Context) error {
	if off := a.cfg.off(); off != "" {
		a.offOnce.Do(func() { a.cfg.Log.Warn(off + ": no traffic alert will be sent") })
		return nil
	}
	now := a.cfg.Now()
	due, err := a.cfg.Repo.DueTrafficAlerts(ctx, now)
	if err != nil {
		return err
	}
	for _, alert := range due {
		if err := a.check(ctx, alert, now); err != nil {
			return err
		}
	}
	for ctx.Err() == nil {
		d, err := a.cfg.Repo.ClaimAlertDelivery(ctx, a.cfg.Now(), a.cfg.Lease)
		if errors.Is(err, repository.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		a.deliver(ctx, d)
	}
	return nil
}

// siteOf is the website of a user's alert message of a kind: its owner and the members whose
// role may set alerts (editors and admins) get alerts; a confirmation goes to anyone with a
// role on it. repository.ErrNotFound otherwise (the website gone, the member removed or
// demoted to viewer since).
func (a *Alerter) siteOf(ctx context.Context, userID, websiteID int64, kind string) (repository.Website, error) {
	site, err := a.cfg.Repo.WebsiteRole(ctx, userID, websiteID)
	if err == nil && kind != repository.AlertConfirm && !site.Role.Can(repository.RoleEditor) {
		return repository.Website{}, fmt.Errorf("alerts: a %s's alert: %w", site.Role, repository.ErrNotFound)
	}
	return site, err
}

// check measures one alert and opens its window when its threshold is crossed: current
// visitors at or above it for a spike, visitors of the last 24 hours under it for a drop.
func (a *Alerter) check(ctx context.Context, alert repository.TrafficAlert, now time.Time) error {
	site, err := a.siteOf(ctx, alert.UserID, alert.WebsiteID, alert.Kind)
	if errors.Is(err, repository.ErrNotFound) {
		return nil // the user's role no longer has alerts: the alert waits for nothing
	}
	if err != nil {
		return err
	}
	var visitors int64
	if alert.Kind == repository.AlertSpike {
		if visitors, err = a.cfg.Repo.CurrentVisitors(ctx, alert.WebsiteID); err != nil {
			return err
		}
		if visitors < int64(alert.Threshold) {
			return nil
		}
	} else {
		if visitors, err = a.visitorsOf24Hours(ctx, site, now); err != nil {
			return err
		}
		if visitors >= int64(alert.Threshold) {
			return nil
		}
	}
	n, err := a.cfg.Repo.OpenAlertWindow(ctx, alert, now, visitors)
	if n > 0 {
		a.cfg.Log.Info("traffic alert due", "website_id", alert.WebsiteID, "kind", alert.Kind, "visitors", visitors, "messages", n)
	}
	return err
}

// visitorsOf24Hours are the website's visitors of the last 24 hours, as the query API counts
// them (`"date_range": "24h"`, whole hours of the visit rows).
func (a *Alerter) visitorsOf24Hours(ctx context.Context, site repository.Website, now time.Time) (int64, error) {
	rows, err := a.query(ctx, site, now, `"24h"`, nil, "visitors", 1)
	if err != nil || len(rows) == 0 {
		return 0, err
	}
	return int64(rows[0].Metrics[0]), nil
}

// topRow is one row of an alert's top sources or pages.
type topRow struct {
	Value string
	Count int64
}

// query asks the query engine (the one reader of visit rows) for a metric over a range,
// grouped by one dimension when given, at most limit rows.
func (a *Alerter) query(ctx context.Context, site repository.Website, now time.Time, dateRange string, dimension *string, metric string, limit int) ([]repository.QueryRow, error) {
	body := map[string]any{"site_id": site.Domain, "metrics": []string{metric}, "date_range": json.RawMessage(dateRange),
		"pagination": map[string]int{"limit": limit}}
	if dimension != nil {
		body["dimensions"] = []string{*dimension}
		body["order_by"] = [][]string{{metric, "desc"}}
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	zone := site.Zone(a.cfg.Location)
	q, err := query.Parse(raw, query.Env{Now: now, Location: zone.At(now), Start: site.CreatedAt})
	if err != nil {
		return nil, fmt.Errorf("alerts.query: %w", err)
	}
	answer, err := a.cfg.Repo.RunQuery(ctx, site.ID, q, zone)
	if err != nil {
		return nil, err
	}
	return answer.Rows, nil
}

// tops are an alert's top sources and pages: of the last hour for a spike, of the last 24
// hours for a drop.
func (a *Alerter) tops(ctx context.Context, site repository.Website, kind string, at time.Time) (sources, pages []topRow, err error) {
	dateRange := `"24h"`
	if kind == repository.AlertSpike {
		dateRange = fmt.Sprintf(`[%q, %q]`, at.Add(-time.Hour).UTC().Format(time.RFC3339), at.UTC().Format(time.RFC3339))
	}
	read := func(dimension string) ([]topRow, error) {
		rows, err := a.query(ctx, site, at, dateRange, &dimension, "visitors", 5)
		if err != nil {
			return nil, err
		}
		out := make([]topRow, 0, len(rows))
		for _, r := range rows {
			out = append(out, topRow{Value: r.Dimensions[0], Count: int64(r.Metrics[0])})
		}
		return out, nil
	}
	if sources, err = read("visit:source"); err != nil {
		return nil, nil, err
	}
	pages, err = read("event:page")
	return sources, pages, err
}

// deliver builds, sends and records one claimed message. Once it is handed to the server, the
// rest runs to its end even if ctx is cancelled.
func (a *Alerter) deliver(ctx context.Context, d repository.AlertDelivery) {
	log := a.cfg.Log.With("website_id", d.WebsiteID, "kind", d.Kind, "attempt", d.Attempts)
	site, err := a.siteOf(ctx, d.UserID, d.WebsiteID, d.Kind)
	if errors.Is(err, repository.ErrNotFound) {
		a.finish(ctx, d, "skipped", log)
		return
	}
	var msg Message
	if err == nil {
		msg, err = a.message(ctx, site, d)
	}
	if err == nil {
		err = a.cfg.Mailer.Send(context.WithoutCancel(ctx), msg)
	}
	if err != nil {
		a.failed.Inc()
		next := a.cfg.Now().Add(backoff(d.Attempts))
		reason := err.Error()
		if len(reason) > maxErrorLength {
			reason = reason[:maxErrorLength]
		}
		log.Warn("traffic alert message failed; will retry", "error", reason, "next_attempt", next)
		if err := a.cfg.Repo.RetryAlertDelivery(context.WithoutCancel(ctx), d, next, reason); err != nil {
			log.Error("record a failed traffic alert message; it is retried after its lease", "error", err)
		}
		return
	}
	a.finish(ctx, d, "sent", log)
}

// finish records a message as done, a few tries, as the reports do: one left unrecorded is
// sent again when its lease runs out.
func (a *Alerter) finish(ctx context.Context, d repository.AlertDelivery, status string, log *slog.Logger) {
	err := recordDone(ctx, func(ctx context.Context) error { return a.cfg.Repo.FinishAlertDelivery(ctx, d, status, a.cfg.Now()) })
	if err != nil {
		log.Error("traffic alert message "+status+" but not recorded; it may be sent again after its lease", "error", err)
	}
	if status == "sent" {
		a.sent.Inc()
	}
}

// alertMail is what the alert and confirmation templates show.
type alertMail struct {
	Domain    string
	Kind      string // "spike", "drop", "confirm"
	Visitors  int64
	Threshold int
	At        string // when it was measured, in the website's zone
	Sources   []topRow
	Pages     []topRow
	Dashboard string // the website's dashboard (the realtime view for a spike)
	Settings  string // where the alerts are set
	Link      string // the confirmation's, or the unsubscription's
	Expires   string // the confirmation's link holds until then
}

// Subject is the message's subject line.
func (m alertMail) Subject() string {
	switch m.Kind {
	case repository.AlertSpike:
		return fmt.Sprintf("Traffic spike on %s: %d visitors now", m.Domain, m.Visitors)
	case repository.AlertDrop:
		return fmt.Sprintf("Traffic drop on %s: %d visitors in 24 hours", m.Domain, m.Visitors)
	}
	return "Confirm traffic alerts of " + m.Domain
}

// message builds one delivery's message.
func (a *Alerter) message(ctx context.Context, site repository.Website, d repository.AlertDelivery) (Message, error) {
	key, err := a.cfg.Repo.SigningKey(ctx, unsubscribePurpose)
	if err != nil {
		return Message{}, err
	}
	base := a.cfg.Links.Base.String()
	zone := site.Zone(a.cfg.Location).At(d.WindowAt)
	m := alertMail{Domain: site.Domain, Kind: d.Kind, Visitors: d.Measured, Threshold: d.Threshold,
		At:       d.WindowAt.In(zone).Format("Mon 2 Jan 2006, 15:04 MST"),
		Settings: base + "/websites/" + strconv.FormatInt(site.ID, 10) + "/edit#alerts"}
	msg := Message{To: d.Email, MessageID: messageID(d, a.host)}
	if d.Kind == repository.AlertConfirm {
		expires := d.WindowAt.Add(ConfirmValidity)
		m.Link = base + AlertsPath + "confirm/" + signPayload(key, confirmPurpose, alertPayload(d.WebsiteID, d.UserID, d.Email)+"."+strconv.FormatInt(expires.Unix(), 10))
		m.Expires = expires.In(zone).Format("2 Jan 2006")
	} else {
		m.Link = base + AlertsPath + "unsubscribe/" + signPayload(key, alertUnsubscribe, alertPayload(d.WebsiteID, d.UserID, d.Email))
		m.Dashboard = base + "/stats/" + url.PathEscape(site.Domain)
		if d.Kind == repository.AlertSpike {
			m.Dashboard += "/realtime"
		}
		if m.Sources, m.Pages, err = a.tops(ctx, site, d.Kind, d.WindowAt); err != nil {
			return Message{}, err
		}
		msg.Unsubscribe, msg.OneClick = m.Link, a.cfg.Links.OneClick()
	}
	msg.Subject = m.Subject()
	if msg.Text, msg.HTML, err = renderAlert(m); err != nil {
		return Message{}, err
	}
	return msg, nil
}

// messageID is stable per message, so that a retry is recognisably the same message.
func messageID(d repository.AlertDelivery, host string) string {
	sum := sha256.Sum256([]byte(d.Email))
	return fmt.Sprintf("alert-%d-%d-%s-%d-%s@%s", d.WebsiteID, d.UserID, d.Kind, d.WindowAt.Unix(), hex.EncodeToString(sum[:6]), host)
}

// alertPayload names an address of a user's alerts of a website in the links' tokens.
func alertPayload(websiteID, userID int64, email string) string {
	return strconv.FormatInt(websiteID, 10) + "." + strconv.FormatInt(userID, 10) + "." + base64.RawURLEncoding.EncodeToString([]byte(email))
}

// readAlertPayload reads alertPayload's fields; false when they are not its.
func readAlertPayload(p string) (websiteID, userID int64, email string, ok bool) {
	parts := strings.Split(p, ".")
	if len(parts) != 3 {
		return 0, 0, "", false
	}
	var err1, err2 error
	websiteID, err1 = strconv.ParseInt(parts[0], 10, 64)
	userID, err2 = strconv.ParseInt(parts[1], 10, 64)
	b, err3 := base64.RawURLEncoding.DecodeString(parts[2])
	return websiteID, userID, string(b), err1 == nil && err2 == nil && err3 == nil
}
