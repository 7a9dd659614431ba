package ingest

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
)

// scanAsUnmarshal checks one body: where scanPlausible takes it, json.Unmarshal must take it
// too and give the same struct. It reports whether the scanner took it.
func scanAsUnmarshal(t *testing.T, body []byte) bool {
	t.Helper()
	scanned := plausibleFast{E: -1, SD: -1}
	if !scanPlausible(body, &scanned) {
		return false
	}
	decoded := plausibleFast{E: -1, SD: -1}
	if err := json.Unmarshal(body, &decoded, hitJSON); err != nil {
		t.Fatalf("scanned %q, which Unmarshal refuses: %v", body, err)
	}
	if !reflect.DeepEqual(scanned, decoded) {
		t.Fatalf("%q:\nscanned   %+v\nunmarshal %+v", body, scanned, decoded)
	}
	return true
}

// The keys and values bodies are made of: Plausible's as its trackers write them, and the
// edges around them (other letter cases, long keys, escapes, control and invalid bytes, numbers
// out of JSON's grammar or float64's range, nested values, broken ones).
var (
	scanKeys = []string{`"n"`, `"u"`, `"d"`, `"r"`, `"$"`, `"p"`, `"h"`, `"i"`, `"e"`, `"sd"`, `"v"`,
		`"N"`, `"SD"`, `"s_d"`, `"S-d"`, `"name"`, `"url"`, `"page"`, `"event"`, `"props"`, `"w"`, `"n\u0000"`, `"\u006e"`, `"u" `, `n`}
	scanValues = []string{`"engagement"`, `"pageview"`, `"Signup"`, `"https://bench.test/a?b=c#d"`, `"bench.test,other.test"`,
		`""`, `null`, `0`, `-0`, `4200`, `-1`, `1.5`, `1e3`, `1E+2`, `2.5e-3`, `1e400`, `-1e400`, `01`, `1.`, `.5`, `-`, `+1`,
		`0x10`, `Infinity`, `NaN`, `true`, `false`, `nul`, `truex`, `"a\"b"`, `"a\\b"`, `"\u00e9t\u00e9"`, `"été"`,
		"\"tab\there\"", "\"\xff\xfe\"", "\"caf\xc3\"", `"日本"`, `{}`, `[]`, `{"a":1}`, `{"amount":"9.99","currency":"EUR"}`,
		`{"a":"}"}`, `{"a":"\"}"}`, `[1,{"b":[2,"]"]}]`, `{"a":1,"a":2}`, `{"a":}`, `{"a":1`, `[1,]`, `{"a":"\xff"}`,
		`{"k":"v","k2":[null,true]}`, `"` + strings.Repeat("x", 40) + `"`}
	scanSpaces = []string{"", " ", "\n", "\t", "\r\n  ", "\u00a0"}
)

// randomBody makes a body of a few members from the pools, with some white space and, now and
// then, a broken frame.
func randomBody(r *rand.Rand) []byte {
	var b strings.Builder
	sp := func() {
		if r.IntN(3) == 0 {
			b.WriteString(scanSpaces[r.IntN(len(scanSpaces))])
		}
	}
	sp()
	b.WriteByte('{')
	n := r.IntN(7)
	for i := range n {
		if i > 0 {
			sp()
			b.WriteByte(',')
		}
		sp()
		b.WriteString(scanKeys[r.IntN(len(scanKeys))])
		sp()
		b.WriteByte(':')
		sp()
		b.WriteString(scanValues[r.IntN(len(scanValues))])
	}
	sp()
	switch r.IntN(30) {
	case 0:
	case 1:
		b.WriteString("},")
	case 2:
		b.WriteString("}{}")
	default:
		b.WriteByte('}')
	}
	sp()
	return []byte(b.String())
}

// TestScanPlausibleAsUnmarshal holds the scanner to json.Unmarshal on 200,000 bodies made of
// the pools above: each it takes decodes to the same struct.
func TestScanPlausibleAsUnmarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	taken := 0
	for range 200_000 {
		if scanAsUnmarshal(t, randomBody(r)) {
			taken++
		}
	}
	// Most bodies hold something the scanner leaves to Unmarshal; enough must be taken for
	// the comparison to mean something.
	if taken < 2_000 {
		t.Fatalf("the scanner took only %d of 200,000 bodies", taken)
	}
	t.Logf("scanned %d of 200,000 bodies", taken)
}

// TestScanPlausibleTakesTrackerBodies: the bodies Plausible's trackers send are read by the
// scanner, not left to Unmarshal (which would cost an engagement hit more than a pageview).
func TestScanPlausibleTakesTrackerBodies(t *testing.T) {
	for _, body := range []string{
		`{"n":"pageview","v":22,"u":"https://bench.test/blog?x=1","d":"bench.test","r":null}`,
		`{"n":"pageview","v":22,"u":"https://bench.test/","d":"bench.test","r":"https://news.example/","h":1,"p":{"plan":"pro"}}`,
		`{"n":"engagement","sd":45,"d":"bench.test","u":"https://bench.test/a","p":{},"e":4200,"v":36,"h":1}`,
		`{"n":"Purchase","u":"https://bench.test/buy","d":"bench.test","r":null,"$":{"amount":"19.90","currency":"EUR"},"i":false}`,
	} {
		if !scanAsUnmarshal(t, []byte(body)) {
			t.Errorf("the scanner left %s to Unmarshal", body)
		}
	}
	for _, body := range []string{
		`{"n":"engagement","e":null,"u":"https://bench.test/"}`, // null e: Unmarshal's 0 would count
		`{"n":"pageview","u":"https://bench.test/\u00e9"}`,      // an escape
		`{"n":"pageview","N":"x","u":"https://bench.test/"}`,    // another letter case
		`{"n":"pageview","n":"x","u":"https://bench.test/"}`,    // a repeated key
		`{"n":"pageview","page":"/x","u":"https://bench.test/"}`,
	} {
		if scanAsUnmarshal(t, []byte(body)) {
			t.Errorf("the scanner took %s", body)
		}
	}
}

// FuzzScanPlausible: whatever the body, a body the scanner takes decodes as Unmarshal decodes it.
func FuzzScanPlausible(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 5))
	for range 50 {
		f.Add(randomBody(r))
	}
	f.Add([]byte(`{"n":"engagement","sd":45,"d":"bench.test","u":"https://bench.test/a","e":4200,"v":36}`))
	f.Fuzz(func(t *testing.T, body []byte) { scanAsUnmarshal(t, body) })
}
