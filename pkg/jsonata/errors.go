package jsonata

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Every error returned by this package that reports one of
// these conditions matches the sentinel with errors.Is.
var (
	// ErrTimeout matches a *TimeoutError: the context of the evaluation was
	// cancelled or its deadline passed.
	ErrTimeout = errors.New("jsonata: evaluation timed out")
	// ErrDepth matches a *DepthError: the call depth, the evaluator nesting
	// or the expression nesting went past its limit.
	ErrDepth = errors.New("jsonata: maximum depth exceeded")
	// ErrSizeLimit matches a *SizeLimitError: a range, string or array
	// would have grown past the configured size cap.
	ErrSizeLimit = errors.New("jsonata: size limit exceeded")
	// ErrUndefined is returned by Evaluate and EvaluateJSON when the
	// expression produced no value (JSONata's "undefined"), for example a
	// path that matched nothing.
	ErrUndefined = errors.New("jsonata: result is undefined")
)

// Error is a JSONata language error: a syntax error found by Compile, or a
// type or dynamic error raised while evaluating. Code is the code the
// JSONata documentation and conformance suite use (S0201, T2001, D3137...).
type Error struct {
	// Code identifies the error, for example "S0202" or "T2001". Codes that
	// start with S are static (syntax) errors.
	Code string
	// Position is the character offset (0-based, counted in Unicode code
	// points) in the expression of the token that caused the error, or -1
	// when no position is known. For U1002 (invalid JSON input) it is the
	// byte offset in the input document.
	Position int
	// Token is the token, operator or function name involved, if any.
	Token string
	// Message is a human readable description.
	Message string
}

// Error implements the error interface.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Code)
	b.WriteString(": ")
	b.WriteString(e.Message)
	if e.Position >= 0 {
		fmt.Fprintf(&b, " (at position %d", e.Position)
		if e.Token != "" {
			fmt.Fprintf(&b, ", token %q", e.Token)
		}
		b.WriteString(")")
	}
	return b.String()
}

// TimeoutError reports that the context of an evaluation was done (its
// deadline passed or it was cancelled) before the evaluation finished.
// errors.Is(err, ErrTimeout) is true, and Unwrap returns ctx.Err(), so
// errors.Is(err, context.DeadlineExceeded) also works.
type TimeoutError struct {
	// Cause is the context error: context.DeadlineExceeded or
	// context.Canceled.
	Cause error
}

// Error implements the error interface.
func (e *TimeoutError) Error() string {
	return fmt.Sprintf("D1012: expression evaluation stopped: %v", e.Cause)
}

// Unwrap returns the context error.
func (e *TimeoutError) Unwrap() error { return e.Cause }

// Is reports whether target is ErrTimeout.
func (e *TimeoutError) Is(target error) bool { return target == ErrTimeout }

// Code returns the JSONata guardrail code for timeouts, "D1012".
func (e *TimeoutError) Code() string { return "D1012" }

// DepthError reports that a depth limit was exceeded: the function call
// depth of the evaluation (Options.MaxDepth), the internal evaluator
// nesting, or the nesting of the expression or of a JSON document.
type DepthError struct {
	// Limit is the limit that was exceeded.
	Limit int
	// What names the limit: "call depth", "evaluation nesting",
	// "expression nesting" or "JSON nesting".
	What string
	// Position is the character offset of the expression token being
	// evaluated when the limit tripped, or -1.
	Position int
}

// Error implements the error interface.
func (e *DepthError) Error() string {
	return fmt.Sprintf("D1011: %s exceeds the limit of %d; check for non-terminating recursion", e.What, e.Limit)
}

// Is reports whether target is ErrDepth.
func (e *DepthError) Is(target error) bool { return target == ErrDepth }

// Code returns the JSONata guardrail code for stack depth, "D1011".
func (e *DepthError) Code() string { return "D1011" }

// SizeLimitError reports that a range, string or array would have exceeded
// the size cap (Options.MaxSize).
type SizeLimitError struct {
	// Limit is the configured cap.
	Limit int
	// Size is the size that was requested (at least Limit+1).
	Size int
	// What is "range", "string", "array" or "output" (the encoded
	// result of EvaluateJSON, see Options.MaxOutput).
	What string
	// Position is the character offset of the expression token being
	// evaluated, or -1.
	Position int
}

// Error implements the error interface.
func (e *SizeLimitError) Error() string {
	return fmt.Sprintf("%s: the %s size %d exceeds the limit of %d", e.Code(), e.What, e.Size, e.Limit)
}

// Is reports whether target is ErrSizeLimit.
func (e *SizeLimitError) Is(target error) bool { return target == ErrSizeLimit }

// Code returns "D2014" for ranges (the code JSONata uses for oversized
// ranges) and "D2015" for other sequences and strings.
func (e *SizeLimitError) Code() string {
	if e.What == "range" {
		return "D2014"
	}
	return "D2015"
}

// ErrorCode returns the JSONata code of err: the Code of an *Error, or the
// guardrail code of a *TimeoutError ("D1012"), *DepthError ("D1011") or
// *SizeLimitError ("D2014"/"D2015"). It returns "" for other errors.
func ErrorCode(err error) string {
	var je *Error
	if errors.As(err, &je) {
		return je.Code
	}
	var coder interface{ Code() string }
	if errors.As(err, &coder) {
		return coder.Code()
	}
	return ""
}

// newError builds an *Error with the standard message for code, formatted
// with args.
func newError(code string, pos int, token string, args ...any) *Error {
	msg, ok := errorMessages[code]
	if !ok {
		msg = "error"
	}
	if len(args) > 0 {
		msg = fmt.Sprintf(msg, args...)
	}
	return &Error{Code: code, Position: pos, Token: token, Message: msg}
}

// errorMessages holds the message template of each error code.
var errorMessages = map[string]string{
	"S0101": "string literal must be terminated by a matching quote",
	"S0102": "number out of range: %s",
	"S0103": "unsupported escape sequence: \\%s",
	"S0104": "the escape sequence \\u must be followed by 4 hex digits",
	"S0105": "quoted property name must be terminated with a backquote (`)",
	"S0106": "comment has no closing tag",
	"S0201": "syntax error: %q",
	"S0202": "expected %q, got %q",
	"S0203": "expected %q before end of expression",
	"S0204": "unknown operator: %q",
	"S0205": "unexpected token: %q",
	"S0206": "unknown expression type: %q",
	"S0207": "unexpected end of expression",
	"S0208": "parameter %q of function definition must be a variable name (start with $)",
	"S0209": "a predicate cannot follow a grouping expression in a step",
	"S0210": "each step can only have one grouping expression",
	"S0211": "the symbol %q cannot be used as a unary operator",
	"S0212": "the left side of := must be a variable name (start with $)",
	"S0213": "the literal value %s cannot be used as a step within a path expression",
	"S0214": "the right side of %s must be a variable name (start with $)",
	"S0215": "a context variable binding must precede any predicates on a step",
	"S0216": "a context variable binding must precede the 'order-by' clause on a step",
	"S0217": "the object representing the 'parent' cannot be derived from this expression",
	"S0301": "empty regular expressions are not allowed",
	"S0302": "no terminating / in regular expression",
	"S0303": "invalid regular expression: %s",
	"S0401": "type parameters can only be applied to functions and arrays",
	"S0402": "choice groups containing parameterized types are not supported",
	"S0403": "invalid function signature: %s",
	"T0410": "argument %d of function %s does not match function signature",
	"T0411": "context value is not a compatible type with argument %d of function %s",
	"T0412": "argument %d of function %s must be an array of %s",
	"D1001": "number out of range: %s",
	"D1002": "cannot negate a non-numeric value: %s",
	"T1003": "key in object structure must evaluate to a string; got: %s",
	"D1004": "regular expression matches zero length string",
	"T1005": "attempted to invoke a non-function; did you mean $%s?",
	"T1006": "attempted to invoke a non-function",
	"T1007": "attempted to partially apply a non-function; did you mean $%s?",
	"T1008": "attempted to partially apply a non-function",
	"D1009": "multiple key definitions evaluate to same key: %s",
	"T1010": "the matcher function argument passed to function %s does not return the correct object structure",
	"T2001": "the left side of the %s operator must evaluate to a number",
	"T2002": "the right side of the %s operator must evaluate to a number",
	"T2003": "the left side of the range operator (..) must evaluate to an integer",
	"T2004": "the right side of the range operator (..) must evaluate to an integer",
	"T2006": "the right side of the function application operator ~> must be a function",
	"T2007": "type mismatch when comparing values %s and %s in order-by clause",
	"T2008": "the expressions within an order-by clause must evaluate to numeric or string values",
	"T2009": "the values %s and %s either side of operator %s must be of the same data type",
	"T2010": "the expressions either side of operator %s must evaluate to numeric or string values",
	"T2011": "the insert/update clause of the transform expression must evaluate to an object: %s",
	"T2012": "the delete clause of the transform expression must evaluate to a string or array of strings: %s",
	"T2013": "the transform expression clones the input object using the $clone() function, which has been overridden by a non-function",
	"D3001": "attempting to invoke string function on Infinity or NaN",
	"D3010": "second argument of replace function cannot be an empty string",
	"D3011": "fourth argument of replace function must evaluate to a positive number",
	"D3012": "attempted to replace a matched string with a non-string value",
	"D3020": "third argument of split function must evaluate to a positive number",
	"D3030": "unable to cast value to a number: %s",
	"D3040": "third argument of match function must evaluate to a positive number",
	"D3050": "the second argument of reduce function must be a function with at least two arguments",
	"D3060": "the sqrt function cannot be applied to a negative number: %s",
	"D3061": "the power function has resulted in a value that cannot be represented as a JSON number: base=%s, exponent=%s",
	"D3070": "the single argument form of the sort function can only be applied to an array of strings or an array of numbers; use the second argument to specify a comparison function",
	"D3080": "the picture string must only contain a maximum of two sub-pictures",
	"D3081": "the sub-picture must not contain more than one instance of the 'decimal-separator' character",
	"D3082": "the sub-picture must not contain more than one instance of the 'percent' character",
	"D3083": "the sub-picture must not contain more than one instance of the 'per-mille' character",
	"D3084": "the sub-picture must not contain both a 'percent' and a 'per-mille' character",
	"D3085": "the mantissa part of a sub-picture must contain at least one character that is either an 'optional digit character' or a member of the 'decimal digit family'",
	"D3086": "the sub-picture must not contain a passive character that is preceded by an active character and that is followed by another active character",
	"D3087": "the sub-picture must not contain a 'grouping-separator' character that appears adjacent to a 'decimal-separator' character",
	"D3088": "the sub-picture must not contain a 'grouping-separator' at the end of the integer part",
	"D3089": "the sub-picture must not contain two adjacent instances of the 'grouping-separator' character",
	"D3090": "the integer part of the sub-picture must not contain a member of the 'decimal digit family' that is followed by an instance of the 'optional digit character'",
	"D3091": "the fractional part of the sub-picture must not contain an instance of the 'optional digit character' that is followed by a member of the 'decimal digit family'",
	"D3092": "a sub-picture that contains a 'percent' or 'per-mille' character must not contain a character treated as an 'exponent-separator'",
	"D3093": "the exponent part of the sub-picture must comprise only of one or more characters that are members of the 'decimal digit family'",
	"D3100": "the radix of the formatBase function must be between 2 and 36; it was given %s",
	"D3110": "the argument of the toMillis function must be an ISO 8601 formatted timestamp; given %s",
	"D3120": "syntax error in expression passed to function eval: %s",
	"D3121": "dynamic error evaluating the expression passed to function eval: %s",
	"D3130": "formatting or parsing an integer as a sequence starting with %s is not supported",
	"D3131": "in a decimal digit pattern, all digits must be from the same decimal group",
	"D3132": "unknown component specifier %s in date/time picture string",
	"D3133": "the 'name' modifier can only be applied to months and days in the date/time picture string, not %s",
	"D3134": "the timezone integer format specifier cannot have more than four digits",
	"D3135": "no matching closing bracket ']' in date/time picture string",
	"D3136": "the date/time picture string is missing specifiers required to parse the timestamp",
	"D3137": "%s",
	"D3138": "the $single() function expected exactly 1 matching result; instead it matched more",
	"D3139": "the $single() function expected exactly 1 matching result; instead it matched 0",
	"D3140": "Malformed URL passed to $%s(): \"%s\"",
	"D3141": "%s",
	"U1000": "internal error: %v",
}
