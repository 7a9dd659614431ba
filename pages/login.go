package pages

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/analytics-service/analytics/repository"
)

// loginPage is the data of login.html.
type loginPage struct {
	Email string
	Next  string
	Error string
}

func (p *Pages) loginPage(w http.ResponseWriter, r *http.Request) {
	next := localPath(r.URL.Query().Get("next"))
	if viewerOf(r) != nil {
		p.redirect(w, r, next, http.StatusSeeOther)
		return
	}
	p.render(w, r, http.StatusOK, "login.html", "Sign in", loginPage{Next: next})
}

// login signs an owner in. Wrong e-mail and wrong password get the same answer, at the same
// speed; failures are limited per account and per client.
func (p *Pages) login(w http.ResponseWriter, r *http.Request) {
	began := time.Now()
	if !p.parseForm(w, r) {
		return
	}
	email := strings.TrimSpace(r.PostForm.Get("email"))
	password := r.PostForm.Get("password")
	next := localPath(r.PostForm.Get("next"))
	again := loginPage{Email: email, Next: next}
	if email == "" || password == "" {
		again.Error = "Enter your e-mail address and your password."
		p.render(w, r, http.StatusUnprocessableEntity, "login.html", "Sign in", again)
		return
	}
	var user repository.User
	right, answered := p.attemptPassword(w, r, began, p.signInAttempts(r, email), func() (string, error) {
		u, hash, err := p.repo.UserPasswordHash(r.Context(), email)
		if errors.Is(err, repository.ErrNotFound) {
			return "", nil // checked against the dummy hash: as slow as a known account
		}
		user = u
		return hash, err
	}, password)
	if answered {
		return
	}
	if !right {
		again.Error = "That e-mail address and password do not match an account."
		p.render(w, r, http.StatusUnauthorized, "login.html", "Sign in", again)
		return
	}
	token, err := p.repo.CreateSession(r.Context(), user.ID, SessionTTL)
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	p.setCookie(w, sessionCookie, token, "/", SessionTTL)
	p.redirect(w, r, next, http.StatusSeeOther)
}

func (p *Pages) logout(w http.ResponseWriter, r *http.Request) {
	if !p.parseForm(w, r) {
		return
	}
	if c, err := r.Cookie(sessionCookie); err == nil && c.Value != "" {
		if err := p.repo.DeleteSession(r.Context(), c.Value); err != nil {
			p.serverError(w, r, err)
			return
		}
	}
	p.clearCookie(w, sessionCookie, "/")
	p.redirect(w, r, "/login", http.StatusSeeOther)
}

// requireUser sends a visitor who is not signed in to the sign-in page and returns nil.
func (p *Pages) requireUser(w http.ResponseWriter, r *http.Request) *repository.User {
	if u := viewerOf(r); u != nil {
		return u
	}
	next := "/"
	if r.Method == http.MethodGet {
		next = r.URL.RequestURI()
	}
	p.redirect(w, r, "/login?next="+url.QueryEscape(next), http.StatusSeeOther)
	return nil
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
