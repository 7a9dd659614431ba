package filterform

import (
	"net/url"
	"testing"

	"github.com/analytics-service/analytics/stats"
)

// A chip's filter is replaced by the one sent (its operator and values changed), the others
// kept in order; a negation of two values is filter_not of both.
func TestApplyReplacesTheChipsFilter(t *testing.T) {
	filters, err := stats.ParseFilters(url.Values{"filter[browser]": {"Chrome"}, "filter[country]": {"DE:Germany"}})
	if err != nil {
		t.Fatal(err)
	}
	edit := -1
	for i, f := range filters {
		if f.Name == stats.Browser {
			edit = i
		}
	}
	errs := stats.FieldErrors{}
	q := url.Values{NameParam: {"browser"}, OpParam: {"is_not"}, ValueParam: {"Safari", " Edge "}, EditParam: {string(rune('0' + edit))}}
	got := Apply(q, filters, errs)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := url.Values{"filter_not[browser]": {"Safari|Edge"}, "filter[country]": {"DE:Germany"}}
	if got.Query().Encode() != want.Encode() {
		t.Errorf("filters %v, want %v", got.Query(), want)
	}
	if OpOf(got[0]).Value != "is_not" && OpOf(got[1]).Value != "is_not" {
		t.Errorf("the dialog reopens on %v", got)
	}
	if OpOf(stats.Filter{Op: stats.AnyOf}).Value != "is" {
		t.Error("is any of reopens as another operator than is")
	}
}
