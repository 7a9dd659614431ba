package handlers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
	"github.com/oapi-codegen/runtime"

	"github.com/analytics-service/analytics/gen"
)

// formBodies are the generated types that the strict handlers bind each form operation's body
// into, by operation id in lower case (the embedded spec capitalises ids). Every operation with
// a form body in the spec needs one (NewServer fails otherwise), so that its fields are checked
// against the same binder before it runs.
var formBodies = map[string]func() any{
	"storewebsite":  func() any { return new(gen.StoreWebsiteFormdataRequestBody) },
	"updatewebsite": func() any { return new(gen.UpdateWebsiteFormdataRequestBody) },
	"patchwebsite":  func() any { return new(gen.PatchWebsiteFormdataRequestBody) },
}

// formOperation is what the API knows of one operation's form body.
type formOperation struct {
	fields  map[string]*openapi3.Schema // accepted fields and their schemas
	newBody func() any
}

// formOperations reads, from the spec, which operations take a form and which fields each
// accepts, by "METHOD /path/{param}".
func formOperations(spec *openapi3.T) (map[string]formOperation, error) {
	out := map[string]formOperation{}
	for path, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			if op.RequestBody == nil || op.RequestBody.Value == nil {
				continue
			}
			mt := op.RequestBody.Value.Content.Get(echo.MIMEApplicationForm)
			if mt == nil || mt.Schema == nil {
				continue
			}
			newBody, ok := formBodies[strings.ToLower(op.OperationID)]
			if !ok {
				return nil, fmt.Errorf("operation %s takes a form but handlers.formBodies has no body type for it", op.OperationID)
			}
			fields := map[string]*openapi3.Schema{}
			for name, prop := range mt.Schema.Value.Properties {
				fields[name] = prop.Value
			}
			out[method+" "+path] = formOperation{fields: fields, newBody: newBody}
		}
	}
	return out, nil
}

// formBody runs after the validator on an operation that takes a form. It makes the body the
// only source of the form: Go's ParseForm, which the generated handlers call through echo,
// merges the URL query into r.Form, so `?privacy=1` would act as a body field that the
// validator (which checks the body) never saw. It then refuses what kin-openapi lets through:
// fields the operation does not accept, a field sent twice, and any value the generated binder
// could not bind (a 422 naming the field rather than the binder's error as a 500).
func formBody(op formOperation) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			values, err := readForm(req)
			if err != nil {
				return err
			}
			// Both set: ParseForm, called later by the generated handler, then parses nothing.
			req.PostForm, req.Form = values, values
			if err := checkForm(values, op); err != nil {
				return err
			}
			return next(c)
		}
	}
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
			fields: fieldErrors{"body": {"is not a valid form"}}}
	}
	return values, nil
}

func checkForm(values url.Values, op formOperation) error {
	fields := fieldErrors{}
	for _, name := range sortedKeys(values) {
		schema, accepted := op.fields[name]
		switch {
		case !accepted:
			fields.add(name, "is not accepted here")
		case len(values[name]) > 1:
			fields.add(name, "must be sent once")
		case runtime.BindForm(op.newBody(), url.Values{name: values[name]}, nil, nil) != nil:
			fields.add(name, describe(nil, &openapi3.SchemaRef{Value: schema}))
		}
	}
	if len(fields) > 0 {
		return &apiError{status: http.StatusUnprocessableEntity, message: invalidMessage, fields: fields}
	}
	return nil
}

var echoParam = regexp.MustCompile(`:([A-Za-z0-9_]+)`)

// specRoute turns an echo route ("/api/v1/websites/:id") into its key in formOperations.
func specRoute(method, echoPath string) string {
	return method + " " + echoParam.ReplaceAllString(echoPath, "{$1}")
}
