package account

import (
	"strings"
	"testing"
	"time"
)

// RFC 6238, appendix B: the SHA-1 test vectors (8 digits, the ASCII secret
// "12345678901234567890", 30-second steps from T0 = 0).
func TestTOTPOfRFC6238(t *testing.T) {
	secret := []byte("12345678901234567890")
	for _, v := range []struct {
		unix int64
		code string
	}{
		{59, "94287082"}, {1111111109, "07081804"}, {1111111111, "14050471"},
		{1234567890, "89005924"}, {2000000000, "69279037"}, {20000000000, "65353130"},
	} {
		if got := totpCode(secret, TOTPStepAt(time.Unix(v.unix, 0)), 8); got != v.code {
			t.Errorf("T=%d: %s, want %s", v.unix, got, v.code)
		}
		// Six digits are the last six of the eight (the same truncation, a smaller modulus).
		if got := TOTPCode(secret, TOTPStepAt(time.Unix(v.unix, 0))); got != v.code[2:] {
			t.Errorf("T=%d, 6 digits: %s, want %s", v.unix, got, v.code[2:])
		}
	}
}

func TestMatchTOTP(t *testing.T) {
	secret := NewTOTPSecret()
	now := time.Unix(1_800_000_015, 0)
	at := TOTPStepAt(now)
	for _, s := range []int64{at - 1, at, at + 1} {
		code := TOTPCode(secret, s)
		if step, ok := MatchTOTP(secret, code[:3]+" "+code[3:], now); !ok || step != s {
			t.Errorf("step %d: %d %v", s, step, ok)
		}
	}
	for _, code := range []string{TOTPCode(secret, at-2), TOTPCode(secret, at+2), "", "12345", "1234567", "abcdef"} {
		if _, ok := MatchTOTP(secret, code, now); ok && code != TOTPCode(secret, at) {
			t.Errorf("%q matched", code)
		}
	}
}

func TestTOTPTextAndURI(t *testing.T) {
	secret := []byte("12345678901234567890")
	if got := TOTPText(secret); got != "GEZD GNBV GY3T QOJQ GEZD GNBV GY3T QOJQ" {
		t.Errorf("text %q", got)
	}
	uri := TOTPURI(secret, "Analytics", "a@example.com")
	if !strings.HasPrefix(uri, "otpauth://totp/Analytics:a@example.com?") || !strings.Contains(uri, "secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ") {
		t.Errorf("uri %q", uri)
	}
}

func TestRecoveryCodes(t *testing.T) {
	codes, hashes := NewRecoveryCodes()
	if len(codes) != RecoveryCodes || len(hashes) != RecoveryCodes {
		t.Fatalf("%d codes", len(codes))
	}
	seen := map[string]bool{}
	for i, c := range codes {
		if len(c) != 19 || seen[c] {
			t.Errorf("code %q", c)
		}
		seen[c] = true
		if string(HashRecoveryCode(strings.ToLower(strings.ReplaceAll(c, "-", " ")))) != string(hashes[i]) {
			t.Errorf("code %q typed otherwise does not match", c)
		}
	}
}
