package sources

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestReadTags(t *testing.T) {
	got := ReadTags("a=1&utm_source=Google&utm_medium=cpc&utm_campaign=spring%20sale&utm_term=running+shoes&utm_content=hero&source=s&ref=r&gclid=xyz&utm_source=second")
	want := Tags{UTMSource: "Google", UTMMedium: "cpc", UTMCampaign: "spring sale", UTMTerm: "running shoes", UTMContent: "hero", Source: "s", Ref: "r", ClickID: "gclid"}
	if got != want {
		t.Errorf("ReadTags =\n %+v, want\n %+v", got, want)
	}
	cases := map[string]Tags{
		"":                          {},
		"msclkid=1":                 {ClickID: "msclkid"},
		"gclid":                     {ClickID: "gclid"}, // present without a value still marks the click
		"msclkid=1&gclid=2":         {ClickID: "msclkid"},
		"utm%5Fsource=ig":           {UTMSource: "ig"},
		"utm_source=%zz&source=ok":  {Source: "ok"}, // a pair that cannot be unescaped is ignored
		"utm_source=":               {},
		"UTM_SOURCE=google":         {}, // tag names are case-sensitive, as in every analytics tool
		"&&utm_medium=email&":       {UTMMedium: "email"},
		"utm_term=a%40b.example":    {UTMTerm: Redacted},
		"utm_campaign=%FF%FEspring": {UTMCampaign: "\uFFFDspring"},
	}
	for query, want := range cases {
		if got := ReadTags(query); got != want {
			t.Errorf("ReadTags(%q) = %+v, want %+v", query, got, want)
		}
	}
}

func TestClean(t *testing.T) {
	long := strings.Repeat("é", 300)
	cases := map[string]string{
		"spring":                     "spring",
		long:                         strings.Repeat("é", MaxLength),
		"a\x00b":                     "a\uFFFDb",
		"bad\xffutf8":                "bad\uFFFDutf8",
		"contact me@example.com now": Redacted,
		"First.Last+tag@mail.co.uk":  Redacted,
		"@handle":                    "@handle",
		"team@home":                  "team@home",
		"a@b.":                       "a@b.",
		"+49 170 1234567":            Redacted,
		"555-123-4567 89":            Redacted,
		"123.456.789":                Redacted,
		"+49 (170) 123-456-78":       Redacted,
		"030/12345678":               Redacted,
		"id123456789":                Redacted,
		"12345678":                   "12345678",
		"2024-01-15":                 "2024-01-15",
		"2024-01-15 - 2024-02-15":    "2024-01-15 - 2024-02-15", // three separators end a run
		"1234 5678":                  "1234 5678",
	}
	for in, want := range cases {
		got := Clean(in)
		if got != want {
			t.Errorf("Clean(%.40q) = %.40q, want %.40q", in, got, want)
		}
		if !utf8.ValidString(got) || strings.IndexByte(got, 0) >= 0 || utf8.RuneCountInString(got) > MaxLength {
			t.Errorf("Clean(%.40q) = %.40q is not storable", in, got)
		}
	}
	// An e-mail address past the 255th character is redacted too: the check sees the whole tag.
	if got := Clean(strings.Repeat("x", 300) + " a@b.example"); got != Redacted {
		t.Errorf("an address after the cut was kept: %.40q", got)
	}
}

func FuzzReadTags(f *testing.F) {
	f.Add("utm_source=google&utm_medium=cpc&gclid=1")
	f.Add("utm_term=%FF&ref=a%40b.c")
	f.Fuzz(func(t *testing.T, query string) {
		tags := ReadTags(query)
		for _, v := range []string{tags.UTMSource, tags.UTMMedium, tags.UTMCampaign, tags.UTMTerm, tags.UTMContent, tags.Source, tags.Ref} {
			if !utf8.ValidString(v) || strings.IndexByte(v, 0) >= 0 || utf8.RuneCountInString(v) > MaxLength {
				t.Fatalf("ReadTags(%q) kept %q", query, v)
			}
		}
		v := Resolve(query, "")
		if v.Channel == "" || utf8.RuneCountInString(v.Source) > MaxLength || !utf8.ValidString(v.Source) {
			t.Fatalf("Resolve(%q) = %+v", query, v)
		}
	})
}

func BenchmarkResolve(b *testing.B) {
	cases := []struct{ query, referrer string }{
		{"", ""},
		{"", "www.google.com"},
		{"id=7&utm_source=newsletter&utm_medium=email&utm_campaign=spring", ""},
		{"utm_source=fb&utm_medium=paid_social&utm_campaign=Summer%20Sale&fbclid=abc", "l.facebook.com"},
		{"", "blog.example.org"},
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		c := cases[i%len(cases)]
		Resolve(c.query, c.referrer)
	}
}
