package handlers

import (
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
)

// booleanRule is what a boolean parameter or form field must be on the wire. The spec says
// `type: boolean` (so generated clients get a real boolean), but kin-openapi and oapi-codegen's
// runtime both parse it with strconv.ParseBool, which also takes t, T, TRUE, True, f, F, FALSE
// and False; the contract allows exactly these four.
const booleanRule = "must be one of true, false, 1, 0"

var booleanSpellings = map[string]bool{"true": true, "false": true, "1": true, "0": true}

// inputRules are what checkInput enforces for one operation, read from the spec.
type inputRules struct {
	query     map[string]bool // declared query parameter -> is a boolean
	formBools []string        // boolean fields of the form body
	hasForm   bool
}

// checkInput runs after the request validator (so a request without a key is still a 401) and
// before the generated code binds parameters and body. It enforces what the validator lets
// through and the binder would get wrong:
//   - a boolean spelled other than true|false|1|0 is a 422 naming it;
//   - a declared query parameter sent twice is a 422 (the binder would answer 400);
//   - a form body is read from the body alone: echo's FormParams would merge the URL query into
//     it, so `PUT /websites/1?favorite=1` would set a field the validator never saw.
func checkInput(spec *openapi3.T) echo.MiddlewareFunc {
	rules := inputRulesByRoute(spec)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r, ok := rules[c.Request().Method+" "+c.Path()]
			if !ok {
				return next(c)
			}
			fields := fieldErrors{}
			query := c.QueryParams()
			for _, name := range sortedKeys(r.query) {
				switch v := query[name]; {
				case len(v) > 1:
					fields.add(name, "must be sent once")
				case len(v) == 1 && r.query[name] && !booleanSpellings[v[0]]:
					fields.add(name, booleanRule)
				}
			}
			if r.hasForm {
				req := c.Request()
				if err := req.ParseForm(); err != nil {
					fields.add("body", "is not a valid form")
				} else {
					req.Form = req.PostForm
					// A repeated field is refused later, with the other form fields.
					for _, name := range r.formBools {
						if v := req.PostForm[name]; len(v) == 1 && !booleanSpellings[v[0]] {
							fields.add(name, booleanRule)
						}
					}
				}
			}
			if len(fields) > 0 {
				return &apiError{status: http.StatusUnprocessableEntity, message: invalidMessage, fields: fields}
			}
			return next(c)
		}
	}
}

// inputRulesByRoute keys each operation's rules by method and echo route path
// ("PUT /api/v1/websites/:id"), which is what the middleware sees.
func inputRulesByRoute(spec *openapi3.T) map[string]inputRules {
	out := map[string]inputRules{}
	for path, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			r := inputRules{query: map[string]bool{}}
			for _, p := range append(append(openapi3.Parameters{}, item.Parameters...), op.Parameters...) {
				if p.Value != nil && p.Value.In == openapi3.ParameterInQuery {
					r.query[p.Value.Name] = isBoolean(p.Value.Schema)
				}
			}
			if form := formSchema(op); form != nil {
				r.hasForm = true
				for _, name := range sortedKeys(form.Properties) {
					if isBoolean(form.Properties[name]) {
						r.formBools = append(r.formBools, name)
					}
				}
			}
			out[method+" "+echoPath(path)] = r
		}
	}
	return out
}

func formSchema(op *openapi3.Operation) *openapi3.Schema {
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return nil
	}
	mt := op.RequestBody.Value.Content.Get(echo.MIMEApplicationForm)
	if mt == nil || mt.Schema == nil {
		return nil
	}
	return mt.Schema.Value
}

func isBoolean(ref *openapi3.SchemaRef) bool {
	return ref != nil && ref.Value != nil && ref.Value.Type.Is(openapi3.TypeBoolean)
}

// echoPath turns /websites/{id} into /websites/:id.
func echoPath(path string) string {
	parts := strings.Split(path, "/")
	for i, p := range parts {
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") {
			parts[i] = ":" + p[1:len(p)-1]
		}
	}
	return strings.Join(parts, "/")
}
