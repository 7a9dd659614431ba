package account

import (
	"strings"
	"testing"
)

func TestCheckPassword(t *testing.T) {
	for pw, ok := range map[string]bool{
		"1234567": false, "12345678": true, strings.Repeat("é", 128): true, strings.Repeat("é", 129): false,
		"": false, "correct horse": true,
	} {
		if got := CheckPassword(pw) == ""; got != ok {
			t.Errorf("%q: accepted %v, want %v (%s)", pw, got, ok, CheckPassword(pw))
		}
	}
}

func TestNormaliseEmail(t *testing.T) {
	for in, want := range map[string]string{
		" Owner@Example.com ": "Owner@Example.com", "a@b": "a@b",
		"": "", "owner": "", "Owner <owner@example.com>": "", "a@b, c@d": "", "a b@example.com": "",
		strings.Repeat("a", 250) + "@b.cd": "",
	} {
		got, err := NormaliseEmail(in)
		if (err == nil) != (want != "") || got != want {
			t.Errorf("%q: %q, %v; want %q", in, got, err, want)
		}
	}
}
