package htmlpage

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/analytics-service/analytics/ingest"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// Cookie names. A cookie identifies a signed-in owner, a browser an owner signed in with, a
// password grant or a form's CSRF secret: never a visitor of a tracked website.
const (
	SessionCookie = "session"
	csrfCookie    = "csrf"
	DeviceCookie  = "device" // a browser that signed in to an account before (package signin)
)

// SessionTTL is how long a sign-in lasts.
const SessionTTL = 30 * 24 * time.Hour

type viewerKey struct{}

// WithViewer looks up the signed-in user, if any, for the handlers and the layout. held answers
// instead of next for a signed-in user who must do something first (set up two-factor
// sign-in), and says so.
func (p *Base) WithViewer(next http.Handler, held func(http.ResponseWriter, *http.Request, *repository.User) bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token := SessionToken(r)
		if token == "" {
			next.ServeHTTP(w, r)
			return
		}
		user, err := p.Repo.SessionUser(r.Context(), token)
		switch {
		case errors.Is(err, repository.ErrNotFound):
			p.ClearCookie(w, SessionCookie, "/") // ended or expired: forget it
		case err != nil:
			p.ServerError(w, r, err)
			return
		default:
			r = r.WithContext(context.WithValue(r.Context(), viewerKey{}, &user))
			if held(w, r, &user) {
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// SessionToken is the browser's session token, "" without one.
func SessionToken(r *http.Request) string {
	if c, err := r.Cookie(SessionCookie); err == nil {
		return c.Value
	}
	return ""
}

// Viewer is the signed-in user, or nil.
func Viewer(r *http.Request) *repository.User {
	u, _ := r.Context().Value(viewerKey{}).(*repository.User)
	return u
}

// SetCookie sets an HttpOnly, SameSite=Lax cookie, Secure when the service is served over
// https, for a path of the service (under PUBLIC_URL's prefix); maxAge 0 makes it last as long
// as the browser session.
func (p *Base) SetCookie(w http.ResponseWriter, name, value, path string, maxAge time.Duration) {
	http.SetCookie(w, &http.Cookie{
		Name: name, Value: value, Path: p.Links.Path(path), MaxAge: int(maxAge.Seconds()),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: p.Secure,
	})
}

func (p *Base) ClearCookie(w http.ResponseWriter, name, path string) {
	http.SetCookie(w, &http.Cookie{
		Name: name, Value: "", Path: p.Links.Path(path), MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: p.Secure,
	})
}

// CSRFToken returns the token the page's forms carry: an HMAC of the browser's random csrf
// cookie (set here when it has none). A site that cannot read the cookie cannot make the
// token, and one that manages to plant a cookie still cannot sign it.
func (p *Base) CSRFToken(w http.ResponseWriter, r *http.Request) string {
	secret := ""
	if c, err := r.Cookie(csrfCookie); err == nil && validSecret(c.Value) {
		secret = c.Value
	} else {
		secret = base64.RawURLEncoding.EncodeToString(RandomKey())
		p.SetCookie(w, csrfCookie, secret, "/", 0)
		// Later calls in this request must see the same secret.
		r.AddCookie(&http.Cookie{Name: csrfCookie, Value: secret})
	}
	return p.Sign(p.csrfKey, secret)
}

// ValidCSRF tells whether a posted form carries the token of this browser's csrf cookie.
func (p *Base) ValidCSRF(r *http.Request) bool {
	c, err := r.Cookie(csrfCookie)
	if err != nil || !validSecret(c.Value) {
		return false
	}
	want := p.Sign(p.csrfKey, c.Value)
	return hmac.Equal([]byte(r.PostForm.Get("csrf")), []byte(want))
}

func validSecret(s string) bool {
	b, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil && len(b) == 32
}

// Sign is base64url(HMAC-SHA256(key, message)).
func (p *Base) Sign(key []byte, message string) string {
	return base64.RawURLEncoding.EncodeToString(p.MAC(key, message))
}

// MAC is HMAC-SHA256(key, message).
func (p *Base) MAC(key []byte, message string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(message))
	return m.Sum(nil)
}

// maxFormSize bounds a page's form body; the largest is a website's two exclusion lists.
const maxFormSize = 64 << 10

// ParseForm reads a form body (never the query: r.PostForm only) and checks its CSRF token. It
// answers the request itself and returns false when the form cannot be used.
func (p *Base) ParseForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormSize)
	if err := r.ParseForm(); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			p.Fail(w, r, http.StatusRequestEntityTooLarge, "Form too large", "The form sent is larger than this page accepts.")
			return false
		}
		p.Fail(w, r, http.StatusBadRequest, "Form unreadable", "The form sent could not be read. Go back and try again.")
		return false
	}
	if !p.ValidCSRF(r) {
		p.Fail(w, r, http.StatusForbidden, "Form expired",
			"This form has expired or was not sent from this site. Go back, reload the page and try again.")
		return false
	}
	// Text PostgreSQL can neither store nor compare, refused here for every form rather than
	// by each form that would reach the database with it.
	for name, values := range r.PostForm {
		for _, v := range values {
			if !stats.ValidText(v) {
				p.Fail(w, r, http.StatusUnprocessableEntity, "Form unreadable",
					"The field “"+name+"” "+stats.TextRule+". Go back and correct it.")
				return false
			}
		}
	}
	return true
}

// RequireUser sends a visitor who is not signed in to the sign-in page and returns nil.
func (p *Base) RequireUser(w http.ResponseWriter, r *http.Request) *repository.User {
	if u := Viewer(r); u != nil {
		return u
	}
	next := "/"
	if r.Method == http.MethodGet {
		next = r.URL.RequestURI()
	}
	p.Redirect(w, r, "/login?next="+url.QueryEscape(next), http.StatusSeeOther)
	return nil
}

// RequireAdmin answers for a visitor who is not a signed-in admin and returns nil.
func (p *Base) RequireAdmin(w http.ResponseWriter, r *http.Request) *repository.User {
	user := p.RequireUser(w, r)
	if user == nil {
		return nil
	}
	if !user.IsAdmin {
		p.Fail(w, r, http.StatusForbidden, "Admins only", "Only an admin of this service may manage its users.")
		return nil
	}
	return user
}

// DeviceName is what a session keeps of a user agent: "Firefox on Linux (desktop)".
func DeviceName(userAgent string) string {
	c := ingest.ParseUserAgent(userAgent)
	browser, system := c.Browser, c.OS
	if browser == "" {
		browser = "Unknown browser"
	}
	name := browser
	if system != "" {
		name += " on " + system
	}
	if c.Device != "" {
		name += " (" + c.Device + ")"
	}
	return name
}

// StartSession signs the browser in to the user's account: a new session, its cookie.
func (p *Base) StartSession(w http.ResponseWriter, r *http.Request, userID int64) bool {
	token, err := p.Repo.CreateSession(r.Context(), userID, SessionTTL, DeviceName(r.UserAgent()))
	if err != nil {
		p.ServerError(w, r, err)
		return false
	}
	p.SetCookie(w, SessionCookie, token, "/", SessionTTL)
	return true
}

// MailOn says whether the accounts' mail is sent: a mail server, and PUBLIC_URL for the links
// it carries.
func (p *Base) MailOn() bool { return p.Outbox.Enabled() && p.Links.Public != nil }
