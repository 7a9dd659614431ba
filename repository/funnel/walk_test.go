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

// A visit moves on one step a hit, only with the next step's goal, and stops at the last.
func TestFurthest(t *testing.T) {
	for _, c := range []struct {
		bits  []uint8
		steps int
		want  int
	}{
		{nil, 2, 0},
		{[]uint8{2}, 2, 0},          // step 2 before step 1 counts nothing
		{[]uint8{2, 1}, 2, 1},       // nor after it, when it came first
		{[]uint8{1, 2}, 2, 2},       // in order
		{[]uint8{3, 3}, 2, 2},       // a hit of both steps takes one
		{[]uint8{3}, 2, 1},          // and only one
		{[]uint8{1, 4, 2, 4}, 3, 3}, // step 3 before step 2 waits for the next
		{[]uint8{1, 2, 1, 2}, 2, 2}, // stops at the last step
		{[]uint8{0x81, 2, 4, 8, 16, 32, 64, 128}, 8, 8},
	} {
		if got := Furthest(c.bits, c.steps); got != c.want {
			t.Errorf("%v of %d steps: %d, want %d", c.bits, c.steps, got, c.want)
		}
	}
}
