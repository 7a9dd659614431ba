package importer

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"short", "short"},
		{strings.Repeat("a", 80), strings.Repeat("a", 80)},
		{strings.Repeat("a", 81), strings.Repeat("a", 80) + "…"},
		{strings.Repeat("é", 100), strings.Repeat("é", 80) + "…"},
		{"ok\xff\xfe", "ok\uFFFD"}, // a run of invalid bytes becomes one U+FFFD
	} {
		if got := Cut(c.in, 80); got != c.want || !utf8.ValidString(got) {
			t.Errorf("Cut(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := Quote(strings.Repeat("x", 1<<20)); len(got) > 90 {
		t.Errorf("Quote of 1 MiB: %d bytes", len(got))
	}
}

// TestTallyExact: up to the values a reason keeps, every count is exact.
func TestTallyExact(t *testing.T) {
	tally := NewTally()
	for i := range 100 {
		tally.Add("devices", fmt.Sprintf("d%02d", i), int64(i+1))
	}
	tally.Add("engagement", "", 7)
	got := tally.Reasons()
	if len(got) != 2 || got[0].Reason != "devices" || got[0].Total != 5050 || got[0].Estimated ||
		len(got[0].Values) != TopValues || got[0].Values[0] != (ValueCount{"d99", 100}) || got[0].More() != 80 {
		t.Fatalf("reasons %+v", got)
	}
	if got[1].Reason != "engagement" || got[1].Total != 7 || len(got[1].Values) != 0 || got[1].String() != "engagement: 7" {
		t.Errorf("a reason without values: %+v %q", got[1], got[1].String())
	}
}

// TestTallyHeavyHitters: past the values kept, a value more frequent than total/1000 is still
// found, its count a lower bound; memory holds 1,000 values whatever comes.
func TestTallyHeavyHitters(t *testing.T) {
	tally := NewTally()
	for i := range 200_000 {
		tally.Add("devices", fmt.Sprintf("rare %d", i), 1)
		if i%100 == 0 {
			tally.Add("devices", "Laptop", 1)
		}
	}
	r := tally.Reasons()[0]
	if !r.Estimated || r.Values[0].Value != "Laptop" || r.Values[0].Count > 2000 || r.Values[0].Count < 1000 ||
		len(tally.reasons["devices"].index) != tallyValues {
		t.Errorf("reason %+v, %d values kept", r.Values[:2], len(tally.reasons["devices"].index))
	}
	if s := r.String(); !strings.Contains(s, "more than 980 other values") || len(s) > 2000 {
		t.Errorf("line: %s", s)
	}
}
