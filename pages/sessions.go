package pages

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/analytics-service/analytics/ingest"
	"github.com/analytics-service/analytics/repository"
)

// The account page lists the user's sessions (docs/teams.md): the device each browser named
// at sign-in, when it signed in and was last seen (to the minute); each can be signed out, and
// all but this browser at once. The user agent itself is never stored, only the device it
// names, read by the collector's parser.

// deviceName is what a session keeps of a user agent: "Firefox on Linux (desktop)".
func deviceName(userAgent string) string {
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

// startSession signs the browser in to the user's account: a new session, its cookie.
func (p *Pages) startSession(w http.ResponseWriter, r *http.Request, userID int64) bool {
	token, err := p.repo.CreateSession(r.Context(), userID, SessionTTL, deviceName(r.UserAgent()))
	if err != nil {
		p.serverError(w, r, err)
		return false
	}
	p.setCookie(w, sessionCookie, token, "/", SessionTTL)
	return true
}

// sessionRow is one session as the account page lists it.
type sessionRow struct {
	ID                 int64
	Device             string
	SignedIn, LastSeen string
	Current            bool
}

func (p *Pages) sessionRows(r *http.Request, user *repository.User) ([]sessionRow, error) {
	sessions, err := p.repo.Sessions(r.Context(), user.ID, sessionToken(r))
	if err != nil {
		return nil, err
	}
	rows := make([]sessionRow, len(sessions))
	for i, s := range sessions {
		rows[i] = sessionRow{ID: s.ID, Device: s.Device, SignedIn: p.minute(s.CreatedAt), LastSeen: p.minute(s.LastSeenAt), Current: s.Current}
	}
	return rows, nil
}

// sessionToken is the browser's session token, "" without one.
func sessionToken(r *http.Request) string {
	if c, err := r.Cookie(sessionCookie); err == nil {
		return c.Value
	}
	return ""
}

// endSession signs one of the user's sessions out (this browser's too, which then signs in
// again).
func (p *Pages) endSession(w http.ResponseWriter, r *http.Request) {
	user := p.requireUser(w, r)
	if user == nil || !p.parseForm(w, r) {
		return
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err == nil && id > 0 {
		err = p.repo.EndSession(r.Context(), user.ID, id)
	} else {
		err = repository.ErrNotFound
	}
	switch {
	case errors.Is(err, repository.ErrNotFound):
		p.fail(w, r, http.StatusNotFound, "No such session", "You have no session with this number: it was signed out already, or never was yours.")
	case err != nil:
		p.serverError(w, r, err)
	default:
		p.redirect(w, r, "/account?notice=signed-out#sessions", http.StatusSeeOther)
	}
}

// endOtherSessions signs every other browser of the user out.
func (p *Pages) endOtherSessions(w http.ResponseWriter, r *http.Request) {
	user := p.requireUser(w, r)
	if user == nil || !p.parseForm(w, r) {
		return
	}
	if err := p.repo.EndOtherSessions(r.Context(), user.ID, sessionToken(r)); err != nil {
		p.serverError(w, r, err)
		return
	}
	p.redirect(w, r, "/account?notice=others-signed-out#sessions", http.StatusSeeOther)
}
