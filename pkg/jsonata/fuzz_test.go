package jsonata

import (
	"context"
	"errors"
	"testing"
	"time"
)

var fuzzSeeds = []string{
	`{ "id": $messageId, "type": $topic, "data": $ }`,
	`Account.Order.Product[Price > 30].{ "name": $."Product Name", "total": Price * Quantity }`,
	`$sum(items.(price * qty))`,
	`$headers."x-github-event"`,
	`library.loans@$l.books@$b[$l.isbn=$b.isbn].{ 'title': $b.title }`,
	`Account.Order.Product.{ 'Order': %.OrderID, 'Account': %.%.'Account Name' }`,
	`($f := function($n){ $n <= 1 ? 1 : $n * $f($n - 1) }; $f(5))`,
	`$ ~> |$|{}, ['password', 'secret']|`,
	`[1..5].($ * $)[$ > 4]^(>$)#$i{ $string($i): $ }`,
	`$formatNumber(1234.5678, "#,##0.00;(#)")`,
	`$fromMillis(1521801216617, '[FNn], [D1o] [MNn] [Y]')`,
	`$replace("abc", /(b)/i, "[$1]") & $match("aXbX", /x/i)[0].index`,
	`foo ?? bar ?: 'default'`,
	`/* comment */ $substring(?, 0, 2) ~> $uppercase`,
	`$eval('1 + ' & $string(2))`,
	`\u00e9"unterminated`,
	`{ "a": [1, {"b": -0.5e-3}], 'c': true and false or null }`,
}

// FuzzCompile checks that no expression makes the parser panic. It calls
// the parser directly (without the panic recovery of Compile).
func FuzzCompile(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		_, err := compileTree(expr, nil)
		var je *Error
		var de *DepthError
		if err != nil && !errors.As(err, &je) && !errors.As(err, &de) {
			t.Fatalf("Compile(%q) returned an untyped error: %v", expr, err)
		}
	})
}

// FuzzEvaluate compiles and evaluates expressions against a fixed document
// with tight limits; an internal error (a recovered panic) fails the test.
func FuzzEvaluate(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	input, err := DecodeJSON([]byte(`{"Account":{"Order":[{"OrderID":"o1","Product":[{"Product Name":"Hat","Price":34.45,"Quantity":2}]}]},"items":[{"price":10,"qty":2}],"s":"text","n":-1.5,"a":[1,[2,[3]],null,true]}`))
	if err != nil {
		f.Fatal(err)
	}
	bindings := map[string]any{"messageId": "m1", "topic": "t", "headers": map[string]any{"x-github-event": "push"}}
	f.Fuzz(func(t *testing.T, expr string) {
		x, err := Compile(expr, WithMaxDepth(20), WithMaxSize(10000))
		if err != nil {
			if ErrorCode(err) == "U1000" {
				t.Fatalf("Compile(%q) panicked: %v", expr, err)
			}
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err = x.Evaluate(ctx, input, bindings)
		if ErrorCode(err) == "U1000" {
			t.Fatalf("Evaluate(%q) panicked: %v", expr, err)
		}
	})
}
