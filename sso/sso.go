// Package sso is single sign-on with OpenID Connect (docs/teams.md): the authorization code
// flow with PKCE (S256), state and nonce, against the provider at OIDC_ISSUER, whose
// configuration and keys are found by discovery. The ID token's signature, issuer, audience
// (OIDC_CLIENT_ID) and expiry are checked by coreos/go-oidc; its nonce and the e-mail's being
// verified here. The pages own the cookies and the accounts.
package sso

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// Config is the provider and this service's client at it.
type Config struct {
	Issuer       string // OIDC_ISSUER; "" turns single sign-on off
	ClientID     string // OIDC_CLIENT_ID
	ClientSecret string // OIDC_CLIENT_SECRET
	// AutoCreate (OIDC_AUTO_CREATE=true) makes an account for a verified e-mail that has none.
	AutoCreate bool
	// AllowedDomains (OIDC_ALLOWED_DOMAINS, comma-separated), when set, are the only domains
	// whose addresses may sign in with single sign-on (and so be made accounts).
	AllowedDomains []string
	// Now is the clock the ID token's expiry is checked against; nil means time.Now.
	Now func() time.Time
	// HTTPClient talks to the provider; nil means a client with a 10 s timeout.
	HTTPClient *http.Client
}

// Refusals, each its own page's reason.
var (
	// ErrCode: the provider refused the code (used already, expired, or not this client's).
	ErrCode = errors.New("the provider refused the code")
	// ErrToken: the ID token is missing, or its signature, issuer or audience is wrong.
	ErrToken = errors.New("the ID token is not valid")
	// ErrExpired: the ID token has expired.
	ErrExpired = errors.New("the ID token has expired")
	// ErrNonce: the ID token is not the answer to this browser's request.
	ErrNonce = errors.New("the ID token is not for this sign-in")
	// ErrUnverified: the provider has not verified the e-mail address, or gives none.
	ErrUnverified = errors.New("the e-mail address is not verified")
	// ErrProvider: the provider could not be reached or its configuration read.
	ErrProvider = errors.New("the provider cannot be reached")
)

// Identity is who the provider says signed in.
type Identity struct {
	Subject string
	Email   string
}

// Provider is the client of one OpenID provider. Its discovery runs at the first sign-in
// (not at start-up, so a provider down then delays nothing) and is kept once it succeeds.
type Provider struct {
	cfg      Config
	mu       sync.Mutex
	provider *oidc.Provider
}

// New makes the client; nil when the config has no issuer (single sign-on off).
func New(cfg Config) *Provider {
	if cfg.Issuer == "" {
		return nil
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	for i, d := range cfg.AllowedDomains {
		cfg.AllowedDomains[i] = strings.ToLower(strings.TrimSpace(d))
	}
	return &Provider{cfg: cfg}
}

// AutoCreate tells whether accounts are made for new verified e-mails.
func (p *Provider) AutoCreate() bool { return p.cfg.AutoCreate }

// DomainAllowed tells whether an address may sign in with single sign-on.
func (p *Provider) DomainAllowed(email string) bool {
	if len(p.cfg.AllowedDomains) == 0 {
		return true
	}
	at := strings.LastIndexByte(email, '@')
	domain := strings.ToLower(email[at+1:])
	for _, d := range p.cfg.AllowedDomains {
		if d != "" && domain == d {
			return true
		}
	}
	return false
}

func (p *Provider) context(ctx context.Context) context.Context {
	return oidc.ClientContext(ctx, p.cfg.HTTPClient)
}

// discover reads the provider's configuration, once it succeeds.
func (p *Provider) discover(ctx context.Context) (*oidc.Provider, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.provider != nil {
		return p.provider, nil
	}
	provider, err := oidc.NewProvider(p.context(ctx), p.cfg.Issuer)
	if err != nil {
		return nil, fmt.Errorf("sso: discovery: %w: %w", ErrProvider, err)
	}
	p.provider = provider
	return provider, nil
}

func (p *Provider) oauth(provider *oidc.Provider, redirectURL string) *oauth2.Config {
	return &oauth2.Config{ClientID: p.cfg.ClientID, ClientSecret: p.cfg.ClientSecret, Endpoint: provider.Endpoint(),
		RedirectURL: redirectURL, Scopes: []string{oidc.ScopeOpenID, "email"}}
}

// Request is one sign-in's secrets, kept by the browser (signed) between leaving for the
// provider and coming back.
type Request struct {
	State, Nonce, Verifier string
}

// NewRequest makes a sign-in's random state, nonce and PKCE verifier.
func NewRequest() Request {
	return Request{State: oauth2.GenerateVerifier(), Nonce: oauth2.GenerateVerifier(), Verifier: oauth2.GenerateVerifier()}
}

// AuthURL is the provider's address that a sign-in starts at.
func (p *Provider) AuthURL(ctx context.Context, redirectURL string, req Request) (string, error) {
	provider, err := p.discover(ctx)
	if err != nil {
		return "", err
	}
	return p.oauth(provider, redirectURL).AuthCodeURL(req.State, oauth2.S256ChallengeOption(req.Verifier), oidc.Nonce(req.Nonce)), nil
}

// Exchange trades the code the provider sent back for the tokens, and checks the ID token
// (Verify): who signed in, with a verified e-mail address.
func (p *Provider) Exchange(ctx context.Context, redirectURL, code string, req Request) (Identity, error) {
	provider, err := p.discover(ctx)
	if err != nil {
		return Identity{}, err
	}
	token, err := p.oauth(provider, redirectURL).Exchange(p.context(ctx), code, oauth2.VerifierOption(req.Verifier))
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) {
			return Identity{}, fmt.Errorf("sso: exchange: %w: %s", ErrCode, re.ErrorCode)
		}
		return Identity{}, fmt.Errorf("sso: exchange: %w: %w", ErrProvider, err)
	}
	raw, _ := token.Extra("id_token").(string)
	if raw == "" {
		return Identity{}, fmt.Errorf("sso: %w: the answer has none", ErrToken)
	}
	return p.Verify(ctx, raw, req.Nonce, oauth2.StaticTokenSource(token))
}

// Verify checks an ID token (signature, issuer, audience, expiry, nonce) and reads the verified
// e-mail address from it, or from the user info endpoint when the token carries none (with
// tokens, the access token's source; nil: the token must carry it).
func (p *Provider) Verify(ctx context.Context, raw, nonce string, tokens oauth2.TokenSource) (Identity, error) {
	provider, err := p.discover(ctx)
	if err != nil {
		return Identity{}, err
	}
	verifier := provider.Verifier(&oidc.Config{ClientID: p.cfg.ClientID, Now: p.cfg.Now})
	idToken, err := verifier.Verify(p.context(ctx), raw)
	var expired *oidc.TokenExpiredError
	switch {
	case errors.As(err, &expired):
		return Identity{}, fmt.Errorf("sso: %w: %w", ErrExpired, err)
	case err != nil:
		return Identity{}, fmt.Errorf("sso: %w: %w", ErrToken, err)
	case idToken.Nonce != nonce:
		return Identity{}, fmt.Errorf("sso: %w", ErrNonce)
	}
	var claims struct {
		Email         string `json:"email"`
		EmailVerified *bool  `json:"email_verified"`
	}
	if err := idToken.Claims(&claims); err != nil {
		return Identity{}, fmt.Errorf("sso: %w: %w", ErrToken, err)
	}
	if claims.Email == "" && tokens != nil {
		info, err := provider.UserInfo(p.context(ctx), tokens)
		if err != nil {
			return Identity{}, fmt.Errorf("sso: user info: %w: %w", ErrProvider, err)
		}
		if info.Subject != idToken.Subject {
			return Identity{}, fmt.Errorf("sso: user info of another subject: %w", ErrToken)
		}
		claims.Email, claims.EmailVerified = info.Email, &info.EmailVerified
	}
	if claims.Email == "" || claims.EmailVerified == nil || !*claims.EmailVerified {
		return Identity{}, fmt.Errorf("sso: %w", ErrUnverified)
	}
	return Identity{Subject: idToken.Subject, Email: claims.Email}, nil
}
