package ingest

import (
	"context"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
)

// decodeHitsInTheOldOrder is decodeHits as it was before Plausible's bodies were read first:
// every body decoded as this service's, then as Plausible's. The reference the new order is
// held to.
func (c *Collector) decodeHitsInTheOldOrder(body []byte, hits []eventRequest) ([]eventRequest, error) {
	var req eventRequest
	if err := decodeEvent(body, &req); err != nil {
		return nil, decodeError(err)
	}
	if req.Page != "" {
		return append(hits, req), nil
	}
	if f, ok := decodePlausibleFast(body); ok {
		return c.plausibleHits(f, hits)
	}
	var p plausibleBody
	if err := json.Unmarshal(body, &p, hitJSON); err != nil {
		return nil, errBadJSON
	}
	if present(p.N) == nil && present(p.Name) == nil {
		return append(hits, req), nil
	}
	f, err := p.fields()
	if err != nil {
		return nil, err
	}
	return c.plausibleHits(f, hits)
}

// TestDecodeHitsAsInTheOldOrder sends 100,000 bodies mixing this service's members and
// Plausible's, most starting with n as Plausible's trackers write them: decodeHits answers
// each with the hits, or the 400's text, of the old order.
func TestDecodeHitsAsInTheOldOrder(t *testing.T) {
	sites := NewWebsites(staticSites{{ID: 1, Domain: "bench.test"}, {ID: 2, Domain: "other.test"}})
	if err := sites.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	c := &Collector{Websites: sites}
	keys := []string{`"page"`, `"referrer"`, `"screen_resolution"`, `"event"`, `"hash"`, `"interactive"`, `"props"`, `"revenue"`,
		`"name"`, `"url"`, `"domain"`, `"u"`, `"d"`, `"r"`, `"$"`, `"p"`, `"h"`, `"i"`, `"e"`, `"sd"`, `"v"`, `"Page"`, `"N"`}
	values := []string{`"https://bench.test/a"`, `"https://other.test/b?c=d#e"`, `"bench.test, other.test"`, `"ftp://x/"`,
		`""`, `null`, `1`, `-3`, `1e400`, `true`, `false`, `{"name":"Signup","value":"5"}`, `{"name":3}`,
		`{"amount":"9.99","currency":"EUR"}`, `{"plan":"pro"}`, `[1]`, `"\u00e9"`, "\"\xff\""}
	names := []string{`"pageview"`, `"engagement"`, `"Signup"`, `""`, `null`, `5`, `"` + strings.Repeat("x", 65) + `"`}
	r := rand.New(rand.NewPCG(1, 2))
	plausibleFirst := 0
	for range 100_000 {
		var b strings.Builder
		b.WriteByte('{')
		if r.IntN(4) != 0 {
			b.WriteString(`"n":` + names[r.IntN(len(names))])
			plausibleFirst++
		}
		for range r.IntN(5) {
			if b.Len() > 1 {
				b.WriteByte(',')
			}
			b.WriteString(keys[r.IntN(len(keys))] + ":" + values[r.IntN(len(values))])
		}
		b.WriteByte('}')
		body := []byte(b.String())
		got, gotErr := c.decodeHits(body, nil)
		want, wantErr := c.decodeHitsInTheOldOrder(body, nil)
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Fatalf("%s: error %v, the old order %v", body, gotErr, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\n got %+v\nwant %+v", body, got, want)
		}
	}
	if plausibleFirst < 50_000 {
		t.Fatalf("only %d bodies started with n", plausibleFirst)
	}
}
