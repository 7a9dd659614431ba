package htmlpage

import (
	"errors"
	"net/http"

	"github.com/analytics-service/analytics/ratelimit"
	"github.com/analytics-service/analytics/repository"
)

// LinkGone is the answer to a link that cannot be used.
func (p *Base) LinkGone(w http.ResponseWriter, r *http.Request) {
	p.Render(w, r, http.StatusGone, "error.html", "Link expired", ErrorPage{Status: http.StatusGone,
		Heading: "This link no longer works",
		Message: "It has expired, was used already, or a newer link replaced it. Ask for a new one: " +
			"reset your password, or ask an admin of this service.",
		Back: "/password-reset", BackLabel: "Reset your password"})
}

// LookUpToken runs the lookup of a one-use link's token (lookup's repository.ErrNotFound: no
// such link, or one that cannot be used) under the per-address limit of the links: a failed
// lookup is counted before it is made, a good one is not. ok false: answered (the 410 page for
// a link that does not work).
func (p *Base) LookUpToken(w http.ResponseWriter, r *http.Request, lookup func() error) bool {
	return p.LookUpTokenOr(w, r, p.LinkGone, lookup)
}

// LookUpTokenOr is lookUpToken answering a token that does not work with gone.
func (p *Base) LookUpTokenOr(w http.ResponseWriter, r *http.Request, gone http.HandlerFunc, lookup func() error) bool {
	// Tokens never reach a log or another site: no error page logs the query, and no
	// Referer leaves this page.
	w.Header().Set("Referrer-Policy", "no-referrer")
	limiter := p.limits.linkClients
	key := limiter.AddrKey(ratelimit.ClientAddr(r, p.Trusted))
	if ok, wait := limiter.Allow(key); !ok {
		p.TooManyOf(w, r, wait, "There were too many links that did not work from your address.")
		return false
	}
	err := lookup()
	if errors.Is(err, repository.ErrNotFound) {
		gone(w, r)
		return false
	}
	limiter.Refund(key)
	if err != nil {
		p.ServerError(w, r, err)
		return false
	}
	return true
}
