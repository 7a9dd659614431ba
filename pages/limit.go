package pages

import (
	"context"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/analytics-service/analytics/ratelimit"
	"github.com/analytics-service/analytics/website"
)

// Limits on wrong passwords (website passwords and sign-ins alike), as token buckets of the
// service's one rate limiter (package ratelimit: fixed memory, clients known only by a keyed
// hash). Per client, so one address cannot guess for long; per website or account, so many
// addresses together cannot either. The price of the second: someone who keeps failing can
// lock a password website's readers out for a while; the owner, signed in, is never locked out.
const (
	attemptWindow     = 15 * time.Minute
	maxFailuresClient = 10 // a window, per client (sign-ins and website passwords apart)
	maxFailuresTarget = 50 // a window, per website or account
)

// attemptLimits are the buckets of failures: a failure takes a token, a refill takes the window.
type attemptLimits struct {
	signInClients   *ratelimit.Limiter
	passwordClients *ratelimit.Limiter
	targets         *ratelimit.Limiter // "website:ID" and "account:EMAIL"
}

func newAttemptLimits(now func() time.Time, reg prometheus.Registerer) attemptLimits {
	perWindow := func(n int) *ratelimit.Limiter {
		return ratelimit.New(float64(n)/attemptWindow.Seconds(), n, now)
	}
	a := attemptLimits{
		signInClients:   perWindow(maxFailuresClient),
		passwordClients: perWindow(maxFailuresClient),
		targets:         perWindow(maxFailuresTarget),
	}
	if reg != nil {
		a.signInClients.Register(reg, "signin_failures")
		a.passwordClients.Register(reg, "website_password_failures")
		a.targets.Register(reg, "password_failures_per_target")
	}
	return a
}

// attempt is one bucket a password attempt is counted in.
type attempt struct {
	limiter *ratelimit.Limiter
	key     uint64
}

// signInAttempts are the buckets of a sign-in: the client's and the account's.
func (p *Pages) signInAttempts(r *http.Request, email string) []attempt {
	l := p.limits
	return []attempt{
		{l.signInClients, l.signInClients.AddrKey(ratelimit.ClientAddr(r, p.trusted))},
		{l.targets, l.targets.StringKey("account:" + strings.ToLower(email))},
	}
}

// passwordAttempts are the buckets of a website password: the client's and the website's.
func (p *Pages) passwordAttempts(r *http.Request, websiteID int64) []attempt {
	l := p.limits
	return []attempt{
		{l.passwordClients, l.passwordClients.AddrKey(ratelimit.ClientAddr(r, p.trusted))},
		{l.targets, l.targets.StringKey("website:" + strconv.FormatInt(websiteID, 10))},
	}
}

// blocked tells how long until every bucket of an attempt has a token again; 0 when they all
// have one now.
func blocked(attempts []attempt) time.Duration {
	var wait time.Duration
	for _, a := range attempts {
		if limited, w := a.limiter.Limited(a.key); limited {
			wait = max(wait, w)
		}
	}
	return wait
}

// failed counts a wrong password against each bucket.
func failed(attempts []attempt) {
	for _, a := range attempts {
		a.limiter.Charge(a.key)
	}
}

// attemptPassword checks a password (a sign-in or a website's) under the limits. It answers
// the request itself, and says so, when the attempt is refused (429) or fails (500); a wrong
// password is counted in every bucket and returns no sooner than failureDelay after began, and
// the caller shows its form again. hash gives the stored hash, "" when there is none.
func (p *Pages) attemptPassword(w http.ResponseWriter, r *http.Request, began time.Time, attempts []attempt,
	hash func() (string, error), password string) (right, answered bool) {
	if wait := blocked(attempts); wait > 0 {
		p.tooMany(w, r, wait)
		return false, true
	}
	stored, err := hash()
	if err == nil {
		right, err = p.checkPassword(r.Context(), stored, password)
	}
	if err != nil {
		p.serverError(w, r, err)
		return false, true
	}
	if !right {
		failed(attempts)
		p.slowFailure(r.Context(), began)
	}
	return right, false
}

// tooMany answers a refused attempt.
func (p *Pages) tooMany(w http.ResponseWriter, r *http.Request, wait time.Duration) {
	minutes := int(wait.Round(time.Minute) / time.Minute)
	if minutes < 1 {
		minutes = 1
	}
	w.Header().Set("Retry-After", strconv.Itoa(ratelimit.RetryAfter(wait)))
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
