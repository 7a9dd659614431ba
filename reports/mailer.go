package reports

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// DefaultSendTimeout bounds one SMTP conversation; a report whose send times out is retried.
const DefaultSendTimeout = time.Minute

// Mailer sends messages to the server of SMTP_URL with go-mail: smtp:// upgrades with
// STARTTLS when the server offers it, smtps:// speaks TLS from the first byte, and a user and
// password in the URL log in (go-mail refuses to send a password in clear to a remote host).
type Mailer struct {
	host     string
	port     int
	implicit bool // smtps://
	user     string
	password string
	from     *mail.Address
	// TLSConfig verifies the server; nil means the system's roots and the URL's host. Tests
	// set it to trust their own certificate.
	TLSConfig *tls.Config
	Timeout   time.Duration // one conversation; 0 means DefaultSendTimeout
}

// Message is one e-mail to send.
type Message struct {
	To        string
	Subject   string
	Text      string
	HTML      string
	MessageID string // without the angle brackets
	// Unsubscribe is the List-Unsubscribe address; OneClick adds List-Unsubscribe-Post
	// (RFC 8058), which needs an https address.
	Unsubscribe string
	OneClick    bool
}

// NewMailer checks SMTP_URL and REPORT_FROM: smtp://[user[:password]@]host[:port] (port 587
// by default) or smtps://... (port 465 by default), and an address such as
// "Analytics <reports@example.com>".
func NewMailer(smtpURL, from string) (*Mailer, error) {
	u, err := url.Parse(smtpURL)
	if err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Hostname() == "" ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("SMTP_URL: %q is not smtp://user:password@host:port or smtps://...", redact(smtpURL))
	}
	m := &Mailer{host: u.Hostname(), implicit: u.Scheme == "smtps", port: 587}
	if m.implicit {
		m.port = 465
	}
	if p := u.Port(); p != "" {
		if m.port, err = strconv.Atoi(p); err != nil || m.port < 1 || m.port > 65535 {
			return nil, fmt.Errorf("SMTP_URL: port %q is not a number from 1 to 65535", p)
		}
	}
	if u.User != nil {
		m.user = u.User.Username()
		m.password, _ = u.User.Password()
	}
	if from == "" {
		return nil, fmt.Errorf("REPORT_FROM is not set: reports need a sender address such as reports@example.com")
	}
	if m.from, err = mail.ParseAddress(from); err != nil {
		return nil, fmt.Errorf("REPORT_FROM: %q is not an e-mail address: %w", from, err)
	}
	return m, nil
}

// redact hides the password of an SMTP URL in error messages and logs.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// FromDomain is the domain of the sender address: the right-hand side of Message-IDs.
func (m *Mailer) FromDomain() string {
	_, domain, _ := strings.Cut(m.from.Address, "@")
	return domain
}

// Send delivers one message in one SMTP conversation. Any error means the server did not
// accept it (or we cannot know that it did); the caller retries later.
func (m *Mailer) Send(ctx context.Context, msg Message) error {
	gm, err := m.message(msg)
	if err != nil {
		return err
	}
	timeout := m.Timeout
	if timeout <= 0 {
		timeout = DefaultSendTimeout
	}
	opts := []gomail.Option{gomail.WithPort(m.port), gomail.WithTimeout(timeout)}
	if m.implicit {
		opts = append(opts, gomail.WithSSL())
	} else {
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	}
	if m.TLSConfig != nil {
		opts = append(opts, gomail.WithTLSConfig(m.TLSConfig))
	}
	if m.user != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(m.user), gomail.WithPassword(m.password))
	}
	client, err := gomail.NewClient(m.host, opts...)
	if err != nil {
		return fmt.Errorf("smtp client: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := client.DialAndSendWithContext(ctx, gm); err != nil {
		return fmt.Errorf("smtp %s:%d: %w", m.host, m.port, err)
	}
	return nil
}

func (m *Mailer) message(msg Message) (*gomail.Msg, error) {
	gm := gomail.NewMsg()
	gm.FromMailAddress(m.from)
	if err := gm.To(msg.To); err != nil {
		return nil, fmt.Errorf("recipient %q: %w", msg.To, err)
	}
	gm.Subject(msg.Subject)
	gm.SetMessageIDWithValue(msg.MessageID)
	gm.SetDate()
	gm.SetBulk()
	if msg.OneClick {
		if err := gm.SetListUnsubscribeOneClick(msg.Unsubscribe); err != nil {
			return nil, err
		}
	} else if msg.Unsubscribe != "" {
		gm.SetListUnsubscribe(msg.Unsubscribe)
	}
	gm.SetBodyString(gomail.TypeTextPlain, msg.Text)
	gm.AddAlternativeString(gomail.TypeTextHTML, msg.HTML)
	return gm, nil
}
