package query

import "testing"

func TestNewRevenue(t *testing.T) {
	for _, c := range []struct{ amount, currency, value, short, long string }{
		{"0", "EUR", "0", "€0.0", "€0.00"},
		{"19.99", "USD", "19.99", "$20.0", "$19.99"},
		{"999.95", "USD", "999.95", "$1.0K", "$999.95"},
		{"999949.99", "GBP", "999949.99", "£999.9K", "£999,949.99"},
		{"96336315.00", "USD", "96336315", "$96.3M", "$96,336,315.00"},
		{"123456789012355.23", "EUR", "123456789012355.23", "€123.5T", "€123,456,789,012,355.23"},
		{"999999999999999999.99", "EUR", "999999999999999999.99", "€1000000.0T", "€999,999,999,999,999,999.99"},
		{"1234.50", "JPY", "1234.5", "¥1.2K", "¥1,235"},
		{"12.50", "CHF", "12.5", "CHF\u00a012.5", "CHF\u00a012.50"},
	} {
		r := NewRevenue(c.amount, c.currency)
		if r.Value != c.value || r.Short != c.short || r.Long != c.long || r.Currency != c.currency {
			t.Errorf("%s %s: %+v, want value %s short %s long %s", c.amount, c.currency, r, c.value, c.short, c.long)
		}
	}
}
