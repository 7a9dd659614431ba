// Package signin serves the pages of signing in and of one's own account: the sign-in page and
// its second step (a TOTP or recovery code), single sign-on, signing out, password resets and
// set-password links, the account page (e-mail, password, API keys, two-factor sign-in,
// sessions). It stands on htmlpage.Base, as package pages does, and never imports pages.
package signin

import (
	"net/http"

	"github.com/analytics-service/analytics/pages/htmlpage"
	"github.com/analytics-service/analytics/sso"
)

// Handlers serve the sign-in and account pages.
type Handlers struct {
	*htmlpage.Base
	sso       *sso.Provider
	deviceKey []byte // signs device cookies
	mfaKey    []byte // signs the cookie between a sign-in's password and its code
}

// New builds the handlers on base. provider is single sign-on's (nil: off); deviceKey and mfaKey are the service's signing keys
// of device cookies and of a sign-in's second step.
func New(base *htmlpage.Base, provider *sso.Provider, deviceKey, mfaKey []byte) *Handlers {
	return &Handlers{Base: base, sso: provider, deviceKey: deviceKey, mfaKey: mfaKey}
}

// Routes registers the pages with page (a pattern, its GET handler and its POST handler; nil:
// that method is refused).
func (p *Handlers) Routes(page func(pattern string, get, post http.HandlerFunc)) {
	page("/login", p.loginPage, p.login)
	page("/login/code", p.codeForm, p.signInCode)
	page("/login/sso", p.startSSO, nil)
	page("/login/sso/callback", p.ssoCallback, nil)
	page("/logout", nil, p.logout)
	page("/account", p.accountPage, nil)
	page("/account/email", nil, p.changeEmail)
	page("/account/email/confirm", p.confirmEmailForm, p.confirmEmail)
	page("/account/password", nil, p.changePassword)
	page("/account/keys", nil, p.createKey)
	page("/account/keys/{id}/revoke", nil, p.revokeKey)
	page("/account/totp", p.totpSetup, p.confirmTOTP)
	page("/account/totp/disable", nil, p.disableTOTP)
	page("/account/totp/codes", nil, p.newRecoveryCodes)
	page("/admin/settings/totp", nil, p.setTOTPRequired)
	page("/account/sessions/{id}/end", nil, p.endSession)
	page("/account/sessions/others/end", nil, p.endOtherSessions)
	page("/password-reset", p.resetPage, p.requestReset)
	page("/set-password", p.setPasswordForm, p.setPassword)
}
