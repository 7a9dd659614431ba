package app

import (
	"context"
	"encoding/json"
	"net/http"
	"net/netip"
	"path"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/analytics-service/analytics/ratelimit"
	"github.com/analytics-service/analytics/reports"
	"github.com/analytics-service/analytics/web"
)

// routes are the parts mount puts on the service's paths.
type routes struct {
	api          http.Handler // /api/: the JSON API (package handlers)
	pages        http.Handler // every other path: the HTML side (package pages)
	unsubscribe  http.Handler // /unsubscribe/: the e-mail reports' links (package reports)
	alertLinks   http.Handler // /alerts/: the traffic alerts' links (package reports)
	collector    http.Handler // /api/event: the tracker's hits (package ingest)
	ready        func(context.Context) error
	collectReady func(context.Context) error
	registry     *prometheus.Registry
	// metricsAllow are the client addresses /metrics answers (METRICS_ALLOW); the client is
	// found as for the limits, through trustedProxies only.
	metricsAllow   []netip.Prefix
	trustedProxies []netip.Prefix
	links          web.Links // where the favicon redirect points
}

// mount is the service's one table of paths. The collector, the tracker script, health and
// metrics sit on a plain mux beside the API, so that they pay for none of its middleware (the
// request validator, the API's log line).
func mount(r routes) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/api/event", r.collector)
	mux.Handle("/readyz/collect", web.ReadOnly(health(r.collectReady)))
	mux.Handle("/js/script.js", web.ScriptHandler())
	// The pages' and the unsubscribe page's CSS, JavaScript and icon.
	mux.Handle("/static/", web.StaticHandler())
	mux.Handle("/favicon.ico", http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		http.Redirect(w, req, r.links.Path(web.AssetURL("favicon.svg")), http.StatusMovedPermanently)
	}))
	mux.Handle("/api/v1/docs", web.DocsHandler())
	mux.Handle("/healthz", web.ReadOnly(health(nil)))
	mux.Handle("/readyz", web.ReadOnly(health(r.ready)))
	mux.Handle("/metrics", web.ReadOnly(onlyFrom(r.metricsAllow, r.trustedProxies,
		promhttp.HandlerFor(r.registry, promhttp.HandlerOpts{Registry: r.registry}))))
	mux.Handle("/unsubscribe/", r.unsubscribe)
	mux.Handle(reports.AlertsPath, r.alertLinks)
	mux.Handle("/api/", r.api)
	mux.Handle("/", r.pages)
	// A path under /api/ that ServeMux would clean ("//", "..") goes to the API as sent: the
	// mux would answer it with a redirect, where the API has its own 404. So does a CONNECT,
	// which ServeMux routes by host: the API answers it 405 in JSON, not the pages.
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if p := req.URL.Path; strings.HasPrefix(p, "/api/") && (req.Method == http.MethodConnect || unclean(p)) {
			r.api.ServeHTTP(w, req)
			return
		}
		mux.ServeHTTP(w, req)
	})
}

// unclean tells whether ServeMux would redirect p to a cleaned path.
func unclean(p string) bool {
	c := path.Clean(p)
	return c != p && c+"/" != p
}

// DefaultMetricsAllow are the addresses /metrics answers when METRICS_ALLOW is unset: loopback
// and the private ranges, where a scraper runs. Its counters would tell a stranger what the
// answers of /api/event do not (whether a website is tracked here, how busy it is).
var DefaultMetricsAllow = []netip.Prefix{
	netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128"),
	netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.168.0.0/16"), netip.MustParsePrefix("fc00::/7"),
}

// onlyFrom serves h to clients whose address is in allow, and 403 to the others.
func onlyFrom(allow, trusted []netip.Prefix, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		addr := ratelimit.ClientAddr(r, trusted)
		for _, p := range allow {
			if addr.IsValid() && p.Contains(addr) {
				h.ServeHTTP(w, r)
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{"message":"Forbidden.","status":403}` + "\n"))
	})
}

// health answers /healthz (the process runs), /readyz (the database answers: the API can
// serve) and /readyz/collect (the collector can take hits, database or not).
func health(check func(context.Context) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		status, body := http.StatusOK, "ok"
		if check != nil {
			ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
			defer cancel()
			if err := check(ctx); err != nil {
				status, body = http.StatusServiceUnavailable, "unavailable"
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]string{"status": body})
	}
}
