package handlers

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/netip"
	"strings"

	"golang.org/x/crypto/argon2"
	"golang.org/x/net/idna"
)

const maxDomainLength = 255

// normaliseDomain turns what a user typed ("https://www.Example.com:8080/blog") into the host
// the tracker will see ("example.com"), or says why it cannot be one.
func normaliseDomain(raw string) (string, error) {
	d := strings.ToLower(strings.TrimSpace(raw))
	for _, scheme := range []string{"http://", "https://"} {
		d = strings.TrimPrefix(d, scheme)
	}
	if i := strings.IndexAny(d, "/?#"); i >= 0 {
		d = d[:i]
	}
	d = stripPort(d)
	d = strings.TrimSuffix(d, ".")
	if rest, ok := strings.CutPrefix(d, "www."); ok && rest != "" {
		d = rest
	}
	if d == "" {
		return "", fmt.Errorf("must be a host name or an IP address")
	}
	if addr, err := netip.ParseAddr(d); err == nil {
		if addr.Zone() != "" {
			return "", fmt.Errorf("must be a host name or an IP address")
		}
		return addr.String(), nil
	}
	// Unicode labels become punycode, which is what browsers put in location.host.
	ascii, err := idna.Lookup.ToASCII(d)
	if err != nil || !validHostname(ascii) {
		return "", fmt.Errorf("must be a valid host name or IP address")
	}
	if len(ascii) > maxDomainLength {
		return "", fmt.Errorf("must be at most %d characters", maxDomainLength)
	}
	return ascii, nil
}

// stripPort removes ":port" and the brackets of an IPv6 literal ("[::1]:8080" -> "::1").
func stripPort(host string) string {
	if strings.HasPrefix(host, "[") {
		if end := strings.Index(host, "]"); end > 0 {
			return host[1:end]
		}
		return host
	}
	if strings.Count(host, ":") == 1 {
		host, _, _ = strings.Cut(host, ":")
	}
	return host
}

func validHostname(h string) bool {
	if h == "" || len(h) > maxDomainLength {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// lines splits a one-entry-per-line field: CRLF or LF, each line trimmed, empty lines dropped.
func lines(s string) []string {
	var out []string
	for _, line := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}

// normaliseExcludeIPs checks that every line is an address or a CIDR range, and returns the
// lines joined by LF ("" when there are none, which stores NULL).
func normaliseExcludeIPs(s string) (string, error) {
	entries := lines(s)
	for i, line := range entries {
		if _, err := netip.ParseAddr(line); err == nil {
			continue
		}
		if _, err := netip.ParsePrefix(line); err == nil {
			continue
		}
		return "", fmt.Errorf("line %d (%q) is not an IP address or CIDR range", i+1, line)
	}
	return strings.Join(entries, "\n"), nil
}

// normaliseExcludeParams checks that every line can be a query parameter name ("&" alone means
// the whole query string) and returns the lines joined by LF.
func normaliseExcludeParams(s string) (string, error) {
	entries := lines(s)
	for i, line := range entries {
		if line == "&" {
			continue
		}
		if strings.ContainsAny(line, "&=#? \t") {
			return "", fmt.Errorf("line %d (%q) is not a query parameter name", i+1, line)
		}
	}
	return strings.Join(entries, "\n"), nil
}

// Argon2id parameters: the OWASP minimum (19 MiB, 2 passes), enough for a password that only
// guards a public statistics page, cheap enough for an API request.
const (
	argonTime    = 2
	argonMemory  = 19 * 1024
	argonThreads = 1
	argonKeyLen  = 32
)

// hashPassword returns an argon2id hash in the PHC string format.
func hashPassword(password string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime,
		argonThreads, base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

// VerifyPassword checks a password against a hash made by hashPassword.
func VerifyPassword(hash, password string) bool {
	var version, memory, time, threads int
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &memory, &time, &threads); err != nil {
		return false
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[4])
	key, err2 := base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil {
		return false
	}
	got := argon2.IDKey([]byte(password), salt, uint32(time), uint32(memory), uint8(threads), uint32(len(key)))
	return subtle.ConstantTimeCompare(got, key) == 1
}
