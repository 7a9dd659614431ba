package stats

import "testing"

func TestSplitEvent(t *testing.T) {
	for v, want := range map[string]EventParts{
		"Purchase:5:USD":         {"Purchase", "5", "USD"},
		"Signup::":               {"Signup", "", ""},
		"Outbound Link  Click::": {"Outbound Link  Click", "", ""},
		"Video::minutes":         {"Video", "", "minutes"},
		Other:                    {Other, "", ""},
	} {
		if got := SplitEvent(v); got != want {
			t.Errorf("%q: %+v, want %+v", v, got, want)
		}
	}
	spellings := map[string]string{EventField("Outbound Link: Click"): "Outbound Link: Click"}
	if got := EventNameSpelled("Outbound Link  Click", spellings); got != "Outbound Link: Click" {
		t.Errorf("spelled %q", got)
	}
	if got := EventNameSpelled("Signup", spellings); got != "Signup" {
		t.Errorf("spelled %q", got)
	}
}
