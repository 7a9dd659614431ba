package handlers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
	"github.com/oapi-codegen/runtime"

	"github.com/analytics-service/analytics/gen"
	"github.com/analytics-service/analytics/stats"
)

// formBodies are the generated types that the strict handlers bind each form operation's body
// into, by operation id in lower case (the embedded spec capitalises ids). Every operation with
// a form body in the spec needs one (New fails otherwise), so that its fields are checked
// against the same binder before it runs.
var formBodies = map[string]func() any{
	"storewebsite":      func() any { return new(gen.StoreWebsiteFormdataRequestBody) },
	"updatewebsite":     func() any { return new(gen.UpdateWebsiteFormdataRequestBody) },
	"patchwebsite":      func() any { return new(gen.PatchWebsiteFormdataRequestBody) },
	"storegoal":         func() any { return new(gen.StoreGoalFormdataRequestBody) },
	"storefunnel":       func() any { return new(gen.StoreFunnelFormdataRequestBody) },
	"resetwebsitestats": func() any { return new(gen.ResetWebsiteStatsFormdataRequestBody) },
	"setalerts":         func() any { return new(gen.SetAlertsFormdataRequestBody) },
	"storesegment":      func() any { return new(gen.StoreSegmentFormdataRequestBody) },
	"updatesegment":     func() any { return new(gen.UpdateSegmentFormdataRequestBody) },
	"storeannotation":   func() any { return new(gen.StoreAnnotationFormdataRequestBody) },
	"updateannotation":  func() any { return new(gen.UpdateAnnotationFormdataRequestBody) },
	// Plausible's Sites API, which takes JSON too (formOperation.json).
	"plausiblecreatesite":       func() any { return new(gen.PlausibleCreateSiteFormdataRequestBody) },
	"plausibleupdatesite":       func() any { return new(gen.PlausibleUpdateSiteFormdataRequestBody) },
	"plausiblesharedlink":       func() any { return new(gen.PlausibleSharedLinkFormdataRequestBody) },
	"plausiblegoal":             func() any { return new(gen.PlausibleGoalFormdataRequestBody) },
	"plausibledeletegoal":       func() any { return new(gen.PlausibleDeleteGoalFormdataRequestBody) },
	"plausiblecustomprop":       func() any { return new(gen.PlausibleCustomPropFormdataRequestBody) },
	"plausibledeletecustomprop": func() any { return new(gen.PlausibleDeleteCustomPropFormdataRequestBody) },
	"plausibleguest":            func() any { return new(gen.PlausibleGuestFormdataRequestBody) },
	"plausibledeleteguest":      func() any { return new(gen.PlausibleDeleteGuestFormdataRequestBody) },
}

// operationInput is what the API checks of one operation's input after the validator, for
// what kin-openapi lets through and the generated binders or PostgreSQL would refuse.
type operationInput struct {
	query map[string]*openapi3.Schema // the declared query parameters
	form  *formOperation              // nil when the operation takes no form
}

// booleanRule is what a boolean parameter or form field must be on the wire. The spec says
// a boolean or the integer 0 or 1 (Flag: generated clients get a real boolean), but
// kin-openapi and oapi-codegen's runtime both parse it with strconv.ParseBool, which also takes
// t, T, TRUE, True, f, F, FALSE and False; the contract allows exactly these four.
const booleanRule = "must be one of true, false, 1, 0"

var booleanSpellings = map[string]bool{"true": true, "false": true, "1": true, "0": true}

// isBoolean: a boolean, or a choice of which one is a boolean (Flag).
func isBoolean(schema *openapi3.Schema) bool {
	if schema == nil {
		return false
	}
	for _, s := range schema.AnyOf {
		if s.Value != nil && s.Value.Type.Is(openapi3.TypeBoolean) {
			return true
		}
	}
	return schema.Type.Is(openapi3.TypeBoolean)
}

// formOperation is what the API knows of one operation's form body.
type formOperation struct {
	fields  map[string]*openapi3.Schema // accepted fields and their schemas
	newBody func() any
	json    bool // the operation takes a JSON body too, which the validator checks alone
}

// operationInputs reads, from the spec, the query parameters and form fields of every
// operation, by "METHOD /path/{param}" (see specRoute).
func operationInputs(spec *openapi3.T) (map[string]operationInput, error) {
	out := map[string]operationInput{}
	for path, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			in := operationInput{query: map[string]*openapi3.Schema{}}
			for _, p := range append(append(openapi3.Parameters{}, item.Parameters...), op.Parameters...) {
				if p.Value != nil && p.Value.In == openapi3.ParameterInQuery {
					var schema *openapi3.Schema
					if p.Value.Schema != nil {
						schema = p.Value.Schema.Value
					}
					in.query[p.Value.Name] = schema
				}
			}
			form, err := formOf(op)
			if err != nil {
				return nil, err
			}
			in.form = form
			out[method+" "+path] = in
		}
	}
	return out, nil
}

func formOf(op *openapi3.Operation) (*formOperation, error) {
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return nil, nil
	}
	mt := op.RequestBody.Value.Content.Get(echo.MIMEApplicationForm)
	if mt == nil || mt.Schema == nil {
		return nil, nil
	}
	newBody, ok := formBodies[strings.ToLower(op.OperationID)]
	if !ok {
		return nil, fmt.Errorf("operation %s takes a form but handlers.formBodies has no body type for it", op.OperationID)
	}
	fields := map[string]*openapi3.Schema{}
	for name, prop := range mt.Schema.Value.Properties {
		fields[name] = prop.Value
	}
	json := op.RequestBody.Value.Content.Get(echo.MIMEApplicationJSON) != nil
	return &formOperation{fields: fields, newBody: newBody, json: json}, nil
}

var echoParam = regexp.MustCompile(`:([A-Za-z0-9_]+)`)

// specRoute turns an echo route ("/api/v1/websites/:id") into its key in operationInputs.
func specRoute(method, echoPath string) string {
	return method + " " + echoParam.ReplaceAllString(echoPath, "{$1}")
}

// checkInput runs after the validator (so a request without a key is still a 401). It reads
// the filters of an operation that takes them (stats.ParseFilters: kin-openapi drops unknown
// names of a deepObject silently, and the generated binder would answer 400 for them) and
// hands them to the handler (filtersOf). It refuses a declared query parameter sent twice
// (the generated binder's error would be a 400 the contract does not have), text PostgreSQL
// cannot store or compare (NUL, invalid UTF-8), and a boolean spelled other than
// true|false|1|0. On an operation that takes a form, it makes
// the body the only source of the form: Go's ParseForm, which the generated handlers call
// through echo, merges the URL query into r.Form, so `?privacy=1` would act as a body field
// that the validator (which checks the body) never saw. It then refuses what kin-openapi lets
// through: fields the operation does not accept, a field sent twice, and any value the
// generated binder could not bind (a 422 naming the field rather than the binder's error as a
// 500).
func checkInput(in operationInput) echo.MiddlewareFunc {
	_, filtered := in.query[stats.FilterParam]
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			fields := stats.FieldErrors{}
			query := c.QueryParams()
			for _, name := range sortedKeys(query) {
				// filter=x is ParseFilters' to refuse, below.
				if schema, declared := in.query[name]; declared && name != stats.FilterParam {
					checkValues(name, query[name], schema, fields)
				}
			}
			if filtered {
				filters, err := stats.ParseFilters(query)
				if err != nil {
					fields.Add(stats.FilterField(err), err.Error())
				}
				req = req.WithContext(context.WithValue(req.Context(), filtersKey{}, filters))
				c.SetRequest(req)
			}
			if in.form != nil && !isJSON(req) {
				values, err := readForm(req)
				if err != nil {
					return err
				}
				// Both set: ParseForm, called later by the generated handler, then parses nothing.
				req.PostForm, req.Form = values, values
				checkForm(values, in.form, fields)
			}
			if len(fields) > 0 {
				return &apiError{status: http.StatusUnprocessableEntity, message: invalidMessage, fields: fields}
			}
			return next(c)
		}
	}
}

// isJSON: the request says its body is JSON (requireForm let it through only to an
// operation that takes JSON).
func isJSON(req *http.Request) bool {
	mediaType, _, err := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType))
	return err == nil && mediaType == echo.MIMEApplicationJSON
}

type filtersKey struct{}

// filtersOf is the filters of the request, read by checkInput; nil when none were given.
func filtersOf(ctx context.Context) stats.Filters {
	f, _ := ctx.Value(filtersKey{}).(stats.Filters)
	return f
}

// checkValues refuses a value sent twice (but an array's, whose form repeats the field), text that is not UTF-8 or holds a NUL, and a boolean
// spelled otherwise than the contract's four ways.
func checkValues(name string, values []string, schema *openapi3.Schema, fields stats.FieldErrors) bool {
	if len(values) > 1 && (schema == nil || !schema.Type.Is(openapi3.TypeArray)) {
		fields.Add(name, "must be sent once")
		return false
	}
	for _, v := range values {
		if !stats.ValidText(v) {
			fields.Add(name, stats.TextRule)
			return false
		}
		if isBoolean(schema) && !booleanSpellings[v] {
			fields.Add(name, booleanRule)
			return false
		}
	}
	return true
}

// readForm parses the body, already bounded by the body limit, and puts it back for whoever
// reads it next.
func readForm(req *http.Request) (url.Values, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return url.Values{}, nil
	}
	body, err := io.ReadAll(req.Body)
	var tooLarge *echo.HTTPError
	if errors.As(err, &tooLarge) {
		return nil, asAPIError(err) // the body limit's 413
	}
	if err != nil {
		return nil, &apiError{status: http.StatusBadRequest, message: statusMessage(http.StatusBadRequest), cause: err}
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	values, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, &apiError{status: http.StatusUnprocessableEntity, message: invalidMessage,
			fields: stats.FieldErrors{"body": {"is not a valid form"}}}
	}
	return values, nil
}

func checkForm(values url.Values, op *formOperation, fields stats.FieldErrors) {
	for _, name := range sortedKeys(values) {
		schema, accepted := op.fields[name]
		switch {
		case !accepted:
			fields.Add(name, "is not accepted here")
		case !checkValues(name, values[name], schema, fields):
		case runtime.BindForm(op.newBody(), url.Values{name: values[name]}, nil, nil) != nil:
			fields.Add(name, describe(nil, &openapi3.SchemaRef{Value: schema}))
		}
	}
}

// dropOddRequestID forgets a client's X-Request-Id that is not a short token, so that the id
// echoed in the response and written to the log is either the proxy's or a fresh one, never
// ten kilobytes of a stranger's text.
func dropOddRequestID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Request().Header
		if id := h.Get(echo.HeaderXRequestID); id != "" && !requestIDPattern.MatchString(id) {
			h.Del(echo.HeaderXRequestID)
		}
		return next(c)
	}
}

var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)
