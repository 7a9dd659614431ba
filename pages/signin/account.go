package signin

import (
	"cmp"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/analytics-service/analytics/account"
	"github.com/analytics-service/analytics/pages/htmlpage"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/website"
)

// accountPage is the data of account.html: the user's e-mail, password and API keys.
type accountPage struct {
	Email string // the e-mail form's value
	// PendingEmail is the address the user asked to move to, waiting for the link mailed to
	// it; "" when none is.
	PendingEmail string
	MailOn       bool // a change waits for the link mailed to the new address
	EmailErrors  stats.FieldErrors
	PassErrors   stats.FieldErrors
	KeyErrors    stats.FieldErrors
	TOTPErrors   stats.FieldErrors
	KeyName      string
	KeyScope     string // the scope chosen in the form (repository.ScopeStatsRead or ScopeSitesProvision)
	Keys         []keyRow
	// NewKey is a key just made, shown this once; NewKeyName its name.
	NewKey, NewKeyName string
	Notice             string
	Sessions           []sessionRow
	TOTP               totpStatus
}

// keyRow is one API key as the account page lists it: never the key.
type keyRow struct {
	ID       int64
	Name     string
	Scope    string
	Created  string
	LastUsed string
}

// accountNotices are the fixed messages a redirect may ask the account page to show.
var accountNotices = map[string]string{
	"email": "Your e-mail address was changed. Every other browser signed in to your account is signed out.",
	"email-sent": "A link to confirm the new address was sent to it (valid 24 hours, one use). Until it is opened, " +
		"your address stays as it is; your current address was told of the request.",
	"password":          "Your password was changed. Every other browser signed in to your account is signed out.",
	"revoked":           "The key was revoked. It no longer works.",
	"signed-out":        "The session was signed out.",
	"others-signed-out": "Every other browser signed in to your account is signed out.",
	"totp-off":          "Two-factor sign-in is off.",
}

// maxKeyName bounds an API key's name (the database checks it too).
const maxKeyName = 100

func (p *Handlers) accountPage(w http.ResponseWriter, r *http.Request) {
	user := p.RequireUser(w, r)
	if user == nil {
		return
	}
	data := accountPage{Email: user.Email, Notice: accountNotices[r.URL.Query().Get("notice")]}
	p.renderAccount(w, r, user, http.StatusOK, data)
}

func (p *Handlers) renderAccount(w http.ResponseWriter, r *http.Request, user *repository.User, status int, data accountPage) {
	keys, err := p.Repo.ListAPIKeys(r.Context(), user.ID)
	if err != nil {
		p.ServerError(w, r, err)
		return
	}
	data.MailOn = p.MailOn()
	if data.PendingEmail, err = p.Repo.PendingEmail(r.Context(), user.ID); err != nil {
		p.ServerError(w, r, err)
		return
	}
	if data.Sessions, err = p.sessionRows(r, user); err != nil {
		p.ServerError(w, r, err)
		return
	}
	if data.TOTP, err = p.totpStatus(r, user); err != nil {
		p.ServerError(w, r, err)
		return
	}
	for _, k := range keys {
		row := keyRow{ID: k.ID, Name: k.Name, Scope: k.Scope, Created: p.Minute(k.CreatedAt), LastUsed: "never"}
		if k.LastUsed != nil {
			row.LastUsed = p.Minute(*k.LastUsed)
		}
		data.Keys = append(data.Keys, row)
	}
	p.Render(w, r, status, "account.html", "Your account", data)
}

// checkCurrentPassword checks the signed-in user's password, under the sign-in limits of the
// account. It answers the request itself when the attempt is refused or fails (answered); a
// wrong password returns right false after the failure delay.
func (p *Handlers) checkCurrentPassword(w http.ResponseWriter, r *http.Request, user *repository.User) (right, answered bool) {
	began := time.Now()
	lookup := func() (string, error) { return p.Repo.PasswordHashByID(r.Context(), user.ID) }
	return p.AttemptPassword(w, r, began, p.SignInGuess(r, user.Email), lookup, r.PostForm.Get("current_password"))
}

// Why a check of the account page failed, as the field's error says it.
const (
	wrongPassword = "is not your current password"
	wrongCode     = "is not right, or was used already"
)

// passed finishes a check of the current password or code (checkCurrentPassword,
// checkCurrentCode, whose results it takes): when it was wrong, the account page again, with
// wrong as field's error in errs (one of data's maps). false: not passed, answered.
func (p *Handlers) passed(w http.ResponseWriter, r *http.Request, user *repository.User, data accountPage,
	errs stats.FieldErrors, field, wrong string, right, answered bool) bool {
	if answered {
		return false
	}
	if !right {
		errs.Add(field, wrong)
		p.renderAccount(w, r, user, http.StatusUnprocessableEntity, data)
		return false
	}
	return true
}

func (p *Handlers) changeEmail(w http.ResponseWriter, r *http.Request) {
	user := p.RequireUser(w, r)
	if user == nil || !p.ParseForm(w, r) {
		return
	}
	data := accountPage{Email: strings.TrimSpace(r.PostForm.Get("email")), EmailErrors: stats.FieldErrors{}}
	email, err := account.NormaliseEmail(data.Email)
	if err != nil {
		data.EmailErrors.Add("email", err.Error())
	} else if email == user.Email {
		data.EmailErrors.Add("email", "is your address already")
	}
	if r.PostForm.Get("current_password") == "" {
		data.EmailErrors.Add("email_current_password", "is required")
	}
	if len(data.EmailErrors) > 0 {
		p.renderAccount(w, r, user, http.StatusUnprocessableEntity, data)
		return
	}
	right, answered := p.checkCurrentPassword(w, r, user)
	if !p.passed(w, r, user, data, data.EmailErrors, "email_current_password", wrongPassword, right, answered) {
		return
	}
	p.moveEmail(w, r, user, data, email)
}

func (p *Handlers) changePassword(w http.ResponseWriter, r *http.Request) {
	user := p.RequireUser(w, r)
	if user == nil || !p.ParseForm(w, r) {
		return
	}
	data := accountPage{Email: user.Email, PassErrors: stats.FieldErrors{}}
	if r.PostForm.Get("current_password") == "" {
		data.PassErrors.Add("current_password", "is required")
	}
	password := htmlpage.PasswordFields(r, data.PassErrors)
	if len(data.PassErrors) > 0 {
		p.renderAccount(w, r, user, http.StatusUnprocessableEntity, data)
		return
	}
	right, answered := p.checkCurrentPassword(w, r, user)
	if !p.passed(w, r, user, data, data.PassErrors, "current_password", wrongPassword, right, answered) {
		return
	}
	hash, err := website.HashPassword(password)
	if err != nil {
		p.ServerError(w, r, err)
		return
	}
	if err := p.Repo.ChangePassword(r.Context(), user.ID, hash, htmlpage.SessionToken(r)); err != nil {
		p.ServerError(w, r, err)
		return
	}
	p.Redirect(w, r, "/account?notice=password", http.StatusSeeOther)
}

// createKey makes an API key and shows it, this once, on the account page (no redirect: the
// key is in no address, history or log).
func (p *Handlers) createKey(w http.ResponseWriter, r *http.Request) {
	user := p.RequireUser(w, r)
	if user == nil || !p.ParseForm(w, r) {
		return
	}
	name := strings.TrimSpace(r.PostForm.Get("name"))
	// No scope sent (a form of before scopes): every right, as keys had.
	scope := cmp.Or(r.PostForm.Get("scope"), repository.ScopeSitesProvision)
	data := accountPage{Email: user.Email, KeyName: name, KeyScope: scope}
	errs := stats.FieldErrors{}
	if utf8.RuneCountInString(name) > maxKeyName {
		errs.Add("name", "must be at most "+strconv.Itoa(maxKeyName)+" characters")
	}
	if scope != repository.ScopeStatsRead && scope != repository.ScopeSitesProvision {
		errs.Add("scope", "must be "+repository.ScopeStatsRead+" or "+repository.ScopeSitesProvision)
	}
	if len(errs) > 0 {
		data.KeyErrors = errs
		p.renderAccount(w, r, user, http.StatusUnprocessableEntity, data)
		return
	}
	key, _, err := p.Repo.CreateScopedAPIKey(r.Context(), user.ID, name, scope)
	if err != nil {
		p.ServerError(w, r, err)
		return
	}
	data.NewKey, data.NewKeyName, data.KeyName, data.KeyScope = key, name, "", ""
	p.renderAccount(w, r, user, http.StatusOK, data)
}

func (p *Handlers) revokeKey(w http.ResponseWriter, r *http.Request) {
	user := p.RequireUser(w, r)
	if user == nil || !p.ParseForm(w, r) {
		return
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err == nil && id > 0 {
		err = p.Repo.RevokeUserAPIKey(r.Context(), user.ID, id)
	} else {
		err = repository.ErrNotFound
	}
	if errors.Is(err, repository.ErrNotFound) {
		p.Fail(w, r, http.StatusNotFound, "No such key",
			"You have no API key with this number: it was revoked already, or never was yours.")
		return
	}
	if err != nil {
		p.ServerError(w, r, err)
		return
	}
	p.Redirect(w, r, "/account?notice=revoked", http.StatusSeeOther)
}
