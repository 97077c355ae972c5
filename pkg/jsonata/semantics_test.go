package jsonata

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

const ordersDoc = `{"Account":{"Order":[
	{"OrderID":"o1","Product":[{"SKU":"a","Price":5},{"SKU":"b","Price":7}]},
	{"OrderID":"o2","Product":[{"SKU":"c","Price":3},{"SKU":"d","Price":9}]}]}}`

// TestPathSemanticsAgreeAcrossModes checks that paths evaluated with
// variable bindings or parent tracking select the same items as plain
// paths: a predicate binds tighter than the map, per input item.
func TestPathSemanticsAgreeAcrossModes(t *testing.T) {
	t.Parallel()
	tests := []struct{ expr, want string }{
		{`Account.Order.Product[0].SKU`, `["a","c"]`},
		{`Account.Order#$i.Product[0].SKU`, `["a","c"]`},
		{`Account.Order.Product[0].{"sku": SKU, "order": %.OrderID}`, `[{"sku":"a","order":"o1"},{"sku":"c","order":"o2"}]`},
		{`Account.Order.Product[-1].SKU`, `["b","d"]`},
		{`(Account.Order.Product)[0].SKU`, `"a"`},
		{`Account.Order.Product#$p[$p = 1].SKU`, `["b","d"]`},
		{`Account.Order#$i.Product[Price > 4].{"i": $i, "s": SKU}`, `[{"i":0,"s":"a"},{"i":0,"s":"b"},{"i":1,"s":"d"}]`},
		{`Account.Order@$o.Order.Product[0].{"s": SKU, "o": $o.OrderID}`, `[{"s":"a","o":"o1"},{"s":"c","o":"o1"},{"s":"a","o":"o2"},{"s":"c","o":"o2"}]`},
		{`Account.Order.Product^(Price).SKU`, `["c","a","b","d"]`},
		{`Account.Order.Product{SKU: Price}`, `{"a":5,"b":7,"c":3,"d":9}`},
		{`Account.Order{OrderID: $sum(Product.Price)}`, `{"o1":12,"o2":12}`},
		{`Account.Order[0].Product[]`, `[{"SKU":"a","Price":5},{"SKU":"b","Price":7}]`},
		{`Account.Order.Product.Price ~> $max()`, `9`},
		{`**.SKU`, `["a","b","c","d"]`},
		{`Account.*.OrderID`, `["o1","o2"]`},
	}
	for _, tc := range tests {
		out, err := MustCompile(tc.expr).EvaluateJSON(context.Background(), []byte(ordersDoc), nil)
		require.NoError(t, err, tc.expr)
		require.Equal(t, tc.want, string(out), tc.expr)
	}
}

// TestTopLevelArrayInput checks the rule for an input that is an array:
// it is one context value for constructors and $, and paths map over it.
func TestTopLevelArrayInput(t *testing.T) {
	t.Parallel()
	tests := []struct{ expr, input, want string }{
		{`{ "data": $ }`, `[1,2]`, `{"data":[1,2]}`},
		{`{ "data": $ }`, `[]`, `{"data":[]}`},
		{`$[0]`, `[{"a":1},{"a":2}]`, `{"a":1}`},
		{`a`, `[{"a":1},{"a":2}]`, `[1,2]`},
		{`$count($)`, `[1,2,3]`, `3`},
	}
	for _, tc := range tests {
		out, err := MustCompile(tc.expr).EvaluateJSON(context.Background(), []byte(tc.input), nil)
		require.NoError(t, err, tc.expr)
		require.Equal(t, tc.want, string(out), tc.expr)
	}
}
