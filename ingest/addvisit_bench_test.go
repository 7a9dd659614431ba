package ingest

import (
	"net/http/httptest"
	"testing"

	"github.com/analytics-service/analytics/stats"
)

// The visit-start path alone: the counters and row values of a visit's first hit (the
// collector benchmark's traffic mostly continues open visits). Run it before and after adding a
// dimension.
func BenchmarkAddVisit(b *testing.B) {
	c := &Collector{}
	site := &Website{Domain: "example.com"}
	u, _ := parsePage("https://example.com/a?utm_campaign=spring&x=1")
	h := &hit{page: u, screen: "1920x1080"}
	r := httptest.NewRequest("POST", "/", nil)
	r.Header.Set("Accept-Language", "de-CH,de;q=0.9")
	client := Client{Browser: "Chrome", OS: "Windows", Device: "desktop"}
	keys := make([]Key, 0, 64)
	add := func(name stats.Name, day int32, value string) string {
		value = stats.Storable(value)
		keys = append(keys, Key{Name: name, Day: day, Value: value})
		return value
	}
	var row stats.Values
	b.ReportAllocs()
	for b.Loop() {
		keys = keys[:0]
		c.addVisit(add, &row, 20516, 10, site, h, "www.google.com", client, &place{}, r)
	}
}
