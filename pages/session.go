package pages

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// Cookie names. A cookie identifies a signed-in owner, a browser an owner signed in with, a
// password grant or a form's CSRF secret: never a visitor of a tracked website.
const (
	sessionCookie = "session"
	csrfCookie    = "csrf"
	deviceCookie  = "device" // a browser that signed in to an account before (login.go)
)

// SessionTTL is how long a sign-in lasts.
const SessionTTL = 30 * 24 * time.Hour

type viewerKey struct{}

// withViewer looks up the signed-in user, if any, for the handlers and the layout.
func (p *Pages) withViewer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(sessionCookie)
		if err != nil || c.Value == "" {
			next.ServeHTTP(w, r)
			return
		}
		user, err := p.repo.SessionUser(r.Context(), c.Value)
		switch {
		case errors.Is(err, repository.ErrNotFound):
			p.clearCookie(w, sessionCookie, "/") // ended or expired: forget it
		case err != nil:
			p.serverError(w, r, err)
			return
		default:
			r = r.WithContext(context.WithValue(r.Context(), viewerKey{}, &user))
			if p.mustSetUpTOTP(w, r, &user) {
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// viewerOf is the signed-in user, or nil.
func viewerOf(r *http.Request) *repository.User {
	u, _ := r.Context().Value(viewerKey{}).(*repository.User)
	return u
}

// setCookie sets an HttpOnly, SameSite=Lax cookie, Secure when the service is served over
// https, for a path of the service (under PUBLIC_URL's prefix); maxAge 0 makes it last as long
// as the browser session.
func (p *Pages) setCookie(w http.ResponseWriter, name, value, path string, maxAge time.Duration) {
	http.SetCookie(w, &http.Cookie{
		Name: name, Value: value, Path: p.links.Path(path), MaxAge: int(maxAge.Seconds()),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: p.secure,
	})
}

func (p *Pages) clearCookie(w http.ResponseWriter, name, path string) {
	http.SetCookie(w, &http.Cookie{
		Name: name, Value: "", Path: p.links.Path(path), MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: p.secure,
	})
}

// csrfToken returns the token the page's forms carry: an HMAC of the browser's random csrf
// cookie (set here when it has none). A site that cannot read the cookie cannot make the
// token, and one that manages to plant a cookie still cannot sign it.
func (p *Pages) csrfToken(w http.ResponseWriter, r *http.Request) string {
	secret := ""
	if c, err := r.Cookie(csrfCookie); err == nil && validSecret(c.Value) {
		secret = c.Value
	} else {
		secret = base64.RawURLEncoding.EncodeToString(randomKey())
		p.setCookie(w, csrfCookie, secret, "/", 0)
		// Later calls in this request must see the same secret.
		r.AddCookie(&http.Cookie{Name: csrfCookie, Value: secret})
	}
	return p.sign(p.csrfKey, secret)
}

// validCSRF tells whether a posted form carries the token of this browser's csrf cookie.
func (p *Pages) validCSRF(r *http.Request) bool {
	c, err := r.Cookie(csrfCookie)
	if err != nil || !validSecret(c.Value) {
		return false
	}
	want := p.sign(p.csrfKey, c.Value)
	return hmac.Equal([]byte(r.PostForm.Get("csrf")), []byte(want))
}

func validSecret(s string) bool {
	b, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil && len(b) == 32
}

// sign is base64url(HMAC-SHA256(key, message)).
func (p *Pages) sign(key []byte, message string) string {
	return base64.RawURLEncoding.EncodeToString(p.mac(key, message))
}

// mac is HMAC-SHA256(key, message).
func (p *Pages) mac(key []byte, message string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(message))
	return m.Sum(nil)
}

// maxFormSize bounds a page's form body; the largest is a website's two exclusion lists.
const maxFormSize = 64 << 10

// parseForm reads a form body (never the query: r.PostForm only) and checks its CSRF token. It
// answers the request itself and returns false when the form cannot be used.
func (p *Pages) parseForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormSize)
	if err := r.ParseForm(); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			p.fail(w, r, http.StatusRequestEntityTooLarge, "Form too large", "The form sent is larger than this page accepts.")
			return false
		}
		p.fail(w, r, http.StatusBadRequest, "Form unreadable", "The form sent could not be read. Go back and try again.")
		return false
	}
	if !p.validCSRF(r) {
		p.fail(w, r, http.StatusForbidden, "Form expired",
			"This form has expired or was not sent from this site. Go back, reload the page and try again.")
		return false
	}
	// Text PostgreSQL can neither store nor compare, refused here for every form rather than
	// by each form that would reach the database with it.
	for name, values := range r.PostForm {
		for _, v := range values {
			if !stats.ValidText(v) {
				p.fail(w, r, http.StatusUnprocessableEntity, "Form unreadable",
					"The field “"+name+"” "+stats.TextRule+". Go back and correct it.")
				return false
			}
		}
	}
	return true
}
