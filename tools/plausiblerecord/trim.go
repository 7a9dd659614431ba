package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
)

// glue are the imports of provider-plausible's API client that are Kubernetes' and
// Crossplane's (reading a ProviderConfig, tracking its use), not the HTTP client's. Their
// modules are not on the Go module proxy at the versions it pins (crossplane/apis/v2
// v2.5.0-rc.0), so the client cannot be built whole here.
var glue = []string{"github.com/crossplane/", "k8s.io/", "sigs.k8s.io/", "github.com/rossigee/provider-plausible/apis"}

// trim writes the Go file in without the declarations that use a glue import (and those
// imports): every other declaration, the HTTP calls included, is kept as it is, byte for byte
// as go/format prints it.
func trim(in, out string) error {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, in, nil, parser.ParseComments)
	if err != nil {
		return fmt.Errorf("trim: parse %s: %w", in, err)
	}
	dropped := map[string]bool{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if !isGlue(path) {
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		dropped[name] = true
	}
	var imports *ast.GenDecl
	var kept []ast.Decl
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			imports = g
			kept = append(kept, g)
		} else if !usesAny(d, dropped) {
			kept = append(kept, d)
		}
	}
	// The imports left are those the kept declarations still use (context was the glue's).
	if imports != nil {
		var specs []ast.Spec
		for _, s := range imports.Specs {
			imp := s.(*ast.ImportSpec)
			path, _ := strconv.Unquote(imp.Path.Value)
			name := path[strings.LastIndex(path, "/")+1:]
			if imp.Name != nil {
				name = imp.Name.Name
			}
			if !isGlue(path) && anyUses(kept, name) {
				specs = append(specs, s)
			}
		}
		imports.Specs = specs
	}
	f.Decls = kept
	f.Comments = nil // comments of dropped declarations would be printed loose
	var b bytes.Buffer
	if err := format.Node(&b, fset, f); err != nil {
		return fmt.Errorf("trim: print: %w", err)
	}
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("trim: write %s: %w", out, err)
	}
	return nil
}

// anyUses: one of the declarations names the package name.
func anyUses(decls []ast.Decl, name string) bool {
	for _, d := range decls {
		if usesAny(d, map[string]bool{name: true}) {
			return true
		}
	}
	return false
}

func isGlue(path string) bool {
	for _, p := range glue {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// usesAny: the declaration names a package of names (pkg.X).
func usesAny(d ast.Decl, names map[string]bool) bool {
	found := false
	ast.Inspect(d, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && names[id.Name] {
				found = true
			}
		}
		return !found
	})
	return found
}
