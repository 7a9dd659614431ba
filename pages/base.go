package pages

import (
	"net/http"
	"time"

	"github.com/analytics-service/analytics/pages/htmlpage"
	"github.com/analytics-service/analytics/repository"
)

// What the pages of this package call of htmlpage.Base (the frame every page is served in), by
// the names they always had.

// ForgiveEvery is how often one failure of an account or a website is forgiven
// (htmlpage.ForgiveEvery).
const ForgiveEvery = htmlpage.ForgiveEvery

func (p *Pages) render(w http.ResponseWriter, r *http.Request, status int, name, title string, data any) {
	p.base.Render(w, r, status, name, title, data)
}

func (p *Pages) fail(w http.ResponseWriter, r *http.Request, status int, heading, message string, details ...string) {
	p.base.Fail(w, r, status, heading, message, details...)
}

func (p *Pages) notFound(w http.ResponseWriter, r *http.Request) { p.base.NotFound(w, r) }

func (p *Pages) serverError(w http.ResponseWriter, r *http.Request, err error) {
	p.base.ServerError(w, r, err)
}

func (p *Pages) tooSlow(w http.ResponseWriter, r *http.Request, err error) { p.base.TooSlow(w, r, err) }

func (p *Pages) redirect(w http.ResponseWriter, r *http.Request, path string, code int) {
	p.base.Redirect(w, r, path, code)
}

func (p *Pages) timed(h http.HandlerFunc) http.HandlerFunc { return p.base.Timed(h) }

func (p *Pages) parseForm(w http.ResponseWriter, r *http.Request) bool { return p.base.ParseForm(w, r) }

func (p *Pages) requireUser(w http.ResponseWriter, r *http.Request) *repository.User {
	return p.base.RequireUser(w, r)
}

func (p *Pages) requireAdmin(w http.ResponseWriter, r *http.Request) *repository.User {
	return p.base.RequireAdmin(w, r)
}

func (p *Pages) setCookie(w http.ResponseWriter, name, value, path string, maxAge time.Duration) {
	p.base.SetCookie(w, name, value, path, maxAge)
}

func (p *Pages) clearCookie(w http.ResponseWriter, name, path string) {
	p.base.ClearCookie(w, name, path)
}

func (p *Pages) sign(key []byte, message string) string { return p.base.Sign(key, message) }

func (p *Pages) mac(key []byte, message string) []byte { return p.base.MAC(key, message) }

func (p *Pages) minute(t time.Time) string { return p.base.Minute(t) }

func (p *Pages) mailOn() bool { return p.base.MailOn() }

func (p *Pages) mailLink(to, kind, token string) { p.base.MailLink(to, kind, token) }

func (p *Pages) startSession(w http.ResponseWriter, r *http.Request, userID int64) bool {
	return p.base.StartSession(w, r, userID)
}

func (p *Pages) lookUpToken(w http.ResponseWriter, r *http.Request, lookup func() error) bool {
	return p.base.LookUpToken(w, r, lookup)
}

func (p *Pages) lookUpTokenOr(w http.ResponseWriter, r *http.Request, gone http.HandlerFunc, lookup func() error) bool {
	return p.base.LookUpTokenOr(w, r, gone, lookup)
}

func (p *Pages) linkGone(w http.ResponseWriter, r *http.Request) { p.base.LinkGone(w, r) }

// withViewer looks up the signed-in user; one who must set up two-factor sign-in first is sent
// to do so (package signin).
func (p *Pages) withViewer(next http.Handler) http.Handler {
	return p.base.WithViewer(next, p.signin.MustSetUpTOTP)
}

// viewerOf is the signed-in user, or nil.
func viewerOf(r *http.Request) *repository.User { return htmlpage.Viewer(r) }

func randomKey() []byte { return htmlpage.RandomKey() }

// embedOf is, for htmlpage's layout, the embed options of a shared link's embed view; an
// untyped nil otherwise, so that the layout's "if .Embed" is false.
func embedOf(r *http.Request) any {
	if sv, ok := r.Context().Value(viewKey{}).(statsView); ok && sv.embed != nil {
		return sv.embed
	}
	return nil
}

// errorPage is the data of error.html.
type errorPage = htmlpage.ErrorPage

const sessionCookie = htmlpage.SessionCookie
