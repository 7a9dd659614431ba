package analytics_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestBreakingChangeCheck is the test of `make check-breaking`: the spec as it is passes, and
// each kind of change that breaks a generated client fails it, naming the change.
func TestBreakingChangeCheck(t *testing.T) {
	spec, err := os.ReadFile("openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, check string
		edits       []string // old, new, old, new, ...
	}{
		{"unchanged", "", nil},
		{"a new optional response field", "", []string{
			"        favorite:\n          type: boolean\n        timezone:",
			"        favorite:\n          type: boolean\n        note:\n          type: string\n        timezone:"}},
		{"an operationId renamed", "api-operation-id-removed", []string{
			"operationId: listWebsites", "operationId: listSites"}},
		{"a query parameter renamed", "request-parameter-removed", []string{
			"      name: per_page\n", "      name: page_size\n"}},
		{"a path parameter renamed", "api-path-removed-without-deprecation", []string{
			"/api/v1/stats/{website_id}:", "/api/v1/stats/{site_id}:",
			"        - name: website_id\n          in: path", "        - name: site_id\n          in: path"}},
		{"a schema renamed", "api-schema-removed", []string{
			"'#/components/schemas/StatEntry'", "'#/components/schemas/Entry'",
			"\n    StatEntry:\n", "\n    Entry:\n"}},
		{"a response field removed", "response-required-property-removed", []string{
			"exclude_ips, favorite, timezone", "exclude_ips, timezone",
			"        favorite:\n          type: boolean\n        timezone:", "        timezone:"}},
		{"an optional response field removed", "response-optional-property-removed", []string{
			"          description: On 422 only; each invalid field with its messages.\n", "",
			"        errors:\n          type: object\n          additionalProperties:\n            type: array\n            items:\n              type: string\n", ""}},
		{"a form field removed", "request-property-removed", []string{
			"        exclude_params:\n          type: string\n          maxLength: 10000\n        exclude_ips:\n          type: string\n          maxLength: 10000\n        favorite:",
			"        exclude_ips:\n          type: string\n          maxLength: 10000\n        favorite:"}},
		{"favorite back to a string enum", "request-parameter-became-enum", []string{
			"      anyOf:\n        - type: boolean\n        - type: integer\n          enum: [0, 1]\n", "      type: string\n      enum: ['true', 'false', '1', '0']\n"}},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			edited := string(spec)
			for i := 0; i < len(c.edits); i += 2 {
				if !strings.Contains(edited, c.edits[i]) {
					t.Fatalf("the edit no longer applies to openapi.yaml: %q not found", c.edits[i])
				}
				edited = strings.ReplaceAll(edited, c.edits[i], c.edits[i+1])
			}
			file := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".yaml")
			if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command("scripts/check-breaking.sh", file).CombinedOutput()
			if c.check == "" {
				if err != nil {
					t.Fatalf("the check failed: %v\n%s", err, out)
				}
				return
			}
			if err == nil || !strings.Contains(string(out), "["+c.check+"]") {
				t.Fatalf("want a failure naming %s, got err %v:\n%s", c.check, err, out)
			}
		})
	}
}

// TestKeepsReleasedNames: generated clients name types after every component of the spec (the
// Go client has a type per schema, parameter, response and request body) and methods after the
// operation ids. oasdiff catches a removed operation id or schema; this catches the other
// components, which it does not compare by name.
func TestKeepsReleasedNames(t *testing.T) {
	released, current := load(t, "openapi-v1-baseline.yaml"), load(t, "openapi.yaml")
	kinds := []struct {
		kind     string
		released []string
		current  []string
	}{
		{"operationId", operationIDs(released), operationIDs(current)},
		{"schema", keys(released.Components.Schemas), keys(current.Components.Schemas)},
		{"parameter", keys(released.Components.Parameters), keys(current.Components.Parameters)},
		{"response", keys(released.Components.Responses), keys(current.Components.Responses)},
		{"request body", keys(released.Components.RequestBodies), keys(current.Components.RequestBodies)},
		{"header", keys(released.Components.Headers), keys(current.Components.Headers)},
		{"security scheme", keys(released.Components.SecuritySchemes), keys(current.Components.SecuritySchemes)},
	}
	for _, k := range kinds {
		have := map[string]bool{}
		for _, name := range k.current {
			have[name] = true
		}
		for _, name := range k.released {
			if !have[name] {
				t.Errorf("the released %s %q is gone from openapi.yaml", k.kind, name)
			}
		}
	}
}

func load(t *testing.T, file string) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromFile(file)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return doc
}

func operationIDs(doc *openapi3.T) []string {
	var ids []string
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			ids = append(ids, op.OperationID)
		}
	}
	return ids
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestFlagSaysWhatTheServerTakes: a tool that reads only the schema (a validating proxy, a
// contract tester) must accept what the server accepts for a Flag, `1` and `0` included, and
// refuse what it refuses.
func TestFlagSaysWhatTheServerTakes(t *testing.T) {
	doc := load(t, "openapi.yaml")
	flag := doc.Components.Schemas["Flag"].Value
	for _, v := range []any{true, false, 1, 0} {
		if err := flag.VisitJSON(v); err != nil {
			t.Errorf("Flag refuses %v, which the server accepts: %v", v, err)
		}
	}
	for _, v := range []any{"yes", 2, -1, "true"} {
		if err := flag.VisitJSON(v); err == nil {
			t.Errorf("Flag accepts %#v, which the server refuses", v)
		}
	}
}
