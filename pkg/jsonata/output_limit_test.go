package jsonata

import (
	"context"
	"errors"
	"testing"
)

func TestEvaluateJSONMaxOutput(t *testing.T) {
	t.Parallel()
	x := MustCompile(`[1..1000]`)
	_, err := x.EvaluateJSON(context.Background(), nil, nil, WithMaxOutput(100))
	var size *SizeLimitError
	if !errors.As(err, &size) || size.What != "output" || size.Limit != 100 {
		t.Fatalf("EvaluateJSON with MaxOutput 100 = %v, want an output SizeLimitError", err)
	}
	out, err := x.EvaluateJSON(context.Background(), nil, nil, WithMaxOutput(10000))
	if err != nil || len(out) > 10000 {
		t.Fatalf("EvaluateJSON under the cap = %d bytes, %v", len(out), err)
	}
	// A string past the cap fails too, although it is one value.
	if _, err := MustCompile(`$pad("", 500, "x")`).EvaluateJSON(context.Background(), nil, nil, WithMaxOutput(100)); !errors.As(err, &size) {
		t.Fatalf("one long string = %v, want an output SizeLimitError", err)
	}
}
