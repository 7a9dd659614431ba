package htmlpage

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
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/website"
)

// Limits on password guesses: website passwords and sign-ins. Every attempt is counted before
// its password is checked, and a right one takes its count back: an argon2id check takes tens
// of milliseconds, and every request of a parallel burst would pass a limit checked before it
// and charged after. Each attempt is held by two limits:
//   - per client: maxClientAttempts in clientWindow per address (or IPv6 /64), sign-ins and
//     website passwords apart; in memory, per node (package ratelimit: the address is known
//     only by a keyed hash). A browser signing in to an account it signed in to before
//     (its device cookie) is counted per device instead, not per address.
//   - per account or website: freeAttempts at once, then growing delays between attempts
//     (firstDelay, doubling, at most maxDelay), one failure forgiven each ForgiveEvery; in
//     PostgreSQL, for every node. Someone guessing slows the target down but never keeps
//     anyone out for longer than maxDelay; the owner's own browser (device cookie) is not held
//     at all, and a browser granted a website's password keeps reading it without a password.
const (
	clientWindow      = 15 * time.Minute
	maxClientAttempts = 10
	freeAttempts      = 5
	firstDelay        = time.Second
	maxDelay          = 15 * time.Minute
)

// ForgiveEvery is how often one failure of an account or a website is forgiven; the
// background job that forgets targets with none left (repository.ForgetAttempts) needs it.
const ForgiveEvery = maxDelay

// targetBackoff is the schedule of the limit per account or website: no delay for the first
// freeAttempts failures, then firstDelay doubling up to maxDelay.
var targetBackoff = func() repository.Backoff {
	delays := make([]time.Duration, freeAttempts-1) // the first freeAttempts come at once
	for d := firstDelay; ; d *= 2 {
		delays = append(delays, min(d, maxDelay))
		if d >= maxDelay {
			return repository.Backoff{Delays: delays, Forgive: ForgiveEvery}
		}
	}
}()

// attemptLimits are the limits on guesses and their metrics.
type attemptLimits struct {
	signInClients   *ratelimit.Limiter // per address
	passwordClients *ratelimit.Limiter // per address
	devices         *ratelimit.Limiter // per device cookie
	linkClients     *ratelimit.Limiter // per address: tokens of account links that were wrong
	resetClients    *ratelimit.Limiter // per address: password reset requests
	// Refusals of the limits per account and per website (kept in PostgreSQL).
	accountsRefused, websitesRefused prometheus.Counter
	checks                           *prometheus.CounterVec // passwords checked, by kind
}

// The kinds of guess, as the metrics name them.
const (
	signInKind   = "signin"
	codeKind     = "signin_code"
	passwordKind = "website_password"
)

func newAttemptLimits(now func() time.Time, reg prometheus.Registerer) attemptLimits {
	perWindow := func(n int) *ratelimit.Limiter {
		return ratelimit.New(float64(n)/clientWindow.Seconds(), n, now)
	}
	a := attemptLimits{
		signInClients:   perWindow(maxClientAttempts),
		passwordClients: perWindow(maxClientAttempts),
		devices:         perWindow(maxClientAttempts),
		linkClients:     perWindow(maxClientAttempts),
		resetClients:    perWindow(maxClientAttempts),
		accountsRefused: ratelimit.NewRefusals(reg, "signin_accounts"),
		websitesRefused: ratelimit.NewRefusals(reg, "website_passwords"),
		checks: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "analytics_password_checks_total",
			Help: "Passwords checked against their argon2id hash, by kind (signin, website_password); refused attempts are not checked."},
			[]string{"kind"}),
	}
	if reg != nil {
		a.signInClients.Register(reg, "signin_failures")
		a.passwordClients.Register(reg, "website_password_failures")
		a.devices.Register(reg, "signin_devices")
		a.linkClients.Register(reg, "account_links")
		a.resetClients.Register(reg, "password_resets")
		reg.MustRegister(a.checks)
	}
	return a
}

// Guess is one password attempt and the limits it is counted in.
type Guess struct {
	kind      string
	client    *ratelimit.Limiter // the client's limit: per address, or per device
	clientKey uint64
	target    []byte             // the account's or website's key; nil: a trusted device, not held per account
	refused   prometheus.Counter // refusals of the target's limit
}

// SignInGuess is a sign-in: held per address and per account (an e-mail, known or not).
func (p *Base) SignInGuess(r *http.Request, email string) Guess {
	l := p.limits
	return Guess{
		kind: signInKind, client: l.signInClients, clientKey: l.signInClients.AddrKey(ratelimit.ClientAddr(r, p.Trusted)),
		target: p.MAC(p.attemptsKey, "account|"+strings.ToLower(email)), refused: l.accountsRefused,
	}
}

// DeviceGuess is a sign-in from a browser that signed in to that account before (its device
// cookie's nonce): held per device only.
func (p *Base) DeviceGuess(nonce string) Guess {
	l := p.limits
	return Guess{kind: signInKind, client: l.devices, clientKey: l.devices.StringKey(nonce)}
}

// PasswordGuess is a website's password: held per address and per website.
func (p *Base) PasswordGuess(r *http.Request, websiteID int64) Guess {
	return p.TargetGuess(r, "website|"+strconv.FormatInt(websiteID, 10))
}

// TargetGuess is a guess at the password of a target other than an account: a website's, or
// a shared link's ("shared_link|ID"), limited per client and per target as a website's.
func (p *Base) TargetGuess(r *http.Request, target string) Guess {
	l := p.limits
	return Guess{
		kind: passwordKind, client: l.passwordClients, clientKey: l.passwordClients.AddrKey(ratelimit.ClientAddr(r, p.Trusted)),
		target: p.MAC(p.attemptsKey, target), refused: l.websitesRefused,
	}
}

// AttemptPassword checks a password (a sign-in or a website's) under the limits: the attempt
// is counted first, checked, and its count taken back when it was right. It answers the
// request itself, and says so, when the attempt is refused (429) or fails (500); a wrong
// password returns no sooner than failureDelay after began, and the caller shows its form
// again. hash gives the stored hash, "" when there is none.
func (p *Base) AttemptPassword(w http.ResponseWriter, r *http.Request, began time.Time, g Guess,
	hash func() (string, error), password string) (right, answered bool) {
	return p.Attempt(w, r, began, g, func(ctx context.Context) (bool, error) {
		stored, err := hash()
		if err != nil {
			return false, err
		}
		return p.CheckPassword(ctx, g.kind, stored, password)
	})
}

// Attempt runs one guess (a password, a sign-in code) under the limits: counted first, checked
// by check, and its count taken back when it was right. It answers the request itself, and
// says so, when the attempt is refused (429) or fails (500); a wrong guess returns no sooner
// than failureDelay after began.
func (p *Base) Attempt(w http.ResponseWriter, r *http.Request, began time.Time, g Guess,
	check func(context.Context) (bool, error)) (right, answered bool) {
	ctx := r.Context()
	if ok, wait := g.client.Allow(g.clientKey); !ok {
		p.TooMany(w, r, wait)
		return false, true
	}
	// Refused here, the attempt still costs the client its token: no client makes the database
	// decide for it more often than its own limit allows.
	if g.target != nil {
		wait, err := p.Repo.ChargeAttempt(ctx, g.target, targetBackoff)
		if err != nil {
			p.ServerError(w, r, err)
			return false, true
		}
		if wait > 0 {
			g.refused.Inc()
			p.TooMany(w, r, wait)
			return false, true
		}
	}
	right, err := check(ctx)
	if err != nil {
		p.ServerError(w, r, err)
		return false, true
	}
	if !right {
		p.SlowFailure(ctx, began)
		return false, false
	}
	g.client.Refund(g.clientKey)
	if g.target != nil {
		// Not taken back, the attempt counts as a failure: no reason to turn a right password away.
		if err := p.Repo.RefundAttempt(ctx, g.target); err != nil {
			p.Log.Warn("a right password's attempt is still counted", "error", err)
		}
	}
	return true, false
}

// TooMany answers a refused attempt.
func (p *Base) TooMany(w http.ResponseWriter, r *http.Request, wait time.Duration) {
	p.TooManyOf(w, r, wait, "There were too many wrong passwords.")
}

// TooManyOf answers a refused attempt, saying what there were too many of.
func (p *Base) TooManyOf(w http.ResponseWriter, r *http.Request, wait time.Duration, what string) {
	seconds := ratelimit.RetryAfter(wait)
	when := CountOf(int64(seconds), "second", "seconds")
	if seconds > 90 {
		when = CountOf(int64((seconds+30)/60), "minute", "minutes")
	}
	w.Header().Set("Retry-After", strconv.Itoa(seconds))
	p.Fail(w, r, http.StatusTooManyRequests, "Too many attempts",
		what+" Try again in "+when+".")
}

// CheckPassword verifies a password against an argon2id hash ("" checks against a dummy
// hash, so an unknown account costs the same time as a known one). At most a few hashes run
// at once: each takes 19 MiB and a CPU for tens of milliseconds.
func (p *Base) CheckPassword(ctx context.Context, kind, hash, password string) (bool, error) {
	select {
	case p.hashing <- struct{}{}:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	defer func() { <-p.hashing }()
	p.limits.checks.WithLabelValues(kind).Inc()
	if hash == "" {
		website.VerifyPassword(dummyHash(), password)
		return false, nil
	}
	return website.VerifyPassword(hash, password), nil
}

// dummyHash is an argon2id hash of a random password nobody knows, made on first use.
var dummyHash = sync.OnceValue(func() string {
	h, err := website.HashPassword(hex.EncodeToString(RandomKey()))
	if err != nil {
		panic(err) // only crypto/rand failing, which Go does not let happen
	}
	return h
})

// SlowFailure holds a wrong answer until failureDelay has passed since the request began, so a
// wrong password is never answered faster than a right one and guessing stays slow.
func (p *Base) SlowFailure(ctx context.Context, began time.Time) {
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

// CodeGuess is a guess at a user's code: held per address (with the sign-ins) and per account
// in PostgreSQL, apart from the password's count.
func (p *Base) CodeGuess(r *http.Request, userID int64) Guess {
	g := p.SignInGuess(r, "")
	g.kind = codeKind
	g.target = p.MAC(p.attemptsKey, "totp|"+strconv.FormatInt(userID, 10))
	return g
}

// AllowResetRequest counts a request for a password reset link against its client's limit
// (every request, known address or not, so the answer cannot differ): false when refused,
// answered (429).
func (p *Base) AllowResetRequest(w http.ResponseWriter, r *http.Request) bool {
	limiter := p.limits.resetClients
	if ok, wait := limiter.Allow(limiter.AddrKey(ratelimit.ClientAddr(r, p.Trusted))); !ok {
		p.TooManyOf(w, r, wait, "There were too many requests for reset links from your address.")
		return false
	}
	return true
}
