package account

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"

	"github.com/analytics-service/analytics/reports"
)

// Outbox sends the mail of accounts (invitations, set-password links, password resets) in the
// background, through the reports' mailer: a request only queues its work, so the answer to a
// reset takes the same time whether or not the address has an account, and a slow mail server
// slows no page. The queue is in memory: work lost with a node (a crash) is asked for again by
// the person waiting for the mail.
type Outbox struct {
	mailer *reports.Mailer // nil: no mail is sent
	log    *slog.Logger
	queue  chan func(context.Context) error
}

// outboxSize bounds the queued work; past it, new work is dropped (and logged).
const outboxSize = 1000

// NewOutbox makes an outbox; with a nil mailer (SMTP_URL or PUBLIC_URL unset) it sends nothing
// and Enabled is false.
func NewOutbox(mailer *reports.Mailer, log *slog.Logger) *Outbox {
	if log == nil {
		log = slog.Default()
	}
	return &Outbox{mailer: mailer, log: log, queue: make(chan func(context.Context) error, outboxSize)}
}

// Enabled says whether mail can be sent.
func (o *Outbox) Enabled() bool { return o != nil && o.mailer != nil }

// Enqueue queues work for the background without waiting; false when the queue is full.
func (o *Outbox) Enqueue(work func(context.Context) error) bool {
	select {
	case o.queue <- work:
		return true
	default:
		o.log.Warn("account mail queue full: dropped a mail")
		return false
	}
}

// Run does the queued work until ctx ends: the job "send account mail".
func (o *Outbox) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case work := <-o.queue:
			// Never the message's text or its link in the log: it holds a one-use token.
			if err := work(ctx); err != nil {
				o.log.Warn("account mail not sent", "error", err)
			}
		}
	}
}

// Send sends one message now (from a queued job).
func (o *Outbox) Send(ctx context.Context, to, subject, text, html string) error {
	id := make([]byte, 16)
	_, _ = rand.Read(id)
	return o.mailer.Send(ctx, reports.Message{
		To: to, Subject: subject, Text: text, HTML: html,
		MessageID: "account-" + hex.EncodeToString(id) + "@" + o.mailer.FromDomain(),
	})
}
