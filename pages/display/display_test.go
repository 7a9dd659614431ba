package display

import (
	"testing"

	"github.com/analytics-service/analytics/stats"
)

// Codes read as names on the pages; the stored value (for filters, CSV and the API) is not
// touched, and a code nobody knows stays as it is.
func TestDisplayNames(t *testing.T) {
	for _, tc := range []struct {
		name        stats.Name
		value, want string
	}{
		{stats.Country, "US:United States", "United States"},
		{stats.Continent, "EU:Europe", "Europe"},
		{stats.Continent, "EU", "Europe"},
		{stats.Continent, "XX", "XX"},
		{stats.Country, "DE", "Germany"},
		{stats.Country, "DE:", "Germany"},
		{stats.Country, "QQ", "QQ"},
		{stats.Country, "276", "276"},
		{stats.Country, "", "Unknown"},
		{stats.City, "US:New York, NY", "New York, NY (US)"},
		{stats.Language, "de", "German"},
		{stats.Language, "en", "English"},
		{stats.Language, "pt", "Portuguese"},
		{stats.Language, "zz", "zz"},
		{stats.Language, "<b>", "<b>"},
		{stats.Language, "", "Unknown"},
		{stats.Page, "de", "de"},
	} {
		if got := Value(tc.name, tc.value); got != tc.want {
			t.Errorf("%s %q: %q, want %q", tc.name, tc.value, got, tc.want)
		}
	}
}
