package web

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	analytics "github.com/analytics-service/analytics"
)

// The API documentation page is rendered once, when the process starts, from openapi.yaml as
// embedded in the binary: every operation with its parameters, form fields, answers and a curl
// example made from the spec's own examples. It is plain HTML with the pages' stylesheet and
// copy buttons (app.js): no framework, readable without JavaScript, a few dozen kilobytes
// where the Redoc page it replaces carried a 2.6 MB bundle.
//
//go:embed docs.tmpl
var docsTemplate string

var docs struct {
	plain, gzipped asset
}

func init() {
	page, err := renderDocs(analytics.OpenAPI)
	if err != nil {
		panic(err) // the spec is embedded at build time and checked by the tests
	}
	docs.plain = newAsset(page)
	docs.gzipped = newAsset(gzipBytes(page))
}

// docsPolicy is the page's Content-Security-Policy: the pages' stylesheet and script from this
// service, nothing inline, nothing from anywhere else.
const docsPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// DocsHandler serves the API documentation page (GET /api/v1/docs).
func DocsHandler() http.Handler {
	return http.HandlerFunc(serveDocs)
}

func serveDocs(w http.ResponseWriter, r *http.Request) {
	if methodNotAllowed(w, r) {
		return
	}
	h := w.Header()
	// Revalidated on every view (a cheap 304), so a new version shows at once.
	h.Set("Cache-Control", "no-cache")
	h.Set("Content-Security-Policy", docsPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	serveAsset(w, r, docs.plain, docs.gzipped, "text/html; charset=utf-8")
}

// docsPage is the data of docs.tmpl.
type docsPage struct {
	Title, Version string
	About          []docBlock
	Tags           []docTag
	// The stylesheets and script, relative to the page (/api/v1/docs), so that a PUBLIC_URL
	// prefix needs nothing; versioned like the pages' assets.
	CSS, DocsCSS, JS, Icon string
}

type docTag struct {
	Name  string
	About []docBlock
	Ops   []docOp
}

type docOp struct {
	ID, Method, Path, Summary string
	About                     []docBlock
	NeedsKey                  bool
	Params                    []docField // path, query and header parameters
	Fields                    []docField // form fields of the body
	Body                      string     // the content types of a non-form body
	Answers                   []docAnswer
	Curl                      string
}

type docField struct {
	Name, In, Type string
	Required       bool
	About          []docBlock
}

type docAnswer struct {
	Status string
	About  []docBlock
}

// renderDocs renders the documentation page of a spec.
func renderDocs(spec []byte) ([]byte, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(spec)
	if err != nil {
		return nil, fmt.Errorf("docs: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("docs: %w", err)
	}
	page := docsPage{Title: doc.Info.Title, Version: doc.Info.Version, About: markdown(doc.Info.Description),
		CSS: "../.." + AssetURL("app.css"), DocsCSS: "../.." + AssetURL("docs.css"), JS: "../.." + AssetURL("app.js"),
		Icon: "../.." + AssetURL("favicon.svg")}
	byTag := map[string]*docTag{}
	for _, t := range doc.Tags {
		page.Tags = append(page.Tags, docTag{Name: t.Name, About: markdown(t.Description)})
	}
	for i := range page.Tags {
		byTag[page.Tags[i].Name] = &page.Tags[i]
	}
	paths := doc.Paths.InMatchingOrder()
	sort.Strings(paths)
	for _, path := range paths {
		item := doc.Paths.Value(path)
		for _, method := range []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"} {
			op := item.GetOperation(method)
			if op == nil {
				continue
			}
			tag := "Other"
			if len(op.Tags) > 0 {
				tag = op.Tags[0]
			}
			t, ok := byTag[tag]
			if !ok {
				return nil, fmt.Errorf("docs: %s %s: tag %q is not declared", method, path, tag)
			}
			t.Ops = append(t.Ops, docOperation(doc, method, path, item, op))
		}
	}
	t, err := template.New("docs").Parse(docsTemplate)
	if err != nil {
		return nil, fmt.Errorf("docs: %w", err)
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, page); err != nil {
		return nil, fmt.Errorf("docs: %w", err)
	}
	return buf.Bytes(), nil
}

func docOperation(doc *openapi3.T, method, path string, item *openapi3.PathItem, op *openapi3.Operation) docOp {
	out := docOp{ID: op.OperationID, Method: method, Path: path, Summary: op.Summary, About: markdown(op.Description)}
	security := doc.Security
	if op.Security != nil {
		security = *op.Security
	}
	out.NeedsKey = len(security) > 0
	params := append(openapi3.Parameters{}, item.Parameters...)
	params = append(params, op.Parameters...)
	for _, p := range params {
		v := p.Value
		out.Params = append(out.Params, docField{Name: v.Name, In: v.In, Type: typeOf(v.Schema),
			Required: v.Required, About: markdown(v.Description)})
	}
	var form *openapi3.MediaType
	if op.RequestBody != nil && op.RequestBody.Value != nil {
		body := op.RequestBody.Value
		form = body.Content.Get("application/x-www-form-urlencoded")
		if form != nil && form.Schema != nil {
			s := form.Schema.Value
			for _, name := range sortedKeys(s.Properties) {
				prop := s.Properties[name]
				out.Fields = append(out.Fields, docField{Name: name, In: "form", Type: typeOf(prop),
					Required: slices.Contains(s.Required, name), About: markdown(prop.Value.Description)})
			}
		} else {
			var types []string
			for _, ct := range sortedKeys(body.Content) {
				types = append(types, ct)
			}
			out.Body = strings.Join(types, ", ")
		}
	}
	for _, status := range sortedKeys(op.Responses.Map()) {
		r := op.Responses.Value(status)
		if r == nil || r.Value == nil {
			continue
		}
		about := ""
		if r.Value.Description != nil {
			about = *r.Value.Description
		}
		out.Answers = append(out.Answers, docAnswer{Status: status, About: markdown(about)})
	}
	out.Curl = curlExample(method, path, out.NeedsKey, params, op)
	return out
}

// typeOf is a parameter's or field's type as the page shows it: "integer", "string (date)",
// "one of 10, 25, 50, 100", with its default.
func typeOf(ref *openapi3.SchemaRef) string {
	if ref == nil || ref.Value == nil {
		return ""
	}
	s := ref.Value
	var t string
	switch {
	case len(s.Enum) > 0:
		var values []string
		for _, e := range s.Enum {
			values = append(values, fmt.Sprint(e))
		}
		t = "one of " + strings.Join(values, ", ")
	case s.Type != nil && len(s.Type.Slice()) > 0:
		t = strings.Join(s.Type.Slice(), " or ")
		if s.Format != "" {
			t += " (" + s.Format + ")"
		}
	case len(s.OneOf) > 0 || len(s.AnyOf) > 0:
		var parts []string
		for _, o := range append(append(openapi3.SchemaRefs{}, s.OneOf...), s.AnyOf...) {
			parts = append(parts, typeOf(o))
		}
		t = strings.Join(parts, " or ")
	}
	if s.Default != nil {
		t += ", default " + fmt.Sprint(s.Default)
	}
	return t
}

// exampleOf is the spec's example of a parameter: its own, its schema's, its default, or its
// first allowed value; ok is false when the spec gives none.
func exampleOf(p *openapi3.Parameter) (string, bool) {
	if p.Example != nil {
		return fmt.Sprint(p.Example), true
	}
	for _, e := range p.Examples {
		if e.Value != nil && e.Value.Value != nil {
			return fmt.Sprint(e.Value.Value), true
		}
	}
	if p.Schema != nil && p.Schema.Value != nil {
		s := p.Schema.Value
		switch {
		case s.Example != nil:
			return fmt.Sprint(s.Example), true
		case s.Default != nil:
			return fmt.Sprint(s.Default), true
		case len(s.Enum) > 0:
			return fmt.Sprint(s.Enum[0]), true
		}
	}
	return "", false
}

// curlExample is a curl command for an operation, made only from the spec: the path with its
// parameters' examples, the required query parameters (and those with an example of their
// own), the key when the operation needs one, and the body of the request's example.
func curlExample(method, path string, needsKey bool, params openapi3.Parameters, op *openapi3.Operation) string {
	query := url.Values{}
	var headers []string
	for _, ref := range params {
		p := ref.Value
		value, ok := exampleOf(p)
		switch p.In {
		case openapi3.ParameterInPath:
			if !ok {
				value = "1"
			}
			path = strings.ReplaceAll(path, "{"+p.Name+"}", url.PathEscape(value))
		case openapi3.ParameterInQuery:
			if object, isMap := p.Example.(map[string]any); isMap && p.Style == openapi3.SerializationDeepObject {
				for _, key := range sortedKeys(object) { // filter[country]=DE:Germany
					query.Set(p.Name+"["+key+"]", fmt.Sprint(object[key]))
				}
			} else if p.Required || (ok && p.Example != nil) {
				query.Set(p.Name, value)
			}
		case openapi3.ParameterInHeader:
			if p.Required && ok {
				headers = append(headers, p.Name+": "+value)
			}
		}
	}
	target := "$BASE" + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	lines := []string{"curl"}
	switch {
	case method == "HEAD":
		lines[0] += " --head"
	case method != "GET" && !(method == "POST" && op.RequestBody != nil):
		lines[0] += " -X " + method
	}
	if needsKey {
		lines = append(lines, `-H "Authorization: Bearer $KEY"`)
	}
	for _, h := range headers {
		lines = append(lines, "-H "+shellQuote(h))
	}
	lines = append(lines, bodyArguments(op)...)
	lines = append(lines, `"`+target+`"`)
	return strings.Join(lines, " \\\n  ")
}

// bodyArguments are curl's arguments for the example of an operation's request body: a form as
// one --data-urlencode per field, JSON as one -d with its Content-Type.
func bodyArguments(op *openapi3.Operation) []string {
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return nil
	}
	content := op.RequestBody.Value.Content
	if form := content.Get("application/x-www-form-urlencoded"); form != nil {
		example, _ := form.Example.(map[string]any)
		var out []string
		for _, name := range sortedKeys(example) {
			out = append(out, "--data-urlencode "+shellQuote(name+"="+fmt.Sprint(example[name])))
		}
		return out
	}
	if j := content.Get("application/json"); j != nil && jsonExample(j) != nil {
		body, err := json.Marshal(jsonExample(j))
		if err == nil {
			return []string{"-H 'Content-Type: application/json'", "-d " + shellQuote(string(body))}
		}
	}
	return nil
}

// jsonExample is a JSON body's example: its example, else the first of its named examples (by
// name, so the page is the same each time), else nil.
func jsonExample(m *openapi3.MediaType) any {
	if m.Example != nil {
		return m.Example
	}
	for _, name := range sortedKeys(m.Examples) {
		if ref := m.Examples[name]; ref != nil && ref.Value != nil {
			return ref.Value.Value
		}
	}
	return nil
}

// shellQuote quotes s for a POSIX shell: in single quotes, each ' written as '\”. A line
// break stays a line break inside the quotes, which the shell keeps.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// docBlock is a paragraph (Spans), a bulleted list (Items) or a fenced code block (Pre, its
// lines as written) of a description.
type docBlock struct {
	Spans []docSpan
	Items [][]docSpan
	Pre   string
}

// docSpan is text, or code when it was between backticks.
type docSpan struct {
	Text string
	Code bool
}

var listItem = regexp.MustCompile(`^\s*[-*] `)

// markdown reads the little Markdown the spec's descriptions use (paragraphs, "- " lists,
// `code`, ``` fenced blocks ```) into blocks for the template, which escapes every piece: no
// HTML is ever built from the text. A fenced block keeps its lines, in a block that scrolls
// on a narrow screen rather than widen the page.
func markdown(text string) []docBlock {
	var blocks []docBlock
	for _, para := range strings.Split(strings.TrimSpace(text), "\n\n") {
		lines := strings.Split(strings.TrimSpace(para), "\n")
		if para = strings.TrimSpace(para); para == "" {
			continue
		}
		if len(lines) >= 2 && strings.HasPrefix(lines[0], "```") && strings.TrimSpace(lines[len(lines)-1]) == "```" {
			blocks = append(blocks, docBlock{Pre: strings.Join(lines[1:len(lines)-1], "\n")})
			continue
		}
		if listItem.MatchString(lines[0]) {
			var b docBlock
			for _, line := range lines {
				if listItem.MatchString(line) {
					b.Items = append(b.Items, nil)
					line = listItem.ReplaceAllString(line, "")
				}
				last := len(b.Items) - 1
				b.Items[last] = append(b.Items[last], codeSpans(strings.TrimSpace(line)+" ")...)
			}
			blocks = append(blocks, b)
			continue
		}
		blocks = append(blocks, docBlock{Spans: codeSpans(strings.Join(lines, " "))})
	}
	return blocks
}

func codeSpans(s string) []docSpan {
	var out []docSpan
	for i, part := range strings.Split(s, "`") {
		if part != "" {
			out = append(out, docSpan{Text: part, Code: i%2 == 1})
		}
	}
	return out
}
