package pages

import (
	"context"
	"net/http"
	"net/url"

	embedopt "github.com/analytics-service/analytics/pages/embed"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// statsView is where the links of a stats page lead: the website's own pages
// (/stats/DOMAIN), or a shared link's (/share/DOMAIN), whose every link keeps the link's
// auth token and embed options so that a browser without cookies (an iframe) stays in the
// shared view. Every link of the dashboard, the full lists, the realtime view and the export
// is made from it.
type statsView struct {
	path string     // "/stats/example.com" or "/share/example.com"
	keep url.Values // the parameters every link keeps; nil on /stats
	// shared is the shared link shown, and site its website; nil on /stats.
	shared *repository.SharedLink
	site   repository.Website
	embed  *embedopt.Options // embed=true: no site chrome (share.go); nil otherwise
	// segment is the shared link's segment, whose filters narrow every read of the view
	// and its viewer cannot remove; nil without one (and on /stats).
	segment *lockedSegment
}

// lockedSegment is a shared link's segment as its view applies it: the name its filter bar
// shows, and its filters as the dashboard's, each Locked (they travel in no address).
type lockedSegment struct {
	Name    string
	Filters stats.Filters
}

type viewKey struct{}

// viewOf is the view of the stats page answering r (set by the shared link's pages).
func viewOf(r *http.Request, site repository.Website) statsView {
	if v, ok := r.Context().Value(viewKey{}).(statsView); ok {
		return v
	}
	return statsView{path: statsPath(site.Domain)}
}

func withView(r *http.Request, v statsView) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), viewKey{}, v))
}

// with is q with the view's kept parameters added.
func (v statsView) with(q url.Values) url.Values {
	for k, vals := range v.keep {
		q[k] = vals
	}
	return q
}

// url is the address of one of the view's pages (sub: "", "/realtime", "/page", "/export")
// with the query q and the kept parameters.
func (v statsView) url(sub string, q url.Values) string {
	if q = v.with(q); len(q) == 0 {
		return v.path + sub
	}
	return v.path + sub + "?" + q.Encode()
}
