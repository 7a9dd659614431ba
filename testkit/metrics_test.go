package testkit

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

const exposition = `# TYPE analytics_events_ignored_total counter
analytics_events_ignored_total{reason="bot"} 3
analytics_events_ignored_total{reason="unknown_website"} 2
# TYPE analytics_buffer_keys gauge
analytics_buffer_keys 7
# TYPE analytics_rate_limited_total counter
analytics_rate_limited_total{limiter="events",node="a"} 1
analytics_rate_limited_total{limiter="events",node="b"} 4
`

// A metric's value is the sum of its series that carry the labels asked for; a missing one
// reads 0, and Require says it is missing.
func TestMetricsValue(t *testing.T) {
	m := ReadMetrics(t, strings.NewReader(exposition))
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
		found  bool
	}{
		{"analytics_events_ignored_total", nil, 5, true},
		{"analytics_events_ignored_total", []string{"reason", "bot"}, 3, true},
		{"analytics_events_ignored_total", []string{"reason", "spam"}, 0, false},
		{"analytics_buffer_keys", nil, 7, true},
		{"analytics_rate_limited_total", []string{"limiter", "events"}, 5, true},
		{"analytics_rate_limited_total", []string{"limiter", "events", "node", "b"}, 4, true},
		{"analytics_flushes_total", nil, 0, false},
	} {
		got, found := m.Lookup(c.name, c.labels...)
		if got != c.want || found != c.found || m.Value(c.name, c.labels...) != c.want {
			t.Errorf("%s%v = %v (found %v), want %v (%v)", c.name, c.labels, got, found, c.want, c.found)
		}
	}
}

// A registry reads as its /metrics would.
func TestGatherMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "analytics_test_total", Help: "x"}, []string{"kind"})
	reg.MustRegister(c)
	c.WithLabelValues("a").Add(2)
	c.WithLabelValues("b").Add(3)
	m := GatherMetrics(t, reg)
	if got := m.Require(t, "analytics_test_total", "kind", "b"); got != 3 {
		t.Fatalf("kind=b: %v, want 3", got)
	}
	if got := m.Value("analytics_test_total"); got != 5 {
		t.Fatalf("all kinds: %v, want 5", got)
	}
}
