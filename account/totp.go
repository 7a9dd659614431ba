package account

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1" //nolint:gosec // RFC 6238's default, what every authenticator app computes
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Two-factor sign-in codes: TOTP as RFC 6238 defines it with the parameters every
// authenticator app takes by default (HMAC-SHA-1, 30-second steps from the Unix epoch, 6
// digits), and one-use recovery codes.
const (
	TOTPStep      = 30 * time.Second
	TOTPDigits    = 6
	totpSecretLen = 20 // 160 bits, RFC 4226's recommended length
	// RecoveryCodes is how many one-use recovery codes a user gets at once.
	RecoveryCodes = 10
)

// NewTOTPSecret is a new random secret.
func NewTOTPSecret() []byte {
	b := make([]byte, totpSecretLen)
	_, _ = rand.Read(b) // never fails on supported platforms
	return b
}

var base32NoPad = base32.StdEncoding.WithPadding(base32.NoPadding)

// TOTPText is the secret as an authenticator app takes it typed: base32 in groups of four.
func TOTPText(secret []byte) string {
	s := base32NoPad.EncodeToString(secret)
	var groups []string
	for len(s) > 4 {
		groups, s = append(groups, s[:4]), s[4:]
	}
	return strings.Join(append(groups, s), " ")
}

// TOTPURI is the otpauth:// address a QR code carries (Google Authenticator's key URI
// format): the issuer and the account's address label it in the app.
func TOTPURI(secret []byte, issuer, email string) string {
	v := url.Values{"secret": {base32NoPad.EncodeToString(secret)}, "issuer": {issuer},
		"algorithm": {"SHA1"}, "digits": {fmt.Sprint(TOTPDigits)}, "period": {fmt.Sprint(int(TOTPStep.Seconds()))}}
	return "otpauth://totp/" + url.PathEscape(issuer+":"+email) + "?" + v.Encode()
}

// TOTPStepAt is the time step of t.
func TOTPStepAt(t time.Time) int64 { return t.Unix() / int64(TOTPStep.Seconds()) }

// totpCode is RFC 4226's HOTP of counter with RFC 6238's SHA-1, digits long.
func totpCode(secret []byte, counter int64, digits int) string {
	var msg [8]byte
	binary.BigEndian.PutUint64(msg[:], uint64(counter))
	m := hmac.New(sha1.New, secret)
	m.Write(msg[:])
	sum := m.Sum(nil)
	offset := sum[len(sum)-1] & 0x0f
	bin := binary.BigEndian.Uint32(sum[offset:offset+4]) & 0x7fffffff
	mod := uint32(1)
	for range digits {
		mod *= 10
	}
	return fmt.Sprintf("%0*d", digits, bin%mod)
}

// TOTPCode is the code of a time step.
func TOTPCode(secret []byte, step int64) string { return totpCode(secret, step, TOTPDigits) }

// MatchTOTP finds the time step, of now's and the one either side of it (a clock 30 s off,
// a code typed as it turned), whose code is code; ok false when none is. The caller refuses a
// step that was used already: a code is good once.
func MatchTOTP(secret []byte, code string, now time.Time) (step int64, ok bool) {
	code = NormaliseCode(code)
	if len(code) != TOTPDigits {
		return 0, false
	}
	at := TOTPStepAt(now)
	for _, s := range []int64{at - 1, at, at + 1} {
		if subtle.ConstantTimeCompare([]byte(TOTPCode(secret, s)), []byte(code)) == 1 {
			step, ok = s, true
		}
	}
	return step, ok
}

// NormaliseCode drops the spaces and dashes people type in a code, and upper-cases it.
func NormaliseCode(code string) string {
	return strings.ToUpper(strings.NewReplacer(" ", "", "-", "", "\t", "").Replace(strings.TrimSpace(code)))
}

// NewRecoveryCodes are RecoveryCodes new codes (80 random bits each, base32 in four groups of
// four: "ABCD-EFGH-IJKL-MNOP") and their hashes, which alone are stored.
func NewRecoveryCodes() (codes []string, hashes [][]byte) {
	for range RecoveryCodes {
		b := make([]byte, 10)
		_, _ = rand.Read(b)
		s := base32NoPad.EncodeToString(b)
		codes = append(codes, s[0:4]+"-"+s[4:8]+"-"+s[8:12]+"-"+s[12:16])
		hashes = append(hashes, HashRecoveryCode(s))
	}
	return codes, hashes
}

// HashRecoveryCode is the stored form of a recovery code, typed with or without its dashes.
func HashRecoveryCode(code string) []byte {
	sum := sha256.Sum256([]byte("recovery|" + NormaliseCode(code)))
	return sum[:]
}
