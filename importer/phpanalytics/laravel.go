package phpanalytics

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrWrongKey: a payload's MAC does not match under the key given, which is what a wrong
// APP_KEY looks like (or a payload that was tampered with).
var ErrWrongKey = errors.New("the MAC does not match: wrong --app-key?")

// AppKey is a Laravel APP_KEY: 32 bytes for AES-256-CBC (Laravel's default cipher), or 16 for
// AES-128-CBC.
type AppKey []byte

// ParseAppKey reads APP_KEY as Laravel's .env holds it: "base64:" and the key in standard
// base64, or the raw key itself.
func ParseAppKey(s string) (AppKey, error) {
	s = strings.TrimSpace(s)
	key := []byte(s)
	if rest, ok := strings.CutPrefix(s, "base64:"); ok {
		var err error
		if key, err = base64.StdEncoding.DecodeString(rest); err != nil {
			return nil, fmt.Errorf("--app-key: the part after base64: is not base64: %w", err)
		}
	}
	if len(key) != 32 && len(key) != 16 {
		return nil, fmt.Errorf("--app-key: a key of %d bytes; Laravel's APP_KEY has 32 (AES-256-CBC) or 16 (AES-128-CBC), usually written base64:...", len(key))
	}
	return AppKey(key), nil
}

// payload is what Laravel's Encrypter writes, base64-encoded JSON: iv and value in base64, mac
// in hex, and tag (empty for the CBC ciphers, which are the only ones phpAnalytics uses).
type payload struct {
	IV    string `json:"iv"`
	Value string `json:"value"`
	MAC   string `json:"mac"`
	Tag   string `json:"tag"`
}

// Decrypt opens a payload of Laravel's encrypt() or encryptString(): it checks the MAC
// (HMAC-SHA256 under the key over the base64 iv followed by the base64 value), then decrypts
// the value with AES-CBC and removes the PKCS#7 padding. encrypt() serializes its argument the
// PHP way first; a serialized string (s:N:"...";) is unwrapped, so both kinds give the text.
func (k AppKey) Decrypt(encrypted string) (string, error) {
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(encrypted))
	if err != nil {
		return "", fmt.Errorf("decrypt: not a Laravel payload (not base64): %w", err)
	}
	var p payload
	if err := json.Unmarshal(raw, &p); err != nil || p.IV == "" || p.Value == "" || p.MAC == "" {
		return "", errors.New("decrypt: not a Laravel payload (no iv, value and mac)")
	}
	if p.Tag != "" {
		return "", errors.New("decrypt: an AEAD payload (tag set); only AES-CBC payloads are supported")
	}
	mac := hmac.New(sha256.New, k)
	mac.Write([]byte(p.IV + p.Value))
	want, err := hex.DecodeString(p.MAC)
	if err != nil || !hmac.Equal(mac.Sum(nil), want) {
		return "", fmt.Errorf("decrypt: %w", ErrWrongKey)
	}
	iv, err := base64.StdEncoding.DecodeString(p.IV)
	if err != nil || len(iv) != aes.BlockSize {
		return "", errors.New("decrypt: the payload's iv is not 16 bytes of base64")
	}
	data, err := base64.StdEncoding.DecodeString(p.Value)
	if err != nil || len(data) == 0 || len(data)%aes.BlockSize != 0 {
		return "", errors.New("decrypt: the payload's value is not whole AES blocks of base64")
	}
	block, err := aes.NewCipher(k)
	if err != nil {
		return "", fmt.Errorf("decrypt: %w", err)
	}
	plain := make([]byte, len(data))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(plain, data)
	pad := int(plain[len(plain)-1])
	if pad < 1 || pad > aes.BlockSize {
		return "", errors.New("decrypt: bad padding")
	}
	for _, b := range plain[len(plain)-pad:] {
		if int(b) != pad {
			return "", errors.New("decrypt: bad padding")
		}
	}
	return unserializeString(string(plain[:len(plain)-pad])), nil
}

// unserializeString unwraps PHP's serialization of a string, s:LENGTH:"TEXT"; (LENGTH in
// bytes), and returns anything else as it is.
func unserializeString(s string) string {
	rest, ok := strings.CutPrefix(s, "s:")
	if !ok {
		return s
	}
	n, rest, ok := strings.Cut(rest, ":")
	if !ok {
		return s
	}
	length, err := strconv.Atoi(n)
	if err != nil || len(rest) != length+3 || !strings.HasPrefix(rest, `"`) || !strings.HasSuffix(rest, `";`) {
		return s
	}
	return rest[1 : 1+length]
}
