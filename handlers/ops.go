package handlers

import (
	"log/slog"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
)

// observe writes one JSON log line per API request and counts it, with its latency, by route,
// method and status. It hands errors to the error handler first, so both see the final status.
// It never logs the client's address, user agent or query string: nothing personal reaches
// the logs.
func observe(log *slog.Logger, reg prometheus.Registerer) echo.MiddlewareFunc {
	duration := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "analytics_api_request_duration_seconds",
		Help:    "API requests by route, method and status, and their latency.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14),
	}, []string{"route", "method", "status"})
	reg.MustRegister(duration)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			if err := next(c); err != nil {
				c.Error(err)
			}
			elapsed := time.Since(start)
			status := c.Response().Status
			duration.WithLabelValues(c.Path(), c.Request().Method, strconv.Itoa(status)).Observe(elapsed.Seconds())
			log.Info("request",
				"request_id", c.Response().Header().Get(echo.HeaderXRequestID),
				"method", c.Request().Method,
				"route", c.Path(),
				"status", status,
				"duration_ms", float64(elapsed.Microseconds())/1000)
			return nil
		}
	}
}
