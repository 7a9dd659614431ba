package signin

import (
	"crypto/hmac"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/analytics-service/analytics/account"
	"github.com/analytics-service/analytics/pages/htmlpage"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/sso"
	"github.com/analytics-service/analytics/web"
)

// Single sign-on (docs/teams.md): /login/sso sends the browser to the OpenID provider with a
// new state, nonce and PKCE verifier, which it keeps in a signed cookie (HttpOnly, 10
// minutes, path /login/sso, one use); /login/sso/callback checks the state, trades the code
// for the ID token (package sso checks it) and signs in the account of its verified e-mail
// address, made when OIDC_AUTO_CREATE is on and the domain allowed. An account with
// two-factor sign-in on is then asked for its code, as after a password. Every refusal is a
// readable page that says what went wrong, never what the provider's answer held.

const (
	ssoCookie = "sso"
	ssoTTL    = 10 * time.Minute
)

// ssoRequest is what the cookie holds.
type ssoRequest struct {
	sso.Request
	Next    string
	Expires int64
}

func (p *Handlers) ssoCallbackURL(r *http.Request) string {
	return p.Links.Base(r, web.Absolute) + "/login/sso/callback"
}

// startSSO sends the browser to the provider.
func (p *Handlers) startSSO(w http.ResponseWriter, r *http.Request) {
	if p.sso == nil {
		p.NotFound(w, r)
		return
	}
	req := ssoRequest{Request: sso.NewRequest(), Next: localPath(r.URL.Query().Get("next")), Expires: p.Now().Add(ssoTTL).Unix()}
	to, err := p.sso.AuthURL(r.Context(), p.ssoCallbackURL(r), req.Request)
	if err != nil {
		p.ssoFailed(w, r, err)
		return
	}
	payload, err := json.Marshal(req)
	if err != nil {
		p.ServerError(w, r, err)
		return
	}
	value := base64.RawURLEncoding.EncodeToString(payload)
	p.SetCookie(w, ssoCookie, value+"."+p.Sign(p.mfaKey, "sso|"+value), "/login/sso", ssoTTL)
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// ssoRequestOf reads the cookie of the sign-in under way; ok false when there is none, or it
// is forged or expired.
func (p *Handlers) ssoRequestOf(r *http.Request) (ssoRequest, bool) {
	c, err := r.Cookie(ssoCookie)
	if err != nil {
		return ssoRequest{}, false
	}
	value, mac, ok := strings.Cut(c.Value, ".")
	if !ok || !hmac.Equal([]byte(mac), []byte(p.Sign(p.mfaKey, "sso|"+value))) {
		return ssoRequest{}, false
	}
	payload, err := base64.RawURLEncoding.DecodeString(value)
	var req ssoRequest
	if err != nil || json.Unmarshal(payload, &req) != nil || p.Now().Unix() >= req.Expires {
		return ssoRequest{}, false
	}
	return req, true
}

// ssoCallback is where the provider sends the browser back.
func (p *Handlers) ssoCallback(w http.ResponseWriter, r *http.Request) {
	if p.sso == nil {
		p.NotFound(w, r)
		return
	}
	req, ok := p.ssoRequestOf(r)
	p.ClearCookie(w, ssoCookie, "/login/sso") // one use, whatever comes of it
	q := r.URL.Query()
	if !ok || q.Get("state") == "" || subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(req.State)) != 1 {
		p.ssoRefused(w, r, http.StatusBadRequest, "This answer of the sign-in provider is not for a sign-in started in this browser in the last 10 minutes (its state does not match). Start again.")
		return
	}
	if q.Get("error") != "" {
		p.ssoRefused(w, r, http.StatusForbidden, "The sign-in provider did not sign you in ("+q.Get("error")+"). Start again, or sign in with your password.")
		return
	}
	id, err := p.sso.Exchange(r.Context(), p.ssoCallbackURL(r), q.Get("code"), req.Request)
	if err != nil {
		p.ssoFailed(w, r, err)
		return
	}
	user, ok := p.ssoAccount(w, r, id)
	if !ok {
		return
	}
	p.passwordRight(w, r, user.ID, req.Next)
}

// ssoAccount is the account of a verified e-mail address, made when that is allowed.
func (p *Handlers) ssoAccount(w http.ResponseWriter, r *http.Request, id sso.Identity) (repository.User, bool) {
	email, err := account.NormaliseEmail(id.Email)
	if err != nil || !p.sso.DomainAllowed(email) {
		p.ssoRefused(w, r, http.StatusForbidden, "Addresses of this domain may not sign in here with single sign-on. Sign in with your password, or ask an admin.")
		return repository.User{}, false
	}
	user, err := p.Repo.UserByEmail(r.Context(), email)
	if errors.Is(err, repository.ErrNotFound) && p.sso.AutoCreate() {
		user, err = p.Repo.CreateUser(r.Context(), email)
		if errors.Is(err, repository.ErrConflict) { // made at the same moment
			user, err = p.Repo.UserByEmail(r.Context(), email)
		}
	}
	switch {
	case errors.Is(err, repository.ErrNotFound):
		p.ssoRefused(w, r, http.StatusForbidden, "There is no account for "+email+" here. Ask an admin to invite you.")
		return repository.User{}, false
	case err != nil:
		p.ServerError(w, r, err)
		return repository.User{}, false
	}
	return user, true
}

// ssoFailed answers a refusal of the provider's answer, by its reason; the details go to the
// log, never a token.
func (p *Handlers) ssoFailed(w http.ResponseWriter, r *http.Request, err error) {
	p.Log.Warn("single sign-on refused", "error", err)
	switch {
	case errors.Is(err, sso.ErrCode):
		p.ssoRefused(w, r, http.StatusBadRequest, "The sign-in provider refused this answer's code: it was used already, or has expired. Start again.")
	case errors.Is(err, sso.ErrExpired):
		p.ssoRefused(w, r, http.StatusBadRequest, "The sign-in provider's token has expired. Start again (if it keeps happening, the clocks of this server and of the provider differ).")
	case errors.Is(err, sso.ErrToken), errors.Is(err, sso.ErrNonce):
		p.ssoRefused(w, r, http.StatusBadRequest, "The sign-in provider's token is not valid for this service: its signature, issuer, audience or nonce is wrong. Start again, or ask an admin.")
	case errors.Is(err, sso.ErrUnverified):
		p.ssoRefused(w, r, http.StatusForbidden, "The sign-in provider has not verified your e-mail address. Verify it there, then start again.")
	case errors.Is(err, sso.ErrProvider):
		p.ssoRefused(w, r, http.StatusBadGateway, "The sign-in provider cannot be reached just now. Try again in a while, or sign in with your password.")
	default:
		p.ServerError(w, r, err)
	}
}

func (p *Handlers) ssoRefused(w http.ResponseWriter, r *http.Request, status int, message string) {
	p.Render(w, r, status, "error.html", "Single sign-on failed", htmlpage.ErrorPage{Status: status, Heading: "Single sign-on failed",
		Message: message, Back: "/login", BackLabel: "Back to the sign-in page"})
}
