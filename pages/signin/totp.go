package signin

import (
	"context"
	"crypto/hmac"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	qrcode "github.com/skip2/go-qrcode"

	"github.com/analytics-service/analytics/account"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// Two-factor sign-in (docs/teams.md): TOTP (account.MatchTOTP) set up on /account/totp with a
// QR code drawn here and the secret as text, confirmed by a first code, with 10 one-use
// recovery codes; turned off with the password and a code. With it on, a right password leads
// to /login/code, whose code is a guess under the sign-in's limits: per address, and per
// account in PostgreSQL, counted before it is checked. A code is good once. The secret is
// shown only on the setup page before it is confirmed, and never logged.

// mfaCookie carries, between the password and the code, the account whose password was right
// (signed, 5 minutes, HttpOnly, path /login).
const (
	mfaCookie = "mfa"
	mfaTTL    = 5 * time.Minute
)

// totpStatus is the account page's part on two-factor sign-in.
type totpStatus struct {
	On        bool
	CodesLeft int
	Required  bool
}

func (p *Handlers) totpStatus(r *http.Request, user *repository.User) (totpStatus, error) {
	s := totpStatus{On: user.TOTP, Required: user.TOTPRequired}
	if s.On {
		n, err := p.Repo.RecoveryCodesLeft(r.Context(), user.ID)
		if err != nil {
			return s, err
		}
		s.CodesLeft = n
	}
	return s, nil
}

// passwordRight goes on from a right sign-in password: with two-factor sign-in on, to the code
// page; else the browser is signed in.
func (p *Handlers) passwordRight(w http.ResponseWriter, r *http.Request, userID int64, next string) {
	_, err := p.Repo.TOTPSecret(r.Context(), userID)
	switch {
	case errors.Is(err, repository.ErrNotFound):
		if p.StartSession(w, r, userID) {
			p.Redirect(w, r, next, http.StatusSeeOther)
		}
	case err != nil:
		p.ServerError(w, r, err)
	default:
		p.SetCookie(w, mfaCookie, p.mfaValue(userID), "/login", mfaTTL)
		p.Redirect(w, r, "/login/code?"+url.Values{"next": {next}}.Encode(), http.StatusSeeOther)
	}
}

// mfaValue is "USER.EXPIRY.MAC".
func (p *Handlers) mfaValue(userID int64) string {
	v := strconv.FormatInt(userID, 10) + "." + strconv.FormatInt(p.Now().Add(mfaTTL).Unix(), 10)
	return v + "." + p.Sign(p.mfaKey, "mfa|"+v)
}

// mfaUser is the account of this browser's mfa cookie; ok false when it has none, or a forged
// or expired one.
func (p *Handlers) mfaUser(r *http.Request) (int64, bool) {
	c, err := r.Cookie(mfaCookie)
	if err != nil {
		return 0, false
	}
	parts := strings.Split(c.Value, ".")
	if len(parts) != 3 || !hmac.Equal([]byte(parts[2]), []byte(p.Sign(p.mfaKey, "mfa|"+parts[0]+"."+parts[1]))) {
		return 0, false
	}
	id, err := strconv.ParseInt(parts[0], 10, 64)
	expiry, err2 := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || err2 != nil || p.Now().Unix() >= expiry {
		return 0, false
	}
	return id, true
}

// codePage is the data of login_code.html.
type codePage struct {
	Next  string
	Error string
}

func (p *Handlers) codeForm(w http.ResponseWriter, r *http.Request) {
	next := localPath(r.URL.Query().Get("next"))
	if _, ok := p.mfaUser(r); !ok {
		p.Redirect(w, r, "/login?"+url.Values{"next": {next}}.Encode(), http.StatusSeeOther)
		return
	}
	p.Render(w, r, http.StatusOK, "login_code.html", "Sign-in code", codePage{Next: next})
}

// signInCode takes the code of the second step of a sign-in: a TOTP code or a recovery code,
// counted under the sign-in's limits before it is checked.
func (p *Handlers) signInCode(w http.ResponseWriter, r *http.Request) {
	began := time.Now()
	if !p.ParseForm(w, r) {
		return
	}
	next := localPath(r.PostForm.Get("next"))
	userID, ok := p.mfaUser(r)
	if !ok {
		p.Fail(w, r, http.StatusUnauthorized, "Sign in again",
			"The time to enter your code has run out (5 minutes). Sign in again with your password.")
		return
	}
	code := r.PostForm.Get("code")
	right, answered := p.Attempt(w, r, began, p.CodeGuess(r, userID), func(ctx context.Context) (bool, error) {
		return p.checkCode(ctx, userID, code)
	})
	if answered {
		return
	}
	if !right {
		p.Render(w, r, http.StatusUnauthorized, "login_code.html", "Sign-in code",
			codePage{Next: next, Error: "That code is not right, or was used already. Enter the code your app shows now, or one of your recovery codes."})
		return
	}
	p.ClearCookie(w, mfaCookie, "/login")
	if p.StartSession(w, r, userID) {
		p.Redirect(w, r, next, http.StatusSeeOther)
	}
}

// checkCode tells whether code is the user's TOTP code of now (not used before) or one of
// their unused recovery codes, and uses it up.
func (p *Handlers) checkCode(ctx context.Context, userID int64, code string) (bool, error) {
	secret, err := p.Repo.TOTPSecret(ctx, userID)
	if errors.Is(err, repository.ErrNotFound) {
		return false, nil // turned off meanwhile: sign in again
	}
	if err != nil {
		return false, err
	}
	if step, ok := account.MatchTOTP(secret, code, p.Now()); ok {
		return p.Repo.UseTOTPStep(ctx, userID, step)
	}
	if len(account.NormaliseCode(code)) != 16 {
		return false, nil
	}
	return p.Repo.UseRecoveryCode(ctx, userID, account.HashRecoveryCode(code))
}

// totpSetupPage is the data of totp.html.
type totpSetupPage struct {
	Secret string // as text, in groups
	QR     qrPicture
	Error  string
	// Codes are the recovery codes just made, shown this once (after the confirmation, or
	// when new ones replace the old).
	Codes []string
}

// qrPicture is a QR code as an SVG path of its dark modules, drawn on the server.
type qrPicture struct {
	Size int
	Path string
}

func qrOf(content string) (qrPicture, error) {
	q, err := qrcode.New(content, qrcode.Medium)
	if err != nil {
		return qrPicture{}, err
	}
	bits := q.Bitmap() // with the quiet zone around it
	var b strings.Builder
	for y, row := range bits {
		for x, dark := range row {
			if dark {
				b.WriteString("M" + strconv.Itoa(x) + " " + strconv.Itoa(y) + "h1v1h-1z")
			}
		}
	}
	return qrPicture{Size: len(bits), Path: b.String()}, nil
}

// totpSetup shows a new secret (as a QR code and as text) with the form of its first code.
// Each visit makes a new one, which replaces the last one shown; with two-factor sign-in on,
// the secret is never shown again.
func (p *Handlers) totpSetup(w http.ResponseWriter, r *http.Request) {
	user := p.RequireUser(w, r)
	if user == nil {
		return
	}
	if user.TOTP {
		p.Redirect(w, r, "/account#two-factor", http.StatusSeeOther)
		return
	}
	secret := account.NewTOTPSecret()
	if err := p.Repo.SetPendingTOTP(r.Context(), user.ID, secret); err != nil {
		p.ServerError(w, r, err)
		return
	}
	p.renderTOTPSetup(w, r, user, http.StatusOK, secret, "")
}

func (p *Handlers) renderTOTPSetup(w http.ResponseWriter, r *http.Request, user *repository.User, status int, secret []byte, problem string) {
	issuer := "Analytics"
	if p.Links.Public != nil {
		issuer += " " + p.Links.Public.Host
	}
	qr, err := qrOf(account.TOTPURI(secret, issuer, user.Email))
	if err != nil {
		p.ServerError(w, r, err)
		return
	}
	p.Render(w, r, status, "totp.html", "Two-factor sign-in", totpSetupPage{Secret: account.TOTPText(secret), QR: qr, Error: problem})
}

// confirmTOTP takes the first code of the secret shown: right, two-factor sign-in is on and
// the recovery codes are shown, this once.
func (p *Handlers) confirmTOTP(w http.ResponseWriter, r *http.Request) {
	user := p.RequireUser(w, r)
	if user == nil || !p.ParseForm(w, r) {
		return
	}
	secret, err := p.Repo.PendingTOTP(r.Context(), user.ID)
	if errors.Is(err, repository.ErrNotFound) {
		p.Redirect(w, r, "/account/totp", http.StatusSeeOther) // on already, or no secret shown
		return
	}
	if err != nil {
		p.ServerError(w, r, err)
		return
	}
	step, ok := account.MatchTOTP(secret, r.PostForm.Get("code"), p.Now())
	if !ok {
		p.renderTOTPSetup(w, r, user, http.StatusUnprocessableEntity, secret,
			"That code is not right: enter the 6 digits your app shows for this account now.")
		return
	}
	codes, hashes := account.NewRecoveryCodes()
	err = p.Repo.EnableTOTP(r.Context(), user.ID, secret, step, hashes)
	if errors.Is(err, repository.ErrTOTPState) {
		p.Redirect(w, r, "/account/totp", http.StatusSeeOther) // replaced by another tab's
		return
	}
	if err != nil {
		p.ServerError(w, r, err)
		return
	}
	p.Render(w, r, http.StatusOK, "totp.html", "Two-factor sign-in", totpSetupPage{Codes: codes})
}

// checkCurrentCode checks a code of the signed-in user (form field code) under the limits of
// the sign-in's codes.
func (p *Handlers) checkCurrentCode(w http.ResponseWriter, r *http.Request, user *repository.User) (right, answered bool) {
	code := r.PostForm.Get("code")
	return p.Attempt(w, r, time.Now(), p.CodeGuess(r, user.ID), func(ctx context.Context) (bool, error) {
		return p.checkCode(ctx, user.ID, code)
	})
}

// disableTOTP turns two-factor sign-in off, with the password and a code.
func (p *Handlers) disableTOTP(w http.ResponseWriter, r *http.Request) {
	user := p.RequireUser(w, r)
	if user == nil || !p.ParseForm(w, r) {
		return
	}
	data := accountPage{Email: user.Email, TOTPErrors: stats.FieldErrors{}}
	right, answered := p.checkCurrentPassword(w, r, user)
	if !p.passed(w, r, user, data, data.TOTPErrors, "totp_current_password", wrongPassword, right, answered) {
		return
	}
	right, answered = p.checkCurrentCode(w, r, user)
	if !p.passed(w, r, user, data, data.TOTPErrors, "totp_code", wrongCode, right, answered) {
		return
	}
	if err := p.Repo.DisableTOTP(r.Context(), user.ID); err != nil {
		p.ServerError(w, r, err)
		return
	}
	p.Redirect(w, r, "/account?notice=totp-off#two-factor", http.StatusSeeOther)
}

// newRecoveryCodes replaces the recovery codes, with a code, and shows the new ones once.
func (p *Handlers) newRecoveryCodes(w http.ResponseWriter, r *http.Request) {
	user := p.RequireUser(w, r)
	if user == nil || !p.ParseForm(w, r) {
		return
	}
	data := accountPage{Email: user.Email, TOTPErrors: stats.FieldErrors{}}
	right, answered := p.checkCurrentCode(w, r, user)
	if !p.passed(w, r, user, data, data.TOTPErrors, "codes_code", wrongCode, right, answered) {
		return
	}
	codes, hashes := account.NewRecoveryCodes()
	if err := p.Repo.ReplaceRecoveryCodes(r.Context(), user.ID, hashes); err != nil {
		p.ServerError(w, r, err)
		return
	}
	p.Render(w, r, http.StatusOK, "totp.html", "Two-factor sign-in", totpSetupPage{Codes: codes})
}

// setTOTPRequired is an admin's switch: every user must have two-factor sign-in on.
func (p *Handlers) setTOTPRequired(w http.ResponseWriter, r *http.Request) {
	if p.RequireAdmin(w, r) == nil || !p.ParseForm(w, r) {
		return
	}
	var on bool
	switch r.PostForm.Get("required") {
	case "1":
		on = true
	case "0":
	default:
		p.Fail(w, r, http.StatusUnprocessableEntity, "Invalid form", "required must be 1 or 0.")
		return
	}
	if err := p.Repo.SetTOTPRequired(r.Context(), on); err != nil {
		p.ServerError(w, r, err)
		return
	}
	p.Redirect(w, r, "/admin/users?notice=totp", http.StatusSeeOther)
}

// totpSetupPaths are what a user without two-factor sign-in may open while the service
// requires it: its setup, and signing out.
var totpSetupPaths = map[string]bool{"/account/totp": true, "/logout": true}

// MustSetUpTOTP sends a signed-in user without two-factor sign-in to its setup while the
// service requires it, before anything else; true when it answered.
func (p *Handlers) MustSetUpTOTP(w http.ResponseWriter, r *http.Request, user *repository.User) bool {
	if !user.TOTPRequired || user.TOTP || totpSetupPaths[r.URL.Path] {
		return false
	}
	p.Redirect(w, r, "/account/totp", http.StatusSeeOther)
	return true
}
