package reports

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/analytics-service/analytics/repository"
)

const (
	// DefaultLease is how long a claimed report is this process's alone. It must outlast a
	// whole attempt (building, DefaultSendTimeout, recording), or a slow sender could be taken
	// over while it is still talking to the server; a process that died is taken over after it.
	DefaultLease = 15 * time.Minute
	// firstRetry and maxRetry bound the backoff between attempts: 1, 2, 4 ... minutes, then
	// every maxRetry, for as long as it takes. A report is never given up.
	firstRetry = time.Minute
	maxRetry   = 6 * time.Hour
	// maxErrorLength bounds the last_error kept per report.
	maxErrorLength = 1000
)

// Config wires a Reporter.
type Config struct {
	Repo     *repository.Repository
	Location *time.Location // TZ; nil means UTC
	Links    Links          // Base nil: PUBLIC_URL is unset and nothing is sent
	Mailer   *Mailer        // nil: SMTP_URL is unset and nothing is sent
	Kind     string         // Month or Week; "" means Month
	Now      func() time.Time
	Lease    time.Duration // 0 means DefaultLease
	Log      *slog.Logger
}

// Reporter sends the reports: as a periodic job of `analytics serve` (Tick) and on demand
// (`analytics report send`: SendPeriod, DryRun).
type Reporter struct {
	cfg     Config
	builder *Builder
	metrics reportMetrics
	offOnce sync.Once // the one log line saying no report is sent
}

type reportMetrics struct {
	sent, failed prometheus.Counter
	oldestUnsent prometheus.Gauge
}

// withDefaults is the configuration with each zero field its default.
func (cfg Config) withDefaults() Config {
	if cfg.Location == nil {
		cfg.Location = time.UTC
	}
	if cfg.Kind == "" {
		cfg.Kind = Month
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return cfg
}

// New makes a Reporter; its metrics go to reg (nil: not registered).
func New(cfg Config, reg prometheus.Registerer) *Reporter {
	cfg = cfg.withDefaults()
	host := "localhost"
	if cfg.Mailer != nil {
		host = cfg.Mailer.FromDomain()
	}
	m := reportMetrics{
		sent: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "analytics_reports_sent_total", Help: "E-mail reports the SMTP server accepted."}),
		failed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "analytics_reports_failed_total", Help: "Attempts at an e-mail report that failed (each is retried later)."}),
		oldestUnsent: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "analytics_reports_oldest_unsent_age_seconds", Help: "How long the oldest e-mail report not sent yet has been due; 0 when all are sent."}),
	}
	if reg != nil {
		reg.MustRegister(m.sent, m.failed, m.oldestUnsent)
	}
	return &Reporter{
		cfg:     cfg,
		builder: &Builder{Repo: cfg.Repo, Location: cfg.Location, Links: cfg.Links, MessageHost: host},
		metrics: m,
	}
}

// Outcome is what became of one report in one attempt.
type Outcome struct {
	To          string
	Status      string // "sent", "failed", "skipped" (no website with email 1 left)
	Err         error  // for "failed"
	NextAttempt time.Time
}

func (o Outcome) String() string {
	switch o.Status {
	case "failed":
		return fmt.Sprintf("%s\tfailed: %v (next attempt %s)", o.To, o.Err, o.NextAttempt.UTC().Format(time.RFC3339))
	case "skipped":
		return o.To + "\tskipped: no website with e-mail reports on"
	}
	return o.To + "\t" + o.Status
}

// LogSetup says at start-up whether reports will be sent; without SMTP_URL or PUBLIC_URL that
// is the one line the log ever says about it (Tick says it itself when LogSetup was not called).
func (r *Reporter) LogSetup() {
	if r.off() != "" {
		r.warnOff()
		return
	}
	r.cfg.Log.Info("e-mail reports on", "period", r.cfg.Kind, "smtp", r.cfg.Mailer.host+":"+strconv.Itoa(r.cfg.Mailer.port),
		"links", r.cfg.Links.Base.String())
}

// off says why no report can be sent, or "" when they can: a report needs a mail server
// (SMTP_URL) and the service's public address for its links (PUBLIC_URL). Without the address
// the links would point wherever this process guesses, which a reader elsewhere cannot open.
func (r *Reporter) off() string { return r.cfg.off() }

// off says why no message can be sent with the configuration, "" when they can.
func (cfg Config) off() string {
	var missing []string
	if cfg.Mailer == nil {
		missing = append(missing, "SMTP_URL is not set")
	}
	if cfg.Links.Base == nil {
		missing = append(missing, "PUBLIC_URL is not set (the links of a report need the service's public address)")
	}
	return strings.Join(missing, " and ")
}

func (r *Reporter) warnOff() {
	r.offOnce.Do(func() { r.cfg.Log.Warn(r.off() + ": no e-mail report will be sent") })
}

// Tick is the periodic job: it makes the reports of the latest period that is due, then sends
// every report that is due, its own and older ones being retried, one claim at a time, until
// none is left or ctx ends.
func (r *Reporter) Tick(ctx context.Context) error {
	if r.off() != "" {
		r.warnOff()
		return nil
	}
	now := r.cfg.Now()
	// The latest period that may be due for someone: its reports are made now, each due when
	// its owner's last zone has reached SendHour after it (enqueue).
	p := Due(r.cfg.Kind, now, firstZone)
	n, err := r.enqueue(ctx, p, time.Time{})
	if err != nil {
		return err
	}
	if n > 0 {
		r.cfg.Log.Info("e-mail reports due", "period", p.key(), "reports", n)
	}
	for ctx.Err() == nil {
		_, ok, err := r.sendOne(ctx, repository.ReportClaimQuery{Now: r.cfg.Now(), Lease: r.cfg.Lease})
		if err != nil {
			return err
		}
		if !ok {
			break
		}
	}
	return r.updateOldest(ctx)
}

// SendPeriod sends, now, every report of a period that is not sent yet (making those that do
// not exist yet), whatever their backoff, once each, and tells each outcome to report. Reports
// being sent by another process at this moment are left to it.
func (r *Reporter) SendPeriod(ctx context.Context, p Period, report func(Outcome)) error {
	if off := r.off(); off != "" {
		return errors.New(off + ": nothing can be sent (use --dry-run to see the reports)")
	}
	if _, err := r.enqueue(ctx, p, r.cfg.Now()); err != nil {
		return err
	}
	deliveries, err := r.cfg.Repo.ReportDeliveries(ctx, p.Kind, p.From)
	if err != nil {
		return err
	}
	for _, d := range deliveries {
		if d.Status == "sent" || d.Status == "skipped" || ctx.Err() != nil {
			continue
		}
		out, ok, err := r.sendOne(ctx, repository.ReportClaimQuery{
			Now: r.cfg.Now(), Lease: r.cfg.Lease, Period: p.Kind, PeriodStart: p.From,
			UserID: d.UserID, IgnoreBackoff: true,
		})
		if err != nil {
			return err
		}
		if !ok {
			out = Outcome{To: d.Email, Status: "being sent by another process"}
		}
		report(out)
	}
	return ctx.Err()
}

// DryRun writes the text part of every report of a period, as it would be sent now, and
// claims nothing. Without PUBLIC_URL the links start with the placeholder "PUBLIC_URL".
func (r *Reporter) DryRun(ctx context.Context, p Period, w io.Writer) error {
	users, err := r.cfg.Repo.ReportRecipients(ctx, p.End(lastZone))
	if err != nil {
		return err
	}
	builder := *r.builder
	if builder.Links.Base == nil {
		builder.Links.Base = &url.URL{Path: "PUBLIC_URL"}
	}
	for _, u := range users {
		rep, ok, err := builder.Build(ctx, u, p)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		text, _, err := Render(rep)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "To: %s\nSubject: %s\n\n%s\n", u.Email, rep.Subject(), text)
	}
	if len(users) == 0 {
		fmt.Fprintf(w, "no report for %s: no website with e-mail reports on existed then\n", p.Name())
	}
	return nil
}

// enqueue makes the reports of a period that do not exist yet, each owner's due at SendHour
// after the period has ended in the last of the zones of their websites that go into it; a
// due time after notLater (when set: an operator asking now) is brought forward to it.
func (r *Reporter) enqueue(ctx context.Context, p Period, notLater time.Time) (int64, error) {
	sites, err := r.cfg.Repo.ReportedWebsites(ctx, p.End(lastZone))
	if err != nil {
		return 0, err
	}
	var dues []repository.ReportDue
	for _, w := range sites {
		zone := w.Zone(r.cfg.Location).OfDay(p.To)
		if !w.CreatedAt.Before(p.End(zone)) {
			continue // added after the period ended in its zone: nothing to report
		}
		due := p.DueAt(zone)
		if !notLater.IsZero() && notLater.Before(due) {
			due = notLater
		}
		switch last := len(dues) - 1; {
		case last >= 0 && dues[last].UserID == w.UserID: // sites come by owner
			if due.After(dues[last].DueAt) {
				dues[last].DueAt = due
			}
		default:
			dues = append(dues, repository.ReportDue{UserID: w.UserID, DueAt: due})
		}
	}
	return r.cfg.Repo.EnqueueReportsDue(ctx, p.Kind, p.From, dues)
}

// sendOne claims one report and delivers it; ok is false when there was none to claim.
func (r *Reporter) sendOne(ctx context.Context, q repository.ReportClaimQuery) (Outcome, bool, error) {
	claim, err := r.cfg.Repo.ClaimReport(ctx, q)
	if errors.Is(err, repository.ErrNotFound) {
		return Outcome{}, false, nil
	}
	if err != nil {
		return Outcome{}, false, err
	}
	return r.deliver(ctx, claim), true, nil
}

// deliver builds, renders, sends and records one claimed report. Once the message is handed
// to the server, the rest runs to its end even if ctx is cancelled (shutdown): cutting it
// would leave a sent report unrecorded.
func (r *Reporter) deliver(ctx context.Context, c repository.ReportClaim) Outcome {
	p := periodOf(c.Period, c.PeriodStart)
	log := r.cfg.Log.With("user_id", c.UserID, "period", p.key(), "attempt", c.Attempts)
	rep, ok, err := r.builder.Build(ctx, repository.User{ID: c.UserID, Email: c.Email}, p)
	if err == nil && !ok {
		return r.finish(ctx, c, "skipped", log)
	}
	var msg Message
	if err == nil {
		msg, err = r.message(rep)
	}
	if err == nil {
		err = r.cfg.Mailer.Send(context.WithoutCancel(ctx), msg)
	}
	if err != nil {
		return r.retry(ctx, c, err, log)
	}
	return r.finish(ctx, c, "sent", log)
}

func (r *Reporter) message(rep Report) (Message, error) {
	text, html, err := Render(rep)
	if err != nil {
		return Message{}, err
	}
	return Message{
		To: rep.To, Subject: rep.Subject(), Text: text, HTML: html, MessageID: rep.MessageID,
		Unsubscribe: rep.Unsubscribe, OneClick: r.cfg.Links.OneClick(),
	}, nil
}

// recordDone runs record, the recording of a message done, up to 3 times a second apart and
// whatever ctx says (the message is out), until it succeeds or the claim is found lost.
func recordDone(ctx context.Context, record func(context.Context) error) error {
	ctx = context.WithoutCancel(ctx)
	var err error
	for try := 0; try < 3; try++ {
		if try > 0 {
			time.Sleep(time.Second)
		}
		if err = record(ctx); err == nil || errors.Is(err, repository.ErrClaimLost) {
			break
		}
	}
	return err
}

// finish records a sent or skipped report. The message is out: recording it is retried a few
// times, because a report left unrecorded is sent again when its lease runs out.
func (r *Reporter) finish(ctx context.Context, c repository.ReportClaim, status string, log *slog.Logger) Outcome {
	err := recordDone(ctx, func(ctx context.Context) error { return r.cfg.Repo.FinishReport(ctx, c, status, r.cfg.Now()) })
	if err != nil {
		log.Error("e-mail report "+status+" but not recorded; it may be sent again after its lease", "error", err)
	}
	if status == "sent" {
		r.metrics.sent.Inc()
		log.Info("e-mail report sent")
	}
	return Outcome{To: c.Email, Status: status}
}

// retry records a failed attempt and when the next one is due.
func (r *Reporter) retry(ctx context.Context, c repository.ReportClaim, cause error, log *slog.Logger) Outcome {
	r.metrics.failed.Inc()
	next := r.cfg.Now().Add(backoff(c.Attempts))
	reason := cause.Error()
	if len(reason) > maxErrorLength {
		reason = reason[:maxErrorLength]
	}
	log.Warn("e-mail report failed; will retry", "error", reason, "next_attempt", next)
	if err := r.cfg.Repo.RetryReport(context.WithoutCancel(ctx), c, next, reason); err != nil {
		log.Error("record a failed e-mail report; it is retried after its lease", "error", err)
	}
	return Outcome{To: c.Email, Status: "failed", Err: cause, NextAttempt: next}
}

// backoff is the wait after the attempts-th failed attempt.
func backoff(attempts int) time.Duration {
	d := firstRetry
	for i := 1; i < attempts && d < maxRetry; i++ {
		d *= 2
	}
	return min(d, maxRetry)
}

func (r *Reporter) updateOldest(ctx context.Context) error {
	due, ok, err := r.cfg.Repo.OldestUnsentReport(ctx)
	if err != nil {
		return err
	}
	age := 0.0
	if ok {
		age = max(0, r.cfg.Now().Sub(due).Seconds())
	}
	r.metrics.oldestUnsent.Set(age)
	return nil
}
