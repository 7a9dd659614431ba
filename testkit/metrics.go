package testkit

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Metrics are the metric families of one reading: of /metrics (ReadMetrics, ScrapeMetrics) or
// of a registry (GatherMetrics). Every test reads a metric through it, so that all of them mean
// the same by "the value of a metric".
type Metrics map[string]*dto.MetricFamily

// ReadMetrics parses what /metrics serves (the Prometheus text format).
func ReadMetrics(t testing.TB, r io.Reader) Metrics {
	t.Helper()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(r)
	if err != nil {
		t.Fatalf("read metrics: %v", err)
	}
	return families
}

// ScrapeMetrics reads the metrics at url (a running server's /metrics), as a scraper does.
func ScrapeMetrics(t testing.TB, url string) Metrics {
	t.Helper()
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{Proxy: nil}}
	defer client.CloseIdleConnections()
	res, err := client.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d", url, res.StatusCode)
	}
	return ReadMetrics(t, res.Body)
}

// GatherMetrics reads a registry that no server serves (a reporter's of its own, say).
func GatherMetrics(t testing.TB, g prometheus.Gatherer) Metrics {
	t.Helper()
	families, err := g.Gather()
	if err != nil {
		t.Fatalf("gather metrics: %v", err)
	}
	out := Metrics{}
	for _, f := range families {
		out[f.GetName()] = f
	}
	return out
}

// Value is the sum of the series of the counter or gauge name whose labels include the given
// name, value pairs; 0 when there is none (a counter not yet incremented is not exported).
func (m Metrics) Value(name string, labels ...string) float64 {
	v, _ := m.Lookup(name, labels...)
	return v
}

// Require is Value, failing the test when no series matches (the metric is missing).
func (m Metrics) Require(t testing.TB, name string, labels ...string) float64 {
	t.Helper()
	v, ok := m.Lookup(name, labels...)
	if !ok {
		t.Fatalf("no metric %s%v", name, labels)
	}
	return v
}

// Lookup is Value, and whether any series matched.
func (m Metrics) Lookup(name string, labels ...string) (float64, bool) {
	var sum float64
	found := false
	for _, series := range m[name].GetMetric() {
		if !hasLabels(series, labels) {
			continue
		}
		found = true
		sum += series.GetCounter().GetValue() + series.GetGauge().GetValue() + series.GetUntyped().GetValue()
	}
	return sum, found
}

func hasLabels(series *dto.Metric, pairs []string) bool {
	have := map[string]string{}
	for _, l := range series.GetLabel() {
		have[l.GetName()] = l.GetValue()
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		if v, ok := have[pairs[i]]; !ok || v != pairs[i+1] {
			return false
		}
	}
	return true
}
