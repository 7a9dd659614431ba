package signin

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/analytics-service/analytics/pages/htmlpage"
	"github.com/analytics-service/analytics/repository"
)

// The account page lists the user's sessions (docs/teams.md): the device each browser named
// at sign-in, when it signed in and was last seen (to the minute); each can be signed out, and
// all but this browser at once. The user agent itself is never stored, only the device it
// names, read by the collector's parser.

// sessionRow is one session as the account page lists it.
type sessionRow struct {
	ID                 int64
	Device             string
	SignedIn, LastSeen string
	Current            bool
}

func (p *Handlers) sessionRows(r *http.Request, user *repository.User) ([]sessionRow, error) {
	sessions, err := p.Repo.Sessions(r.Context(), user.ID, htmlpage.SessionToken(r))
	if err != nil {
		return nil, err
	}
	rows := make([]sessionRow, len(sessions))
	for i, s := range sessions {
		rows[i] = sessionRow{ID: s.ID, Device: s.Device, SignedIn: p.Minute(s.CreatedAt), LastSeen: p.Minute(s.LastSeenAt), Current: s.Current}
	}
	return rows, nil
}

// endSession signs one of the user's sessions out (this browser's too, which then signs in
// again).
func (p *Handlers) endSession(w http.ResponseWriter, r *http.Request) {
	user := p.RequireUser(w, r)
	if user == nil || !p.ParseForm(w, r) {
		return
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err == nil && id > 0 {
		err = p.Repo.EndSession(r.Context(), user.ID, id)
	} else {
		err = repository.ErrNotFound
	}
	switch {
	case errors.Is(err, repository.ErrNotFound):
		p.Fail(w, r, http.StatusNotFound, "No such session", "You have no session with this number: it was signed out already, or never was yours.")
	case err != nil:
		p.ServerError(w, r, err)
	default:
		p.Redirect(w, r, "/account?notice=signed-out#sessions", http.StatusSeeOther)
	}
}

// endOtherSessions signs every other browser of the user out.
func (p *Handlers) endOtherSessions(w http.ResponseWriter, r *http.Request) {
	user := p.RequireUser(w, r)
	if user == nil || !p.ParseForm(w, r) {
		return
	}
	if err := p.Repo.EndOtherSessions(r.Context(), user.ID, htmlpage.SessionToken(r)); err != nil {
		p.ServerError(w, r, err)
		return
	}
	p.Redirect(w, r, "/account?notice=others-signed-out#sessions", http.StatusSeeOther)
}
