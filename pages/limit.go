package pages

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/analytics-service/analytics/ingest"
	"github.com/analytics-service/analytics/website"
)

// Limits on wrong passwords (website passwords and sign-ins alike), counted in fixed windows.
// Per client, so one address cannot guess for long; per website or account, so many addresses
// together cannot either. The price of the second: someone who keeps failing can lock a
// password website's readers out for a window; the owner, signed in, is never locked out.
const (
	attemptWindow       = 15 * time.Minute
	maxFailuresClient   = 10
	maxFailuresTarget   = 50
	maxAttemptKeys      = 100_000 // bounds the limiter's memory (about 100 bytes a key)
	attemptClientPrefix = "client:"
)

type attemptWindowCount struct {
	start    time.Time
	failures int
}

// attemptLimiter counts failures per key, in memory, per node.
type attemptLimiter struct {
	mu    sync.Mutex
	now   func() time.Time
	count map[string]*attemptWindowCount
}

func newAttemptLimiter(now func() time.Time) *attemptLimiter {
	return &attemptLimiter{now: now, count: map[string]*attemptWindowCount{}}
}

func limitFor(key string) int {
	if strings.HasPrefix(key, attemptClientPrefix) {
		return maxFailuresClient
	}
	return maxFailuresTarget
}

// blocked tells how long until the first of keys that is over its limit may try again; 0
// when none is.
func (l *attemptLimiter) blocked(keys ...string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	var wait time.Duration
	for _, k := range keys {
		c, ok := l.count[k]
		if !ok || now.Sub(c.start) >= attemptWindow || c.failures < limitFor(k) {
			continue
		}
		wait = max(wait, c.start.Add(attemptWindow).Sub(now))
	}
	return wait
}

// fail counts one failure against each key.
func (l *attemptLimiter) fail(keys ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	for _, k := range keys {
		c, ok := l.count[k]
		if !ok || now.Sub(c.start) >= attemptWindow {
			if !ok && len(l.count) >= maxAttemptKeys {
				l.sweep(now)
			}
			c = &attemptWindowCount{start: now}
			l.count[k] = c
		}
		c.failures++
	}
}

// sweep drops ended windows, and if the table is still full, arbitrary ones: under a flood of
// distinct clients memory stays bounded, and the per-target limit still holds for most.
func (l *attemptLimiter) sweep(now time.Time) {
	for k, c := range l.count {
		if now.Sub(c.start) >= attemptWindow {
			delete(l.count, k)
		}
	}
	for k := range l.count {
		if len(l.count) < maxAttemptKeys {
			break
		}
		delete(l.count, k)
	}
}

// clientKey is the limiter's key of the request's client for one purpose ("signin" or
// "website": failed website passwords do not lock a client out of signing in): a keyed hash
// of its address, so the limiter holds no address (the key is random per process and never
// leaves memory).
func (p *Pages) clientKey(r *http.Request, purpose string) string {
	addr := ingest.ClientIP(r, p.trusted)
	m := hmac.New(sha256.New, p.clientHashKey)
	m.Write(addr.AsSlice())
	return attemptClientPrefix + purpose + ":" + hex.EncodeToString(m.Sum(nil)[:12])
}

// tooMany answers a refused attempt.
func (p *Pages) tooMany(w http.ResponseWriter, r *http.Request, wait time.Duration) {
	minutes := int(wait.Round(time.Minute) / time.Minute)
	if minutes < 1 {
		minutes = 1
	}
	w.Header().Set("Retry-After", itoa(int(wait.Seconds())+1))
	p.fail(w, r, http.StatusTooManyRequests, "Too many attempts",
		"There were too many wrong passwords. Try again in "+plural(minutes, "minute")+".")
}

// checkPassword verifies a password against an argon2id hash ("" checks against a dummy
// hash, so an unknown account costs the same time as a known one). At most a few hashes run
// at once: each takes 19 MiB and a CPU for tens of milliseconds.
func (p *Pages) checkPassword(ctx context.Context, hash, password string) (bool, error) {
	select {
	case p.hashing <- struct{}{}:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	defer func() { <-p.hashing }()
	if hash == "" {
		website.VerifyPassword(dummyHash(), password)
		return false, nil
	}
	return website.VerifyPassword(hash, password), nil
}

// dummyHash is an argon2id hash of a random password nobody knows, made on first use.
var dummyHash = sync.OnceValue(func() string {
	h, err := website.HashPassword(hex.EncodeToString(randomKey()))
	if err != nil {
		panic(err) // only crypto/rand failing, which Go does not let happen
	}
	return h
})

// slowFailure holds a wrong answer until failureDelay has passed since the request began, so a
// wrong password is never answered faster than a right one and guessing stays slow.
func (p *Pages) slowFailure(ctx context.Context, began time.Time) {
	wait := p.failureDelay - time.Since(began)
	if wait <= 0 {
		return
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
