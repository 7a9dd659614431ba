package importer

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxLine bounds a line of an export's CSV (a record: several lines when a quoted field holds
// line breaks), and so every field. The longest values of the exports read (Plausible's,
// GoatCounter's) are URLs; a longer line is refused as soon as the bound passes, without the
// rest of it being read.
const MaxLine = 64 << 10

// CSVReader reads CSV as ClickHouse's CSVWithNames and Go's encoding/csv write it (RFC 4180:
// fields separated by commas, quoted with " when need be, "" for a quote inside; \n or \r\n
// line ends; empty lines skipped), never holding more than one record of at most MaxLine
// bytes. encoding/csv is not used because it reads a record whole, however long, before it
// can tell.
type CSVReader struct {
	br     *bufio.Reader
	line   int // the line the last record began on
	next   int // the line the next record begins on
	raw    []byte
	field  []byte
	ends   []int
	fields []string
	want   int // fields of every record: the first record's
}

// NewCSVReader reads the records of r.
func NewCSVReader(r io.Reader) *CSVReader {
	return &CSVReader{br: bufio.NewReaderSize(r, MaxLine+2), next: 1}
}

// Line is the line the last record read began on.
func (c *CSVReader) Line() int { return c.line }

// CSVError is a problem of a record: its line, the (0-based) field it is in, and what.
type CSVError struct {
	Line, Field int
	Problem     string
}

func (e *CSVError) Error() string {
	return fmt.Sprintf("line %d, field %d: %s", e.Line, e.Field+1, e.Problem)
}

// Read returns the next record, io.EOF after the last; the strings stay valid, the slice is
// reused by the next call.
func (c *CSVReader) Read() ([]string, error) {
	for {
		if err := c.readRecord(); err != nil {
			return nil, err
		}
		if len(c.raw) > 0 {
			break
		}
	}
	if err := c.split(); err != nil {
		return nil, err
	}
	if c.want == 0 {
		c.want = len(c.fields)
	} else if len(c.fields) != c.want {
		return nil, &CSVError{Line: c.line, Field: min(len(c.fields), c.want),
			Problem: fmt.Sprintf("the line has %d fields, the first line %d", len(c.fields), c.want)}
	}
	return c.fields, nil
}

// readRecord reads the lines of one record into raw, without its line end: one line, or more
// while a quoted field is open.
func (c *CSVReader) readRecord() error {
	c.raw = c.raw[:0]
	c.line = c.next
	quoted := false
	for {
		chunk, err := c.br.ReadSlice('\n')
		if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
			c.next++
		}
		quoted = quotesOpen(chunk, quoted)
		c.raw = append(c.raw, chunk...)
		if content := len(bytes.TrimSuffix(bytes.TrimSuffix(c.raw, []byte("\n")), []byte("\r"))); content > MaxLine {
			return &CSVError{Line: c.line, Field: fieldAt(c.raw[:MaxLine+1]),
				Problem: fmt.Sprintf("the line is longer than %d KiB; no export holds one so long", MaxLine>>10)}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue // cannot happen within MaxLine: the buffer holds MaxLine+2
		case err == io.EOF:
			if quoted {
				return &CSVError{Line: c.line, Field: fieldAt(c.raw), Problem: "a quoted field is not closed before the end of the file"}
			}
			if len(c.raw) == 0 {
				return io.EOF
			}
		case err != nil:
			return err
		case quoted:
			continue
		}
		c.raw = bytes.TrimSuffix(bytes.TrimSuffix(c.raw, []byte("\n")), []byte("\r"))
		return nil
	}
}

// quotesOpen tells whether a quoted field is open after b, given whether one was before: a
// doubled quote closes and opens, so counting them suffices.
func quotesOpen(b []byte, open bool) bool {
	return (bytes.Count(b, []byte(`"`))%2 == 1) != open
}

// fieldAt is the 0-based field the end of b is in: the commas outside quotes before it.
func fieldAt(b []byte) int {
	n, quoted := 0, false
	for _, ch := range b {
		switch {
		case ch == '"':
			quoted = !quoted
		case ch == ',' && !quoted:
			n++
		}
	}
	return n
}

// split cuts raw into fields: one string for the record, the fields slices of it.
func (c *CSVReader) split() error {
	c.field, c.ends = c.field[:0], c.ends[:0]
	rec := c.raw
	for i := 0; ; {
		if i < len(rec) && rec[i] == '"' {
			i++
			for {
				j := bytes.IndexByte(rec[i:], '"')
				if j < 0 { // readRecord only returns closed quotes
					return &CSVError{Line: c.line, Field: len(c.ends), Problem: "a quoted field is not closed"}
				}
				c.field = append(c.field, rec[i:i+j]...)
				i += j + 1
				if i < len(rec) && rec[i] == '"' {
					c.field = append(c.field, '"')
					i++
					continue
				}
				break
			}
			if i < len(rec) && rec[i] != ',' {
				return &CSVError{Line: c.line, Field: len(c.ends), Problem: `a quote inside a quoted field is not doubled ("")`}
			}
		} else {
			j := bytes.IndexByte(rec[i:], ',')
			if j < 0 {
				j = len(rec) - i
			}
			if bytes.IndexByte(rec[i:i+j], '"') >= 0 {
				return &CSVError{Line: c.line, Field: len(c.ends), Problem: `a quote in a field that is not quoted`}
			}
			c.field = append(c.field, rec[i:i+j]...)
			i += j
		}
		c.ends = append(c.ends, len(c.field))
		if i >= len(rec) {
			break
		}
		i++ // the comma
	}
	all := string(c.field)
	c.fields = c.fields[:0]
	start := 0
	for _, end := range c.ends {
		c.fields = append(c.fields, all[start:end])
		start = end
	}
	return nil
}

// Budget reads r until the bytes read through every Budget sharing left pass it: the sizes an
// archive declares are not to be trusted, so the bound is on what is actually read.
type Budget struct {
	r    io.Reader
	left *int64
	over bool
}

// NewBudget reads r within *left bytes, which every read takes from.
func NewBudget(r io.Reader, left *int64) *Budget { return &Budget{r: r, left: left} }

func (b *Budget) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	*b.left -= int64(n)
	if *b.left < 0 {
		b.over = true
		return n, errors.New("uncompressed limit passed")
	}
	return n, err
}

// Over tells whether a read passed the budget.
func (b *Budget) Over() bool { return b.over }
