// Package jsonata compiles and evaluates JSONata 2.x expressions
// (https://jsonata.org) against JSON documents.
//
// Compile an expression once, then evaluate it as often as needed:
//
//	x, err := jsonata.Compile(`{ "id": $messageId, "data": $ }`)
//	out, err := x.EvaluateJSON(ctx, payload, map[string]any{"messageId": id})
//
// A compiled *Expression is immutable and safe for concurrent use; the
// bindings of an evaluation are never stored on it. Objects keep the order
// of their keys (see Object), so results are deterministic.
//
// Every evaluation is bounded: it stops when its context is done
// (*TimeoutError), when function calls nest deeper than Options.MaxDepth
// (*DepthError) and when a range, array or string would exceed
// Options.MaxSize (*SizeLimitError). The limits are checked inside the
// evaluator, so a stopped evaluation leaves no goroutine behind. Language
// errors are *Error values carrying the JSONata error code and position.
// No expression or input can panic the caller: panics are recovered and
// returned as errors.
package jsonata
