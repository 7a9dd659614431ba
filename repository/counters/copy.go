package counters

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"unsafe"

	"github.com/jmoiron/sqlx"
)

// The flush sends its visit rows and its day membership to PostgreSQL by COPY (text format)
// into temporary tables of the session, then writes them from there (docs/cost-of-a-hit.md,
// "Per flush"): lines written here straight into the driver's buffer, where statement
// arguments went through database/sql's conversions and a Bind message of them all.

// rawCopier is lib/pq's COPY statement, which takes lines of COPY's text format as they are.
type rawCopier interface {
	CopyData(ctx context.Context, line string) (driver.Result, error)
}

// copyBlock is about how many bytes of lines go to the driver at a time: its buffer holds 64
// KiB, and each call watches the context with a goroutine of its own.
const copyBlock = 32 << 10

// copyLines sends n lines by copyQuery (a COPY ... FROM STDIN) in tx's connection conn:
// database/sql reaches the driver's COPY only through the connection (sql.Conn.Raw). line
// appends line i (0 <= i < n) to b, escaped for COPY's text format, without its newline.
func copyLines(ctx context.Context, conn *sqlx.Conn, copyQuery string, n int, line func(b []byte, i int) []byte) error {
	if conn == nil {
		return errors.New("COPY needs the transaction's connection")
	}
	return conn.Raw(func(dc any) error {
		c, ok := dc.(driver.ConnPrepareContext)
		if !ok {
			return fmt.Errorf("the driver %T prepares no statement", dc)
		}
		stmt, err := c.PrepareContext(ctx, copyQuery)
		if err != nil {
			return err
		}
		defer stmt.Close() // ends the COPY (and frees the connection) if it is not over
		copier, ok := stmt.(rawCopier)
		if !ok {
			return fmt.Errorf("the driver's COPY (%T) takes no line", stmt)
		}
		block := make([]byte, 0, copyBlock+copyBlock/4) // a block and the line that ends it
		for i := range n {
			if len(block) > 0 {
				block = append(block, '\n')
			}
			block = line(block, i)
			if len(block) >= copyBlock || i == n-1 {
				// The driver copies the lines into its buffer before it returns: the string
				// does not outlive the call, and block is written again only after it.
				if _, err := copier.CopyData(ctx, unsafe.String(unsafe.SliceData(block), len(block))); err != nil {
					return err
				}
				block = block[:0]
			}
		}
		// Exec without values ends the COPY and gives its errors (lib/pq's COPY has no
		// ExecContext).
		_, err = stmt.Exec(nil)
		return err
	})
}
