// Package smtptest runs a real SMTP server over TCP for tests (the server side of
// github.com/emersion/go-smtp): STARTTLS or implicit TLS with a certificate made for the test,
// AUTH PLAIN, and failures on demand. The code under test talks to it as to any server; nothing
// of the client is replaced.
package smtptest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"net/mail"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Received is one message the server accepted.
type Received struct {
	From string
	To   []string
	Data []byte
}

// Parse reads the message's header and body.
func (r Received) Parse(t testing.TB) *mail.Message {
	t.Helper()
	m, err := mail.ReadMessage(bytes.NewReader(r.Data))
	if err != nil {
		t.Fatalf("accepted message is not RFC 5322: %v\n%s", err, r.Data)
	}
	return m
}

// Server is a running SMTP server.
type Server struct {
	User, Password string
	// ClientTLS trusts the server's certificate; give it to the client under test.
	ClientTLS *tls.Config

	addr     string
	implicit bool
	cert     tls.Certificate
	srv      *smtp.Server

	mu       sync.Mutex
	received []Received
	failures []error // answers to the next DATA commands, in order
	arrived  chan struct{}
}

// Options choose how the server runs.
type Options struct {
	Addr     string // "" means 127.0.0.1:0; give a fixed one to restart on the same port
	Implicit bool   // TLS from the first byte (smtps://); else STARTTLS is offered
	NoTLS    bool   // offer no STARTTLS (and so no AUTH: go-smtp refuses it in clear)
	// Like takes the certificate and credentials of an earlier server, so that a client made
	// for that one works with this one (a server restarted on the same address).
	Like *Server
}

// Start runs a server until the test ends. It requires AUTH as User/Password when TLS is on.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	s := &Server{User: "reports", Password: "s3cret pass/word", implicit: opts.Implicit, arrived: make(chan struct{}, 1000)}
	if opts.Like != nil {
		s.User, s.Password, s.cert, s.ClientTLS = opts.Like.User, opts.Like.Password, opts.Like.cert, opts.Like.ClientTLS
	} else {
		var pool *x509.CertPool
		s.cert, pool = certificate(t)
		s.ClientTLS = &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
	}
	s.srv = smtp.NewServer(s)
	s.srv.Domain = "smtp.test"
	s.srv.ReadTimeout = 10 * time.Second
	s.srv.WriteTimeout = 10 * time.Second
	s.srv.MaxMessageBytes = 1 << 20
	s.srv.MaxRecipients = 10
	serverTLS := &tls.Config{Certificates: []tls.Certificate{s.cert}, MinVersion: tls.VersionTLS12}
	if !opts.NoTLS {
		s.srv.TLSConfig = serverTLS
	}
	addr := opts.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("smtp test server: %v", err)
	}
	if opts.Implicit {
		l = tls.NewListener(l, serverTLS)
	}
	s.addr = l.Addr().String()
	go func() { _ = s.srv.Serve(l) }()
	t.Cleanup(func() { _ = s.srv.Close() })
	return s
}

// Close stops the server at once (a test of a server that goes away).
func (s *Server) Close() { _ = s.srv.Close() }

// Addr is the server's host:port.
func (s *Server) Addr() string { return s.addr }

// URL is the SMTP_URL that reaches this server with its user and password.
func (s *Server) URL() string {
	scheme := "smtp"
	if s.implicit {
		scheme = "smtps"
	}
	u := url.URL{Scheme: scheme, Host: s.addr}
	if s.srv.TLSConfig != nil || s.implicit {
		u.User = url.UserPassword(s.User, s.Password)
	}
	return u.String()
}

// FailNext makes the next DATA commands answer with these SMTP errors, one each, e.g.
// &smtp.SMTPError{Code: 451, Message: "try later"}.
func (s *Server) FailNext(errs ...error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = append(s.failures, errs...)
}

// Messages returns what the server has accepted so far.
func (s *Server) Messages() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Received(nil), s.received...)
}

// WaitFor waits until the server has accepted at least n messages, and fails the test after
// within.
func (s *Server) WaitFor(t testing.TB, n int, within time.Duration) []Received {
	t.Helper()
	deadline := time.After(within)
	for {
		if got := s.Messages(); len(got) >= n {
			return got
		}
		select {
		case <-s.arrived:
		case <-deadline:
			t.Fatalf("smtp test server: %d messages after %s, want %d", len(s.Messages()), within, n)
		}
	}
}

// NewSession implements smtp.Backend.
func (s *Server) NewSession(c *smtp.Conn) (smtp.Session, error) {
	return &session{server: s, tls: s.implicit}, nil
}

type session struct {
	server *Server
	authed bool
	tls    bool
	from   string
	to     []string
}

func (ss *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (ss *session) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, username, password string) error {
		if username != ss.server.User || password != ss.server.Password {
			return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "bad user or password"}
		}
		ss.authed = true
		return nil
	}), nil
}

func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	if ss.server.srv.TLSConfig != nil || ss.server.implicit {
		if !ss.authed {
			return &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0}, Message: "authentication required"}
		}
	}
	ss.from = from
	return nil
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	ss.to = append(ss.to, to)
	return nil
}

func (ss *session) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s := ss.server
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.failures) > 0 {
		fail := s.failures[0]
		s.failures = s.failures[1:]
		return fail
	}
	s.received = append(s.received, Received{From: ss.from, To: ss.to, Data: data})
	s.arrived <- struct{}{}
	return nil
}

func (ss *session) Reset()        { ss.from, ss.to = "", nil }
func (ss *session) Logout() error { return nil }

// ErrTryLater is the 451 a server answers when it cannot take a message just now.
var ErrTryLater error = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try again later"}

// certificate makes a self-signed certificate for 127.0.0.1 and a pool that trusts it.
func certificate(t testing.TB) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "smtp.test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:     []string{"localhost"},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(parsed)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: parsed}, pool
}

// FreeAddr returns a 127.0.0.1 address nothing listens on (for a connection refused), which
// Start can later listen on.
func FreeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}
