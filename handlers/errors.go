package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/labstack/echo/v4"

	"github.com/analytics-service/analytics/gen"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// apiError is an error that leaves as the contract's error body with its own status.
type apiError struct {
	status  int
	message string
	fields  stats.FieldErrors // 422 only
	cause   error             // logged, never sent
	// retryAfter is the Retry-After of a 429, in seconds; 0 means 1.
	retryAfter int
}

func (e *apiError) Error() string {
	if e.cause != nil {
		return fmt.Sprintf("%d %s: %v", e.status, e.message, e.cause)
	}
	return fmt.Sprintf("%d %s", e.status, e.message)
}

func (e *apiError) Unwrap() error { return e.cause }

const invalidMessage = "The given data was invalid."

// invalidBody is the 422 body of refused fields.
func invalidBody(f stats.FieldErrors) gen.Error {
	errs := map[string][]string(f)
	return gen.Error{Message: invalidMessage, Status: http.StatusUnprocessableEntity, Errors: &errs}
}

func invalid(field, message string) gen.Error {
	return invalidBody(stats.FieldErrors{field: {message}})
}

func notFound() gen.Error {
	return gen.Error{Message: "Website not found.", Status: http.StatusNotFound}
}

// statusMessages are the sentences for errors that carry no message of their own.
var statusMessages = map[int]string{
	http.StatusBadRequest:            "The request is malformed.",
	http.StatusUnauthorized:          "Unauthenticated.",
	http.StatusForbidden:             "Forbidden.",
	http.StatusNotFound:              "Not found.",
	http.StatusMethodNotAllowed:      "Method not allowed.",
	http.StatusRequestEntityTooLarge: "The request body is too large.",
	http.StatusUnsupportedMediaType:  "The request body must be application/x-www-form-urlencoded.",
	http.StatusTooManyRequests:       "Too many requests.",
	http.StatusInternalServerError:   "Internal server error.",
	http.StatusServiceUnavailable:    "Service unavailable.",
}

func statusMessage(status int) string {
	if m, ok := statusMessages[status]; ok {
		return m
	}
	return http.StatusText(status) + "."
}

// errorHandler writes every error as the contract's JSON body. A 5xx is logged with its
// request id and cause; the client gets only a generic sentence and the id, but for stats
// reads stopped by the query timeout, whose 503 says so.
func errorHandler(log *slog.Logger, queryTimeout time.Duration) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		e := asAPIError(err)
		requestID := c.Response().Header().Get(echo.HeaderXRequestID)
		switch {
		case repository.TimedOut(err):
			e = timedOut(queryTimeout, err)
			log.Warn("query stopped", "request_id", requestID, "method", c.Request().Method, "route", c.Path(), "error", err)
		case e.status >= 500:
			log.Error("request failed",
				"request_id", requestID, "method", c.Request().Method, "route", c.Path(), "status", e.status, "error", err)
			e.message = statusMessage(e.status)
		}
		if isQueryAPI(c) {
			writeQueryError(c, e, log)
			return
		}
		h := c.Response().Header()
		switch e.status {
		case http.StatusUnauthorized:
			h.Set(echo.HeaderWWWAuthenticate, "Bearer")
		case http.StatusTooManyRequests, http.StatusServiceUnavailable:
			h.Set(echo.HeaderRetryAfter, strconv.Itoa(max(e.retryAfter, 1)))
		}
		body := gen.Error{Message: e.message, Status: e.status}
		if e.status == http.StatusUnprocessableEntity {
			fields := map[string][]string(e.fields)
			if fields == nil {
				fields = map[string][]string{}
			}
			body.Errors = &fields
		}
		if err := c.JSON(e.status, body); err != nil {
			log.Error("write error response", "error", err)
		}
	}
}

func asAPIError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		if inner := new(apiError); errors.As(he.Internal, &inner) {
			return inner
		}
		message := statusMessage(he.Code)
		if he.Code == http.StatusNotFound && he.Internal == nil {
			message = "No such route."
		}
		return &apiError{status: he.Code, message: message, cause: he.Internal}
	}
	return &apiError{status: http.StatusInternalServerError, cause: err}
}

// validationError turns the request validator's refusal into the contract's answer: the
// authentication failure passes through; a path parameter that cannot be an id is an unknown
// id (404); anything else about the input is a 422 naming the field. A refused `filter` says
// what stats.ParseFilters says of it, as when checkInput refuses it; so does a refused
// `property_filter`, on its own name.
func validationError(c echo.Context, err *echo.HTTPError) error {
	var reqErr *openapi3filter.RequestError
	var multi openapi3.MultiError
	if !errors.As(err, &reqErr) && errors.As(err, &multi) {
		return multiError(multi)
	}
	if reqErr == nil {
		if err.Internal == nil {
			return err
		}
		var inner *echo.HTTPError
		if errors.As(err.Internal, &inner) {
			return inner
		}
		return err
	}
	if p := reqErr.Parameter; p != nil {
		if p.In == openapi3.ParameterInPath {
			return &apiError{status: http.StatusNotFound, message: "Website not found."}
		}
		message, field := describe(reqErr.Err, p.Schema), p.Name
		if stats.IsFilterParam(p.Name) { // the four filter parameters answer on `filter`, property_filter on itself
			field = stats.FilterParam
			if p.Name == stats.PropertyFilterParam {
				field = p.Name
			}
			if _, err := stats.ParseFilters(c.QueryParams()); err != nil {
				message, field = err.Error(), stats.FilterField(err)
			}
		}
		return &apiError{status: http.StatusUnprocessableEntity, message: invalidMessage,
			fields: stats.FieldErrors{field: {message}}}
	}
	if rb := reqErr.RequestBody; rb != nil {
		return bodyError(reqErr, rb)
	}
	return &apiError{status: http.StatusUnprocessableEntity, message: invalidMessage,
		fields: stats.FieldErrors{"request": {reqErr.Error()}}}
}

// multiError reports the schema errors that kin-openapi groups (allOf, oneOf) before
// echo-middleware can say which parameter or field they came from; each names its field by
// its JSON pointer.
func multiError(multi openapi3.MultiError) error {
	fields := stats.FieldErrors{}
	for _, err := range multi {
		field := "request"
		var schemaErr *openapi3.SchemaError
		if errors.As(err, &schemaErr) {
			if path := schemaErr.JSONPointer(); len(path) > 0 {
				field = path[0]
			}
		}
		fields.Add(field, describe(err, nil))
	}
	return &apiError{status: http.StatusUnprocessableEntity, message: invalidMessage, fields: fields}
}

func bodyError(reqErr *openapi3filter.RequestError, rb *openapi3.RequestBody) error {
	var schema *openapi3.Schema
	if mt := rb.Content.Get(echo.MIMEApplicationForm); mt != nil && mt.Schema != nil {
		schema = mt.Schema.Value
	}
	fields := stats.FieldErrors{}
	if errors.Is(reqErr.Err, openapi3filter.ErrInvalidRequired) && schema != nil {
		// No body at all: every required field is missing.
		for _, name := range schema.Required {
			fields.Add(name, "is required")
		}
		return &apiError{status: http.StatusUnprocessableEntity, message: invalidMessage, fields: fields}
	}
	field, fieldSchema := "body", schema
	var schemaErr *openapi3.SchemaError
	var parseErr *openapi3filter.ParseError
	switch {
	case errors.As(reqErr.Err, &schemaErr):
		if path := schemaErr.JSONPointer(); len(path) > 0 {
			field = path[0]
		} else if schemaErr.SchemaField == "required" {
			field = strings.TrimSuffix(strings.TrimPrefix(schemaErr.Reason, `property "`), `" is missing`)
		} else if strings.HasSuffix(schemaErr.Reason, `" is unsupported`) {
			// A JSON body's unknown field: named, as a form's is (checkForm).
			name := strings.TrimSuffix(strings.TrimPrefix(schemaErr.Reason, `property "`), `" is unsupported`)
			fields.Add(name, "is not accepted here")
			for _, missing := range missingRequired(reqErr.Input, schema) {
				fields.Add(missing, "is required")
			}
			return &apiError{status: http.StatusUnprocessableEntity, message: invalidMessage, fields: fields}
		}
	case errors.As(reqErr.Err, &parseErr):
		if path := parseErr.Path(); len(path) > 0 {
			field = fmt.Sprint(path[0])
			// An array's element is named by its index before the field's name: the field.
			for _, p := range path {
				if name, ok := p.(string); ok && schema != nil && schema.Properties[name] != nil {
					field = name
				}
			}
		}
	}
	if schema != nil {
		if prop, ok := schema.Properties[field]; ok {
			fieldSchema = prop.Value
		}
	}
	fields.Add(field, describe(reqErr.Err, &openapi3.SchemaRef{Value: fieldSchema}))
	return &apiError{status: http.StatusUnprocessableEntity, message: invalidMessage, fields: fields}
}

// missingRequired are the required fields a body (JSON or a form) lacks, told beside its
// unknown field (the validator stops at the first refusal): a client that names a field
// otherwise, as provider-plausible sends a custom property's `key` for `property`, is told
// what is missing, in Plausible's sentence on the Sites API (sitesMissingSentence).
func missingRequired(in *openapi3filter.RequestValidationInput, schema *openapi3.Schema) []string {
	if in == nil || in.Request == nil || in.Request.Body == nil || schema == nil {
		return nil
	}
	body, err := io.ReadAll(in.Request.Body)
	in.Request.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return nil
	}
	got := map[string]bool{}
	if isJSON(in.Request) {
		var members map[string]json.RawMessage
		if json.Unmarshal(body, &members) != nil {
			return nil
		}
		for name := range members {
			got[name] = true
		}
	} else {
		values, err := url.ParseQuery(string(body))
		if err != nil {
			return nil
		}
		for name := range values {
			got[name] = true
		}
	}
	var out []string
	for _, name := range schema.Required {
		if !got[name] {
			out = append(out, name)
		}
	}
	return out
}

// describe says in a few words what a value must be, from the schema rule it broke.
func describe(err error, ref *openapi3.SchemaRef) string {
	var schema *openapi3.Schema
	if ref != nil {
		schema = ref.Value
	}
	var schemaErr *openapi3.SchemaError
	if errors.As(err, &schemaErr) && schemaErr.Schema != nil {
		schema = schemaErr.Schema
		switch schemaErr.SchemaField {
		case "required":
			return "is required"
		case "minimum":
			return fmt.Sprintf("must be at least %v", *schema.Min)
		case "maximum":
			return fmt.Sprintf("must be at most %v", *schema.Max)
		case "minItems", "maxItems":
			if schema.MaxItems != nil {
				return fmt.Sprintf("must be given %d to %d times", schema.MinItems, *schema.MaxItems)
			}
			return fmt.Sprintf("must be given at least %d times", schema.MinItems)
		case "minLength":
			return fmt.Sprintf("must be at least %d characters", schema.MinLength)
		case "maxLength":
			return fmt.Sprintf("must be at most %d characters", *schema.MaxLength)
		case "format":
			if schema.Format == "date" {
				return "must be a date in the form YYYY-MM-DD"
			}
			return "must be a valid " + schema.Format
		}
	}
	if errors.Is(err, openapi3filter.ErrInvalidRequired) {
		return "is required"
	}
	if schema == nil {
		return "is invalid"
	}
	// A field that is a named schema plus its own default (allOf: [$ref]) is that schema.
	for len(schema.Enum) == 0 && schema.Type == nil && len(schema.AllOf) == 1 && schema.AllOf[0].Value != nil {
		schema = schema.AllOf[0].Value
	}
	if len(schema.Enum) > 0 {
		values := make([]string, len(schema.Enum))
		for i, v := range schema.Enum {
			values[i] = fmt.Sprint(v)
		}
		return "must be one of " + strings.Join(values, ", ")
	}
	switch {
	case schema.Type.Is(openapi3.TypeInteger):
		return "must be an integer"
	case isBoolean(schema):
		return booleanRule
	}
	return "is invalid"
}

// sortedKeys is used to report unknown form fields in a stable order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
