package funnel

import (
	"fmt"
	"testing"
)

// A text[] as PostgreSQL writes it splits into its elements, quotes, backslashes, commas,
// braces, spaces and empty elements included.
func TestTextArrayParse(t *testing.T) {
	cases := map[string]string{
		`{}`:      `[]`,
		`{/a}`:    `["/a"]`,
		`{/a,/b}`: `["/a" "/b"]`,
		`{/a,"/b c","/q\"x","/back\\slash","",/d,"{,}","NULL"}`: `["/a" "/b c" "/q\"x" "/back\\slash" "" "/d" "{,}" "NULL"]`,
	}
	var a textArray
	for lit, want := range cases {
		if err := a.parse([]byte(lit)); err != nil {
			t.Fatalf("%s: %v", lit, err)
		}
		var got []string
		for _, e := range a.elems {
			got = append(got, string(e))
		}
		if s := fmt.Sprintf("%q", got); s != want && !(want == "[]" && len(got) == 0) {
			t.Errorf("%s: %s, want %s", lit, s, want)
		}
	}
	for _, bad := range []string{``, `{`, `{"a}`, `x`} {
		if err := a.parse([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
