package repository

import "testing"

// TestCmpRevenue: amounts compare by value, not as text, and no amount is the least.
func TestCmpRevenue(t *testing.T) {
	amount := func(s string) *RevenueAmount { return &RevenueAmount{Amount: s, Currency: "EUR"} }
	for _, c := range []struct {
		a, b *RevenueAmount
		want int
	}{
		{amount("9.50"), amount("10.00"), -1},
		{amount("10.0"), amount("10.00"), 0},
		{amount("-1.5"), amount("0"), -1},
		{amount("1234.56"), amount("999.99"), 1},
		{nil, amount("0"), -1},
		{amount("0"), nil, 1},
		{nil, nil, 0},
	} {
		if got := cmpRevenue(c.a, c.b); got != c.want {
			t.Errorf("cmpRevenue(%v, %v) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
