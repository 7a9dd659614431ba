package signin

import (
	"crypto/hmac"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/analytics-service/analytics/pages/htmlpage"
	"github.com/analytics-service/analytics/repository"
)

// loginPage is the data of login.html.
type loginPage struct {
	Email string
	Next  string
	Error string
	SSO   bool // single sign-on is on
}

func (p *Handlers) loginPage(w http.ResponseWriter, r *http.Request) {
	next := localPath(r.URL.Query().Get("next"))
	if htmlpage.Viewer(r) != nil {
		p.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	p.Render(w, r, http.StatusOK, "login.html", "Sign in", loginPage{Next: next, SSO: p.sso != nil})
}

// login signs an owner in. Wrong e-mail and wrong password get the same answer, at the same
// speed; attempts are limited per account and per client (htmlpage/limit.go), and a browser that signed
// in to the account before is limited per device instead.
func (p *Handlers) login(w http.ResponseWriter, r *http.Request) {
	began := time.Now()
	if !p.ParseForm(w, r) {
		return
	}
	email := strings.TrimSpace(r.PostForm.Get("email"))
	password := r.PostForm.Get("password")
	next := localPath(r.PostForm.Get("next"))
	again := loginPage{Email: email, Next: next, SSO: p.sso != nil}
	if email == "" || password == "" {
		again.Error = "Enter your e-mail address and your password."
		p.Render(w, r, http.StatusUnprocessableEntity, "login.html", "Sign in", again)
		return
	}
	var user repository.User
	lookup := func() (string, error) {
		u, hash, err := p.Repo.UserPasswordHash(r.Context(), email)
		if errors.Is(err, repository.ErrNotFound) {
			return "", nil // checked against the dummy hash: as slow as a known account
		}
		user = u
		return hash, err
	}
	g := p.SignInGuess(r, email)
	deviceUser, nonce, ok := p.device(r)
	if ok {
		// Looked up first, to tell whether this browser signed in to this account before.
		hash, err := lookup()
		if err != nil {
			p.ServerError(w, r, err)
			return
		}
		if user.ID == deviceUser {
			g = p.DeviceGuess(nonce)
		} else {
			nonce = "" // another account's device: this account gets a new one
		}
		lookup = func() (string, error) { return hash, nil }
	}
	right, answered := p.AttemptPassword(w, r, began, g, lookup, password)
	if answered {
		return
	}
	if !right {
		again.Error = "That e-mail address and password do not match an account."
		p.Render(w, r, http.StatusUnauthorized, "login.html", "Sign in", again)
		return
	}
	p.SetCookie(w, htmlpage.DeviceCookie, p.deviceCookie(user.ID, nonce), "/login", DeviceTTL)
	p.passwordRight(w, r, user.ID, next)
}

// DeviceTTL is how long a browser that signed in is remembered as the account's device.
const DeviceTTL = 365 * 24 * time.Hour

// A device cookie says that this browser signed in to an account before, so that guesses at
// the account from elsewhere do not slow its owner down (OWASP's device cookies). Its value is
// "USER.EXPIRY.NONCE.MAC": MAC signs the user id, the expiry (unix seconds) and a random
// nonce, which names the device for its own limit on attempts. Each sign-in moves the expiry
// on; a device already known for the account keeps its nonce ("" makes a new one).
func (p *Handlers) deviceCookie(userID int64, nonce string) string {
	if nonce == "" {
		nonce = base64.RawURLEncoding.EncodeToString(htmlpage.RandomKey()[:16])
	}
	device := strconv.FormatInt(userID, 10) + "." + strconv.FormatInt(p.Now().Add(DeviceTTL).Unix(), 10) + "." + nonce
	return device + "." + p.Sign(p.deviceKey, "device|"+device)
}

// device reads this browser's device cookie: the account it signed in to and the device's
// nonce; ok is false when there is none, or it is forged or expired.
func (p *Handlers) device(r *http.Request) (userID int64, nonce string, ok bool) {
	c, err := r.Cookie(htmlpage.DeviceCookie)
	if err != nil {
		return 0, "", false
	}
	parts := strings.Split(c.Value, ".")
	if len(parts) != 4 || !hmac.Equal([]byte(parts[3]), []byte(p.Sign(p.deviceKey, "device|"+strings.Join(parts[:3], ".")))) {
		return 0, "", false
	}
	userID, err = strconv.ParseInt(parts[0], 10, 64)
	expiry, err2 := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || err2 != nil || p.Now().Unix() >= expiry {
		return 0, "", false
	}
	return userID, parts[2], true
}

func (p *Handlers) logout(w http.ResponseWriter, r *http.Request) {
	if !p.ParseForm(w, r) {
		return
	}
	if token := htmlpage.SessionToken(r); token != "" {
		if err := p.Repo.DeleteSession(r.Context(), token); err != nil {
			p.ServerError(w, r, err)
			return
		}
	}
	p.ClearCookie(w, htmlpage.SessionCookie, "/")
	p.Redirect(w, r, "/login", http.StatusSeeOther)
}

// localPath keeps a "next" address only when it is a path on this site, so the sign-in page
// cannot be made to send someone elsewhere ("//evil.example", "https://...", "/\evil"). It is
// the service's own path (without PUBLIC_URL's prefix, which the redirect adds).
func localPath(next string) string {
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") ||
		strings.ContainsAny(next, `\`+"\r\n\t") {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" {
		return "/"
	}
	return next
}
