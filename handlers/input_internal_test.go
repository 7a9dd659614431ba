package handlers

import (
	"net/url"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/analytics-service/analytics/gen"
	"github.com/analytics-service/analytics/stats"
)

// The generated binder's refusal is a 422 naming the field even where the validator would let
// a value through, so that no value of any field can become a 500.
func TestCheckFormNamesUnbindableFields(t *testing.T) {
	spec, err := gen.GetSwagger()
	if err != nil {
		t.Fatal(err)
	}
	ops, err := operationInputs(spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"POST /api/v1/websites", "PUT /api/v1/websites/{id}", "PATCH /api/v1/websites/{id}"} {
		op := ops[id].form
		if op == nil {
			t.Fatalf("%s is not a form operation", id)
		}
		fields := stats.FieldErrors{}
		checkForm(url.Values{"privacy": {"true"}, "email": {"1.5"}, "exclude_bots": {"1"}}, op, fields)
		if len(fields) != 2 || fields["privacy"][0] != "must be one of 0, 1, 2" || fields["email"][0] != "must be one of 0, 1" {
			t.Fatalf("%s: %#v", id, fields)
		}
	}
}

// A form operation the handlers have no body type for stops the server from starting.
func TestFormOperationWithoutBodyType(t *testing.T) {
	schema := openapi3.NewObjectSchema().WithProperty("x", openapi3.NewStringSchema())
	op := &openapi3.Operation{OperationID: "newThing", Responses: openapi3.NewResponses(),
		RequestBody: &openapi3.RequestBodyRef{Value: openapi3.NewRequestBody().WithContent(openapi3.Content{
			"application/x-www-form-urlencoded": openapi3.NewMediaType().WithSchema(schema)})}}
	spec := &openapi3.T{Paths: openapi3.NewPaths(openapi3.WithPath("/things", &openapi3.PathItem{Post: op}))}
	if _, err := operationInputs(spec); err == nil {
		t.Fatal("no error for a form operation without a body type")
	}
}
