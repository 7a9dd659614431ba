package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/testkit/harness"
)

// TestTimeseriesMonthBound: v1's time series holds at most 10,000 buckets of months too (as
// hours 31 days and days 3,660): its 422 on interval, as for the others.
func TestTimeseriesMonthBound(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	id := int64(e.store(key, "domain", "example.com")["id"].(float64))
	path := func(from, to string) string {
		return fmt.Sprintf("/api/v1/stats/%d/timeseries?from=%s&to=%s&interval=month", id, from, to)
	}
	res := e.Do(harness.Request{Path: path("0001-01-01", "9999-12-31"), Key: key})
	wantField(t, res, "interval")
	if !strings.Contains(string(res.Body), "up to 10,000 months") {
		t.Errorf("the refusal does not say the bound: %s", res.Body)
	}
	want(t, e.Do(harness.Request{Path: path("1200-01-01", "2033-04-30"), Key: key}), http.StatusOK)
}
