// Package account holds the rules of accounts that the pages and the CLI share: what a sign-in
// password and an e-mail address must be, how long the one-use links last, and the outbox that
// sends invitation and reset mail in the background.
package account

import (
	"fmt"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"
)

// Sign-in passwords: long enough to resist guessing at the sign-in limit, short enough that
// hashing one is cheap.
const (
	MinPassword = 8
	MaxPassword = 128
)

// How long the one-use links last, and how many reset mails an address gets.
const (
	InviteTTL      = 7 * 24 * time.Hour
	SetPasswordTTL = 7 * 24 * time.Hour
	ResetTTL       = time.Hour
	ResetsPerHour  = 3
)

// CheckPassword says what is wrong with a new sign-in password, "" when nothing is.
func CheckPassword(password string) string {
	if n := utf8.RuneCountInString(password); n < MinPassword || n > MaxPassword {
		return fmt.Sprintf("must be %d to %d characters (this one has %d)", MinPassword, MaxPassword, n)
	}
	return ""
}

// maxEmail bounds an address (RFC 5321's limit on a path).
const maxEmail = 254

// NormaliseEmail trims an e-mail address and checks that it is one (a bare address, not
// "Name <address>"); the error is the field's message.
func NormaliseEmail(raw string) (string, error) {
	email := strings.TrimSpace(raw)
	if email == "" {
		return "", fmt.Errorf("is required")
	}
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || a.Name != "" || len(email) > maxEmail || !strings.Contains(email, "@") {
		return "", fmt.Errorf("must be an e-mail address such as name@example.com")
	}
	return email, nil
}
