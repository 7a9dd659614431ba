package stats_test

import (
	"reflect"
	"testing"

	"github.com/analytics-service/analytics/stats"
)

func TestFieldErrors(t *testing.T) {
	f := stats.FieldErrors{}
	f.Add("page", "must be an integer")
	f.Add("to", "must be a date in the form YYYY-MM-DD")
	f.Add("page", "must be sent once")
	want := map[string][]string{"page": {"must be an integer", "must be sent once"}, "to": {"must be a date in the form YYYY-MM-DD"}}
	if !reflect.DeepEqual(map[string][]string(f), want) {
		t.Fatalf("%v, want %v", f, want)
	}
}
