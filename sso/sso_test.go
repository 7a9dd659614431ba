package sso_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/analytics-service/analytics/sso"
	"github.com/analytics-service/analytics/testkit/oidcop"
)

var (
	ours  = oidcop.Client{ID: "analytics", Secret: "s3cret", RedirectURI: "http://127.0.0.1:1/callback"}
	other = oidcop.Client{ID: "other", Secret: "other-secret", RedirectURI: "http://127.0.0.1:1/other"}
	users = []oidcop.User{{Username: "alice", Email: "alice@example.com", EmailVerified: true}}
)

// idToken signs in at the provider as alice through client c and returns the ID token the
// provider's token endpoint answers with, as that client gets it.
func idToken(t *testing.T, op *oidcop.Provider, c oidcop.Client, nonce string) (string, *oauth2.Token) {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	back, err := url.Parse(op.SignIn(client, op.AuthorizeURL(c, "state", nonce), "alice"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := oauth2.Config{ClientID: c.ID, ClientSecret: c.Secret, RedirectURL: c.RedirectURI,
		Endpoint: oauth2.Endpoint{TokenURL: op.Issuer + "/oauth/token"}}
	token, err := cfg.Exchange(context.Background(), back.Query().Get("code"))
	if err != nil {
		t.Fatalf("exchange as %s: %v", c.ID, err)
	}
	raw, _ := token.Extra("id_token").(string)
	if raw == "" {
		t.Fatal("no id_token")
	}
	return raw, token
}

// The ID token's checks, each on a real token of a real provider: the right one passes, one of
// another client (audience), of another provider (issuer and signature), tampered with, for
// another request (nonce) or expired is refused.
func TestVerify(t *testing.T) {
	op := oidcop.Start(t, users, []oidcop.Client{ours, other})
	now := time.Now()
	p := sso.New(sso.Config{Issuer: op.Issuer, ClientID: ours.ID, ClientSecret: ours.Secret, Now: func() time.Time { return now }})
	ctx := context.Background()
	raw, token := idToken(t, op, ours, "n1")
	id, err := p.Verify(ctx, raw, "n1", oauth2.StaticTokenSource(token))
	if err != nil || id.Email != "alice@example.com" {
		t.Fatalf("the right token: %+v %v", id, err)
	}
	if _, err := p.Verify(ctx, raw, "n2", oauth2.StaticTokenSource(token)); !errors.Is(err, sso.ErrNonce) {
		t.Errorf("another nonce: %v", err)
	}
	if _, err := p.Verify(ctx, raw, "n1", nil); !errors.Is(err, sso.ErrUnverified) {
		t.Errorf("a token without the address, and no user info: %v", err)
	}
	theirs, _ := idToken(t, op, other, "n1")
	if _, err := p.Verify(ctx, theirs, "n1", nil); !errors.Is(err, sso.ErrToken) || !strings.Contains(err.Error(), "audience") {
		t.Errorf("another audience: %v", err)
	}
	parts := strings.Split(raw, ".")
	sig := []byte(parts[2])
	sig[10] ^= 1
	if _, err := p.Verify(ctx, parts[0]+"."+parts[1]+"."+string(sig), "n1", nil); !errors.Is(err, sso.ErrToken) {
		t.Errorf("a tampered signature: %v", err)
	}
	elsewhere := oidcop.Start(t, users, []oidcop.Client{ours})
	foreign, _ := idToken(t, elsewhere, ours, "n1")
	if _, err := p.Verify(ctx, foreign, "n1", nil); !errors.Is(err, sso.ErrToken) {
		t.Errorf("another issuer: %v", err)
	}
	now = now.Add(2 * time.Hour)
	if _, err := p.Verify(ctx, raw, "n1", nil); !errors.Is(err, sso.ErrExpired) {
		t.Errorf("expired: %v", err)
	}
}

func TestDomainAllowed(t *testing.T) {
	p := sso.New(sso.Config{Issuer: "http://127.0.0.1:1", AllowedDomains: []string{" Example.COM", "b.example"}})
	for email, want := range map[string]bool{"a@example.com": true, "a@EXAMPLE.com": true, "a@b.example": true,
		"a@sub.example.com": false, "a@example.com.evil": false, "example.com@evil.example": false} {
		if got := p.DomainAllowed(email); got != want {
			t.Errorf("%s: %v", email, got)
		}
	}
	if sso.New(sso.Config{}) != nil {
		t.Error("no issuer: not off")
	}
}
