package reports_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/reports"
	"github.com/analytics-service/analytics/reports/smtptest"
)

func TestMailerConfig(t *testing.T) {
	for _, bad := range []struct{ url, from, want string }{
		{"http://mail.example.com", "a@example.com", "SMTP_URL"},
		{"mail.example.com:587", "a@example.com", "SMTP_URL"},
		{"smtp://", "a@example.com", "SMTP_URL"},
		{"smtp://mail.example.com:99999", "a@example.com", "port"},
		{"smtp://mail.example.com/x", "a@example.com", "SMTP_URL"},
		{"smtp://mail.example.com?tls=no", "a@example.com", "SMTP_URL"},
		{"smtp://mail.example.com", "", "REPORT_FROM"},
		{"smtp://mail.example.com", "not an address", "REPORT_FROM"},
	} {
		_, err := reports.NewMailer(bad.url, bad.from)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q %q: %v, want an error about %s", bad.url, bad.from, err, bad.want)
		}
	}
	_, err := reports.NewMailer("ftp://user:hunter2@mail.example.com", "a@example.com")
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("the password shows in %v", err)
	}
	m, err := reports.NewMailer("smtp://u:p@mail.example.com", "Analytics <reports@example.com>")
	if err != nil || m.FromDomain() != "example.com" {
		t.Fatalf("%v %v", m, err)
	}
}

// smtps:// (TLS from the first byte) and a server that offers no STARTTLS (smtp:// without a
// user: sent in clear, as SMTP_URL says).
func TestMailerImplicitTLSAndPlain(t *testing.T) {
	msg := reports.Message{To: "owner@example.com", Subject: "Hello", Text: "text part", HTML: "<p>html part</p>",
		MessageID: "report-1-month-2026-10@example.com", Unsubscribe: "http://localhost:8080/unsubscribe/x"}
	for _, opts := range []smtptest.Options{{Implicit: true}, {NoTLS: true}} {
		srv := smtptest.Start(t, opts)
		if got := srv.URL(); opts.Implicit != strings.HasPrefix(got, "smtps://") {
			t.Fatalf("URL %s", got)
		}
		m, err := reports.NewMailer(srv.URL(), "reports@example.com")
		if err != nil {
			t.Fatal(err)
		}
		m.TLSConfig = srv.ClientTLS
		if err := m.Send(context.Background(), msg); err != nil {
			t.Fatalf("%+v: %v", opts, err)
		}
		got := srv.WaitFor(t, 1, 10*time.Second)[0].Parse(t)
		if got.Header.Get("Message-Id") != "<report-1-month-2026-10@example.com>" ||
			got.Header.Get("List-Unsubscribe") != "<http://localhost:8080/unsubscribe/x>" ||
			got.Header.Get("List-Unsubscribe-Post") != "" {
			t.Fatalf("%+v: headers %v", opts, got.Header)
		}
	}
	// A wrong password is a failure like any other.
	srv := smtptest.Start(t, smtptest.Options{})
	m, err := reports.NewMailer(strings.Replace(srv.URL(), "s3cret", "wrong", 1), "reports@example.com")
	if err != nil {
		t.Fatal(err)
	}
	m.TLSConfig = srv.ClientTLS
	if err := m.Send(context.Background(), msg); err == nil || !strings.Contains(err.Error(), "535") {
		t.Fatalf("wrong password: %v", err)
	}
}
