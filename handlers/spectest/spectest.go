// Package spectest checks HTTP responses against openapi.yaml in tests, so that the spec
// cannot drift from the code.
package spectest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	analytics "github.com/analytics-service/analytics"
)

var (
	once    sync.Once
	spec    *openapi3.T
	router  routers.Router
	errLoad error
)

func load(t testing.TB) (*openapi3.T, routers.Router) {
	t.Helper()
	once.Do(func() {
		// The documentation page and the tracker script: kin-openapi decodes only text/plain of
		// the text types.
		openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
		openapi3filter.RegisterBodyDecoder("application/javascript", openapi3filter.PlainBodyDecoder)
		loader := openapi3.NewLoader()
		spec, errLoad = loader.LoadFromData(analytics.OpenAPI)
		if errLoad != nil {
			return
		}
		if errLoad = spec.Validate(loader.Context); errLoad != nil {
			return
		}
		spec.Servers = nil // match any host
		router, errLoad = gorillamux.NewRouter(spec)
	})
	if errLoad != nil {
		t.Fatalf("load openapi.yaml: %v", errLoad)
	}
	return spec, router
}

// ValidateResponse fails the test when the response is not one the spec declares for the
// operation (status, headers, content type and body). A request the spec has no operation for
// (an unknown route or method) under /api/ must still answer an error status with the spec's
// Error body (QueryError under /api/v2/); every other path is the HTML side's, which the spec does not describe.
func ValidateResponse(t testing.TB, method, target string, status int, header http.Header, body []byte) {
	t.Helper()
	doc, router := load(t)
	req := httptest.NewRequest(method, target, nil)
	route, params, err := router.FindRoute(req)
	if err != nil && !strings.HasPrefix(req.URL.Path, "/api/") {
		return
	}
	if err != nil {
		if status < 400 {
			t.Fatalf("%s %s: %d for a request the spec has no operation for", method, target, status)
		}
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatalf("%s %s: error body is not JSON: %s", method, target, body)
		}
		schema := "Error"
		// The query API's own error body, and Plausible's of the Sites API (a 405 there).
		if strings.HasPrefix(req.URL.Path, "/api/v2/") || req.URL.Path == "/api/v1/sites" || strings.HasPrefix(req.URL.Path, "/api/v1/sites/") {
			schema = "QueryError"
		}
		if err := doc.Components.Schemas[schema].Value.VisitJSON(v); err != nil {
			t.Fatalf("%s %s: error body does not match the %s schema: %v\n%s", method, target, schema, err, body)
		}
		return
	}
	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: req, PathParams: params, Route: route,
		},
		Status:  status,
		Header:  header,
		Body:    io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), input); err != nil {
		t.Fatalf("%s %s: response %d does not match openapi.yaml: %v\n%s", method, target, status, err, body)
	}
}

// OperationID is the spec's operationId for a request, or "" when the spec has no operation for
// it.
func OperationID(t testing.TB, method, target string) string {
	t.Helper()
	_, router := load(t)
	route, _, err := router.FindRoute(httptest.NewRequest(method, target, nil))
	if err != nil {
		return ""
	}
	return route.Operation.OperationID
}

// OperationIDs lists every operationId of the spec.
func OperationIDs(t testing.TB) []string {
	t.Helper()
	doc, _ := load(t)
	var ids []string
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			ids = append(ids, op.OperationID)
		}
	}
	sort.Strings(ids)
	return ids
}
